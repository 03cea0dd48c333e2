package payloads_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
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

// writeKeptSection puts a new part after the "payloads" part, replaces it
// in place on the next write, keeps everything else byte for byte, and
// refuses a file whose part is never closed.
func TestWriteKeptSection(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "BENCHMARKS.md")
	before := "# Benchmarks\n\n<!-- kept: payloads -->\n## Payloads\n\n<!-- /kept -->\n\n<!-- kept: live -->\n## Live\n\n<!-- /kept -->\n"
	require.NoError(t, os.WriteFile(path, []byte(before), 0o644))
	require.NoError(t, writeKeptSection(path, "takeover", "## Takeover\n\nfirst\n"))
	require.NoError(t, writeKeptSection(path, "takeover", "## Takeover\n\nsecond\n"))
	got, err := os.ReadFile(path)
	require.NoError(t, err)
	require.Equal(t, "# Benchmarks\n\n<!-- kept: payloads -->\n## Payloads\n\n<!-- /kept -->\n\n"+
		"<!-- kept: takeover -->\n## Takeover\n\nsecond\n\n<!-- /kept -->\n\n"+
		"<!-- kept: live -->\n## Live\n\n<!-- /kept -->\n", string(got))

	require.NoError(t, os.WriteFile(path, []byte("<!-- kept: takeover -->\n## Takeover\n"), 0o644))
	require.ErrorContains(t, writeKeptSection(path, "takeover", "x"), `kept part "takeover" is never closed`)
	got, err = os.ReadFile(path)
	require.NoError(t, err)
	require.Equal(t, "<!-- kept: takeover -->\n## Takeover\n", string(got))
}
