package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/temporaladk/adk-go/internal/testclock"
)

const (
	retriesHeading = "## Retries: how late the next attempt starts"
	goTestHeading  = "## `go test ./...` wall time"
)

// keptProdstack and keptPayloads are parts written by others, as
// BENCHMARKS.md has them: one in the middle of the file, one at its end.
const keptProdstack = `<!-- kept: prodstack -->
## On the production stack

Written by ` + "`scripts/prodstack bench`" + `.

| workload | pairs |
|---|---|
| 200 sequential no-op activities | 3 |

<!-- /kept -->`

const keptPayloads = `<!-- kept: payloads -->
## Payloads of long conversations

Not written by ` + "`go run ./bench`" + `: 1,000 of 1,000 turns.
<!-- /kept -->`

// withParts returns md with each part inserted just before the "## "
// heading at its key, or at the end for the key "", as a person edits the
// file.
func withParts(t *testing.T, md string, parts map[string]string) string {
	t.Helper()
	for before, part := range parts {
		if before == "" {
			md = strings.TrimRight(md, "\n") + "\n\n" + part + "\n"
			continue
		}
		i := strings.Index(md, "\n"+before+"\n")
		if i < 0 {
			t.Fatalf("the report has no heading %q", before)
		}
		md = md[:i+1] + part + "\n\n" + md[i+1:]
	}
	return md
}

// Regenerating the file keeps the parts it does not write, each where it
// was, and writes its own figures anew around them.
func TestRegeneratingKeepsThePartsItDoesNotWrite(t *testing.T) {
	epoch := testclock.Epoch(t)
	old := sampleReport(t, epoch)
	oldFile := withParts(t, old.markdown(), map[string]string{
		"## Workflow side, per ExecuteActivity": keptProdstack, // after the retries
		"":                                      keptPayloads,  // after the last section
	})
	kept, err := parseKept(oldFile)
	if err != nil {
		t.Fatal(err)
	}
	if len(kept) != 2 || kept[0].Name != "prodstack" || kept[0].After != retriesHeading || kept[1].Name != "payloads" || kept[1].After != goTestHeading {
		t.Fatalf("kept parts %+v, want prodstack after the retries and payloads after go test", kept)
	}

	next := sampleReport(t, epoch.Add(24*time.Hour))
	next.Pairs[0].Plain.Median = 4321
	next.Kept = kept
	got := next.markdown()
	want := withParts(t, next.measured(), map[string]string{
		"## Workflow side, per ExecuteActivity": keptProdstack,
		"":                                      keptPayloads,
	})
	if got != want {
		t.Errorf("regenerated file:\n%s\nwant:\n%s", got, want)
	}
	if !strings.Contains(got, "| 4321 |") || strings.Contains(got, "| 1234 |") {
		t.Error("the regenerated file does not hold the new figures")
	}
	if !strings.Contains(got, `every figure in it, but those of "On the production stack" and "Payloads of long conversations"`) {
		t.Errorf("the opening sentence does not name the kept parts:\n%s", got[:min(len(got), 600)])
	}

	// Regenerating a regenerated file changes nothing more.
	again, err := parseKept(got)
	if err != nil {
		t.Fatal(err)
	}
	next.Kept = again
	if next.markdown() != got {
		t.Error("a second regeneration moved the kept parts")
	}
}

// Without kept parts the file is what the run measured, and its opening
// sentence claims every figure.
func TestNoKeptParts(t *testing.T) {
	r := sampleReport(t, testclock.Epoch(t))
	if r.markdown() != r.measured() {
		t.Error("markdown without kept parts differs from the measured sections")
	}
	if !strings.Contains(r.markdown(), "every figure in it comes from that one run") {
		t.Error("the opening sentence does not claim every figure")
	}
	kept, err := readKeptFile(filepath.Join(t.TempDir(), "absent.md"))
	if err != nil || kept != nil {
		t.Errorf("readKeptFile of a missing file = %v, %v; want none and no error", kept, err)
	}
}

// A part before the first section stays there; a part whose section the
// report no longer writes goes to the end, not away.
func TestKeptPartsWithoutTheirSection(t *testing.T) {
	generated := "# T\n\nintro\n\n## A\n\na\n\n## B\n\nb\n"
	kept := []keptPart{
		{Name: "gone", After: "## Z", Text: "<!-- kept: gone -->\nz\n<!-- /kept -->"},
		{Name: "top", After: "", Text: "<!-- kept: top -->\nt\n<!-- /kept -->"},
		{Name: "a", After: "## A", Text: "<!-- kept: a -->\nx\n<!-- /kept -->"},
	}
	got := withKept(generated, kept)
	want := "# T\n\nintro\n\n<!-- kept: top -->\nt\n<!-- /kept -->\n\n## A\n\na\n\n<!-- kept: a -->\nx\n<!-- /kept -->\n\n## B\n\nb\n\n<!-- kept: gone -->\nz\n<!-- /kept -->\n"
	if got != want {
		t.Errorf("withKept =\n%s\nwant:\n%s", got, want)
	}
}

// Markers that do not pair up stop the run: it cannot tell what to keep.
func TestKeptMarkersMustPairUp(t *testing.T) {
	for _, tt := range []struct {
		name, md, wantErr string
	}{
		{"unclosed", "# T\n\n<!-- kept: a -->\nx\n", `line 3: kept part "a" is never closed`},
		{"close alone", "# T\n\nx\n<!-- /kept -->\n", "line 4: <!-- /kept --> without an opening"},
		{"nested", "<!-- kept: a -->\n<!-- kept: b -->\n<!-- /kept -->\n<!-- /kept -->\n", `line 2: "<!-- kept: b -->" opens a kept part inside "a", opened on line 1`},
		{"no name", "<!-- kept: -->\n<!-- /kept -->\n", "line 1: \"<!-- kept: -->\" names no part"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := parseKept(tt.md)
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("parseKept = %v, want an error containing %q", err, tt.wantErr)
			}
		})
	}
}

// BENCHMARKS.md marks the parts the command does not write, and each
// follows a section the command writes, so that regenerating the file puts
// it back where it is now.
func TestBenchmarksFileMarksItsKeptParts(t *testing.T) {
	path := filepath.Join("..", "BENCHMARKS.md")
	kept, err := readKeptFile(path)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"prodstack": retriesHeading, "payloads": goTestHeading, "takeover": goTestHeading, "conversation-log": goTestHeading, "live": goTestHeading}
	if len(kept) != len(want) {
		t.Fatalf("%s keeps %d parts, want %d: %+v", path, len(kept), len(want), kept)
	}
	generated := sampleReport(t, testclock.Epoch(t)).measured()
	for _, k := range kept {
		if want[k.Name] != k.After {
			t.Errorf("kept part %q follows %q, want %q", k.Name, k.After, want[k.Name])
		}
		if !strings.Contains(generated, "\n"+k.After+"\n") {
			t.Errorf("kept part %q follows %q, which the command does not write", k.Name, k.After)
		}
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	// The file's opening sentence is the one the command writes for these
	// parts.
	if !strings.Contains(string(b), "but those of "+keptTitles(kept)+"\n") {
		t.Errorf("%s's opening sentence does not name its kept parts %s", path, keptTitles(kept))
	}
}
