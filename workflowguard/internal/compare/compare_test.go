package main

import (
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestTreeFindings generates a small tree over the testdata SDK stub and checks that workflowguard
// reports exactly the findings the generator expects: every random draw and clock read on the
// workflow path, nothing in SideEffect callbacks, activities or the workflow's own random stream.
func TestTreeFindings(t *testing.T) { // not parallel: it sets the environment
	dir := t.TempDir()
	guard := buildGuard(t, dir)
	tree := filepath.Join(dir, "tree")
	want, err := writeTree(tree, 4, 2, stubGoMod)
	if err != nil {
		t.Fatal(err)
	}
	out := runOnStub(t, guard, tree)
	got := map[finding]bool{}
	for line := range strings.SplitSeq(out, "\n") {
		if f, ok := classifyGuard(strings.TrimPrefix(line, tree+string(filepath.Separator))); ok {
			got[f] = true
		}
	}
	for f := range want {
		if !got[f] {
			t.Errorf("missed %v", f)
		}
	}
	for f := range got {
		if !want[f] {
			t.Errorf("unexpected %v", f)
		}
	}
	if len(want) != 4*12 {
		t.Errorf("generator expects %d findings, want %d", len(want), 4*12)
	}
}

// stubGoMod is the go.mod of a tree whose go.temporal.io/sdk is the testdata stub.
const stubGoMod = "module example.com/guardbench\n\ngo 1.26\n\nrequire go.temporal.io/sdk v1.51.0\n\nreplace go.temporal.io/sdk => ./sdk\n"

func buildGuard(t *testing.T, dir string) string {
	t.Helper()
	guard := filepath.Join(dir, "workflowguard")
	if out, err := exec.Command("go", "build", "-o", guard, "../../cmd/workflowguard").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return guard
}

// runOnStub copies the SDK stub into tree and runs workflowguard over it without the network.
func runOnStub(t *testing.T, guard, tree string) string {
	t.Helper()
	stub := filepath.Join("..", "..", "testdata", "src", "go.temporal.io", "sdk")
	for _, rel := range []string{"internal/internal.go", "workflow/workflow.go"} {
		src, err := os.ReadFile(filepath.Join(stub, filepath.FromSlash(rel)))
		if err != nil {
			t.Fatal(err)
		}
		dst := filepath.Join(tree, "sdk", filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(dst, src, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(tree, "sdk", "go.mod"), []byte("module go.temporal.io/sdk\n\ngo 1.26\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("GOFLAGS", "-mod=mod")
	t.Setenv("GOPROXY", "off")
	out, err := runTool(tree, []string{guard, "./..."})
	if err != nil {
		t.Fatalf("workflowguard: %v\n%s", err, out)
	}
	return out
}

// TestCorpusFindings runs workflowguard over the hand-written corpus (on the SDK stub) and
// checks what GUARD.md reports for it: every HAZARD line found, no other corpus line reported,
// and a corpus as large as the comparison promises.
func TestCorpusFindings(t *testing.T) { // not parallel: it sets the environment
	dir := t.TempDir()
	guard := buildGuard(t, dir)
	tree := filepath.Join(dir, "tree")
	if err := os.MkdirAll(tree, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(tree, "go.mod"), []byte(stubGoMod), 0o644); err != nil {
		t.Fatal(err)
	}
	hazards, traps, err := writeCorpus(tree)
	if err != nil {
		t.Fatal(err)
	}
	if len(hazards) < 50 || len(traps) < 35 {
		t.Fatalf("corpus has %d hazard lines and %d traps, want at least 50 and 35", len(hazards), len(traps))
	}
	out := runOnStub(t, guard, tree)
	got := flaggedLines(out, tree)
	s := scoreCorpus(got, hazards, traps)
	for _, k := range missed(got, hazards) {
		t.Errorf("missed %s:%d", k.File, k.Line)
	}
	for k := range got {
		if !hazards[k] {
			t.Errorf("reported unmarked line %s:%d", k.File, k.Line)
		}
	}
	t.Logf("found %d/%d hazard lines, %d false positives, %d/%d traps reported", s.found, s.hazards, s.falsePositives, s.trapsFlagged, s.traps)
	if s.found != len(hazards) || s.falsePositives != 0 || s.trapsFlagged != 0 {
		t.Errorf("score %+v, want all %d found and no false positive\n%s", s, len(hazards), out)
	}
	// -test=true sends the run through singlechecker, which type-checks every body: the lean
	// driver, which leaves the standard library's out, must report the same lines.
	full, err := runTool(tree, []string{guard, "-test=true", "./..."})
	if err != nil {
		t.Fatalf("workflowguard -test=true: %v\n%s", err, full)
	}
	if fullGot := flaggedLines(full, tree); !maps.Equal(fullGot, got) {
		t.Errorf("singlechecker reports %d lines, the lean driver %d:\n%s\n---\n%s", len(fullGot), len(got), full, out)
	}
}

// TestScoreSamples checks how the samples-go section counts: a finding of a known hazard's file
// and callee is that hazard, anything else (another callee in the same file, another file) is a
// false positive.
func TestScoreSamples(t *testing.T) {
	t.Parallel()
	known := []knownHazard{{"w/workflow.go", "github.com/google/uuid.New"}}
	found, fps := scoreSamples([]string{
		"w/workflow.go:52:40: ADK-W002 random draw on the workflow path (github.com/google/uuid.New); ...",
		"w/workflow.go:60:2: ADK-W003 wall clock on the workflow path (time.Now); ...",
		"x/workflow.go:52:40: ADK-W002 random draw on the workflow path (github.com/google/uuid.New); ...",
	}, known)
	if !found[known[0]] || len(found) != 1 {
		t.Errorf("found %v, want the uuid.New hazard", found)
	}
	if len(fps) != 2 || !strings.HasPrefix(fps[0], "w/workflow.go:60:2") || !strings.HasPrefix(fps[1], "x/workflow.go") {
		t.Errorf("false positives %q, want the time.Now line and the other file", fps)
	}
	if found, fps := scoreSamples(nil, known); len(found) != 0 || len(fps) != 0 {
		t.Errorf("no findings: found %v, false positives %q", found, fps)
	}
}

// TestBlindSpotsInGuardMD checks that GUARD.md ends with what the package documentation says
// workflowguard does not see, as the harness writes it: a blind spot found or added in doc.go
// and not rerun into GUARD.md fails here.
func TestBlindSpotsInGuardMD(t *testing.T) {
	t.Parallel()
	section := blindSpots()
	if !strings.Contains(section, "Not covered:") {
		t.Fatalf("the package documentation has no Not covered paragraph; section:\n%s", section)
	}
	guard, err := os.ReadFile(filepath.Join("..", "..", "..", "GUARD.md"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(string(guard), section) {
		t.Errorf("GUARD.md does not end with the package documentation's blind spots; rerun the harness (doc.go's package comment):\n%s", section)
	}
}
