package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"

	"github.com/temporaladk/adk-go/internal/benchdoc"
)

// A part of BENCHMARKS.md that the command does not measure, such as
// figures written by hand, by scripts/prodstack or by a benchmark, sits
// between the markers internal/benchdoc reads. Regenerating the file keeps
// each such part as it is, markers included, after the same generated
// section it followed before.

// keptPart is one part of the file that regenerating it keeps.
type keptPart = benchdoc.Part

// readKeptFile returns the kept parts of the file at name, none if there is
// no such file. A file whose markers do not pair up is an error, so that
// the run stops before it measures rather than write over a part it could
// not delimit.
func readKeptFile(name string) ([]keptPart, error) {
	b, err := os.ReadFile(name)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	kept, err := parseKept(string(b))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return kept, nil
}

// parseKept returns the kept parts of a markdown file, in the order they
// appear.
func parseKept(md string) ([]keptPart, error) { return benchdoc.Parse(md) }

// withKept returns the generated markdown with the kept parts put back:
// each at the end of the section whose "## " heading it followed, in the
// order they came, with a blank line on either side. A part whose heading
// the report no longer writes goes at the end, so that no part is lost.
func withKept(generated string, kept []keptPart) string {
	if len(kept) == 0 {
		return generated
	}
	// sections[0] is what precedes the first "## " heading; the rest each
	// begin with one.
	var sections []string
	start := 0
	lines := strings.SplitAfter(generated, "\n")
	offset := 0
	for _, line := range lines {
		if strings.HasPrefix(line, "## ") {
			sections = append(sections, generated[start:offset])
			start = offset
		}
		offset += len(line)
	}
	sections = append(sections, generated[start:])
	heading := func(section string) string {
		line, _, _ := strings.Cut(section, "\n")
		return line
	}
	placed := make([]bool, len(kept))
	var out []string
	for i, section := range sections {
		parts := []string{strings.TrimRight(section, "\n")}
		for j, k := range kept {
			if placed[j] {
				continue
			}
			if (i == 0 && k.After == "") || (i > 0 && k.After == heading(section)) {
				parts = append(parts, k.Text)
				placed[j] = true
			}
		}
		out = append(out, strings.Join(parts, "\n\n"))
	}
	for j, k := range kept {
		if !placed[j] {
			out = append(out, k.Text)
		}
	}
	var nonEmpty []string
	for _, s := range out {
		if s != "" {
			nonEmpty = append(nonEmpty, s)
		}
	}
	return strings.Join(nonEmpty, "\n\n") + "\n"
}

// keptTitles returns the quoted titles of the kept parts, joined for a
// sentence: "A", "A" and "B", "A", "B" and "C".
func keptTitles(kept []keptPart) string {
	var titles []string
	for _, k := range kept {
		titles = append(titles, `"`+k.Title()+`"`)
	}
	if len(titles) <= 1 {
		return strings.Join(titles, "")
	}
	return strings.Join(titles[:len(titles)-1], ", ") + " and " + titles[len(titles)-1]
}
