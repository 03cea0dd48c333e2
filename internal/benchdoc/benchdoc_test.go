package benchdoc

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const file = `# Benchmarks

## Generated

figures

<!-- kept: slope -->
## Slope

old figures
<!-- /kept -->

<!-- kept: other -->
## Other
<!-- /kept -->
`

func writeFile(t *testing.T, s string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "BENCHMARKS.md")
	if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// Rewrite replaces one part's body, its markers kept, and nothing else; a
// second rewrite replaces the first's body.
func TestRewriteReplacesOnlyThePartsBody(t *testing.T) {
	path := writeFile(t, file)
	for _, body := range []string{"## Slope\n\nnew figures\n", "## Slope\n\nnewer figures"} {
		if err := Rewrite(path, "slope", body); err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		want := strings.Replace(file, "## Slope\n\nold figures\n", strings.TrimRight(body, "\n")+"\n", 1)
		if string(got) != want {
			t.Fatalf("after Rewrite:\n%s\nwant:\n%s", got, want)
		}
		parts, err := Parse(string(got))
		if err != nil || len(parts) != 2 || parts[0].After != "## Generated" || parts[0].Title() != "Slope" {
			t.Fatalf("Parse after Rewrite = %+v, %v", parts, err)
		}
	}
}

// A missing or doubled part, and a body that holds a marker, are errors
// that name them, and the file is left as it was.
func TestRewriteRefusesWhatItCannotPlace(t *testing.T) {
	for _, tt := range []struct {
		name, md, part, body, wantErr string
	}{
		{"missing", file, "absent", "x", `has no kept part "absent": add the lines <!-- kept: absent --> and <!-- /kept -->`},
		{"doubled", file + "\n<!-- kept: slope -->\n<!-- /kept -->\n", "slope", "x", `has 2 kept parts named "slope"`},
		{"close in body", file, "slope", "x\n<!-- /kept -->\ny", `holds the marker line "<!-- /kept -->"`},
		{"open in body", file, "slope", "<!-- kept: z -->", `holds the marker line "<!-- kept: z -->"`},
		{"unpaired file", "<!-- kept: a -->\n", "a", "x", `kept part "a" is never closed`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			path := writeFile(t, tt.md)
			err := Rewrite(path, tt.part, tt.body)
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("Rewrite = %v, want an error containing %q", err, tt.wantErr)
			}
			if got, _ := os.ReadFile(path); string(got) != tt.md {
				t.Fatalf("Rewrite changed the file:\n%s", got)
			}
		})
	}
}
