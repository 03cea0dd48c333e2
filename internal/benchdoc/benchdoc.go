// Package benchdoc reads and rewrites the kept parts of BENCHMARKS.md: the
// parts that `go run ./bench` does not measure and keeps as they are when it
// regenerates the file. A part sits between a pair of HTML comments, which
// Markdown does not show:
//
//	<!-- kept: payloads -->
//	## Payloads of long conversations
//	...
//	<!-- /kept -->
//
// A part is written by hand, by a script (scripts/prodstack) or by the
// benchmark that measures it (Rewrite), and only there: one reading of the
// markers serves the command and the benchmarks.
package benchdoc

import (
	"errors"
	"fmt"
	"os"
	"strings"
)

// The markers of a kept part: OpenPrefix NAME OpenSuffix on the line that
// opens it, Close on the line that closes it.
const (
	OpenPrefix = "<!-- kept:"
	OpenSuffix = "-->"
	Close      = "<!-- /kept -->"
)

// Part is one kept part of a file.
type Part struct {
	// Name is the name in the opening marker.
	Name string
	// After is the line of the "## " heading outside any part that the
	// part followed, or "" if it came before the first one.
	After string
	// Text is the part, both markers included, without a final newline.
	Text string
}

// Title is the text of the part's first heading, or its name if it has
// none.
func (p Part) Title() string {
	for _, line := range strings.Split(p.Text, "\n") {
		if strings.HasPrefix(line, "#") {
			return strings.TrimSpace(strings.TrimLeft(line, "#"))
		}
	}
	return p.Name
}

// Parse returns the kept parts of a markdown file, in the order they
// appear. Markers that do not pair up are an error naming the line, so that
// no one writes over a part that could not be delimited.
func Parse(md string) ([]Part, error) {
	var (
		parts   []Part
		after   string
		open    *Part
		body    []string
		openRow int
	)
	for i, line := range strings.Split(md, "\n") {
		trimmed := strings.TrimSpace(line)
		name, isOpen := strings.CutPrefix(trimmed, OpenPrefix)
		isOpen = isOpen && strings.HasSuffix(name, OpenSuffix)
		switch {
		case open == nil && isOpen:
			name = strings.TrimSpace(strings.TrimSuffix(name, OpenSuffix))
			if name == "" {
				return nil, fmt.Errorf("line %d: %q names no part (write %sNAME %s)", i+1, trimmed, OpenPrefix+" ", OpenSuffix)
			}
			open, openRow, body = &Part{Name: name, After: after}, i+1, []string{line}
		case open == nil && trimmed == Close:
			return nil, fmt.Errorf("line %d: %s without an opening %s NAME %s before it", i+1, Close, OpenPrefix, OpenSuffix)
		case open == nil:
			if strings.HasPrefix(line, "## ") {
				after = line
			}
		case isOpen:
			return nil, fmt.Errorf("line %d: %q opens a kept part inside %q, opened on line %d", i+1, trimmed, open.Name, openRow)
		case trimmed == Close:
			open.Text = strings.Join(append(body, line), "\n")
			parts = append(parts, *open)
			open = nil
		default:
			body = append(body, line)
		}
	}
	if open != nil {
		return nil, fmt.Errorf("line %d: kept part %q is never closed with %s", openRow, open.Name, Close)
	}
	return parts, nil
}

// Rewrite replaces the body of the kept part name in the file at path with
// body, the markers kept, and leaves the rest of the file as it was. A file
// without that part, or with two of that name, is an error: the part's place
// in the file is chosen by whoever adds its markers, once. So is a body that
// holds a marker, which would end the part early or open another.
func Rewrite(path, name, body string) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("benchdoc: %w", err)
	}
	md := string(b)
	parts, err := Parse(md)
	if err != nil {
		return fmt.Errorf("benchdoc: %s: %w", path, err)
	}
	var found []Part
	for _, p := range parts {
		if p.Name == name {
			found = append(found, p)
		}
	}
	switch len(found) {
	case 0:
		return fmt.Errorf("benchdoc: %s has no kept part %q: add the lines %s %s %s and %s where it belongs", path, name, OpenPrefix, name, OpenSuffix, Close)
	case 1:
	default:
		return fmt.Errorf("benchdoc: %s has %d kept parts named %q", path, len(found), name)
	}
	for _, line := range strings.Split(body, "\n") {
		if t := strings.TrimSpace(line); t == Close || strings.HasPrefix(t, OpenPrefix) {
			return fmt.Errorf("benchdoc: the new body of kept part %q holds the marker line %q", name, t)
		}
	}
	old := found[0].Text
	openLine, _, _ := strings.Cut(old, "\n")
	text := openLine + "\n" + strings.Trim(body, "\n") + "\n" + Close
	i := strings.Index(md, old)
	if i < 0 || strings.Contains(md[i+len(old):], old) {
		return errors.New("benchdoc: internal error: a parsed part is not found once in its file")
	}
	info, err := os.Stat(path)
	if err != nil {
		return fmt.Errorf("benchdoc: %w", err)
	}
	if err := os.WriteFile(path, []byte(md[:i]+text+md[i+len(old):]), info.Mode().Perm()); err != nil {
		return fmt.Errorf("benchdoc: %w", err)
	}
	return nil
}
