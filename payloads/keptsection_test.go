package payloads_test

import (
	"fmt"
	"os"
	"strings"
)

// writeKeptSection writes body into the markdown file at path as its kept
// part name (between "<!-- kept: name -->" and "<!-- /kept -->", the
// markers `go run ./bench` keeps as they are, bench/kept.go): in place of
// the part if the file has it, else after the "payloads" part, else at the
// end. A part opened and never closed is an error, and the file is left as
// it is.
func writeKeptSection(path, name, body string) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	md := string(data)
	part := "<!-- kept: " + name + " -->\n" + strings.TrimRight(body, "\n") + "\n\n<!-- /kept -->"
	if start, end, ok, err := keptBounds(md, name); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	} else if ok {
		md = md[:start] + part + md[end:]
	} else if _, end, ok, err := keptBounds(md, "payloads"); err == nil && ok {
		md = md[:end] + "\n\n" + part + md[end:]
	} else {
		md = strings.TrimRight(md, "\n") + "\n\n" + part + "\n"
	}
	return os.WriteFile(path, []byte(md), 0o644)
}

// keptBounds is where the kept part name begins and ends in md (its
// markers included), and false if md has none.
func keptBounds(md, name string) (start, end int, ok bool, err error) {
	open := "<!-- kept: " + name + " -->"
	start = strings.Index(md, open)
	if start < 0 {
		return 0, 0, false, nil
	}
	const closing = "<!-- /kept -->"
	n := strings.Index(md[start:], closing)
	if n < 0 {
		return 0, 0, false, fmt.Errorf("kept part %q is never closed with %s", name, closing)
	}
	return start, start + n + len(closing), true, nil
}
