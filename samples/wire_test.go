package samples_test

import (
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// wirePackage is the kit's wire format, which the samples must not read:
// they read what the kit decided through its observer (package observe)
// and recorded histories through observe/recorded.
const wirePackage = "github.com/temporaladk/adk-go/internal/wire"

// TestSamplesReadNoWireType parses every Go file under samples/, tests
// included, and fails on any that imports the kit's wire format.
func TestSamplesReadNoWireType(t *testing.T) {
	t.Parallel()
	read := map[string]bool{}
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && d.Name() == "testdata" {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		read[filepath.ToSlash(path)] = true
		for _, spec := range f.Imports {
			if p, _ := strconv.Unquote(spec.Path.Value); p == wirePackage || strings.HasPrefix(p, wirePackage+"/") {
				t.Errorf("%s imports %s: read a recorded history with observe/recorded, and live decisions with an observe.Observer", path, p)
			}
		}
		return nil
	})
	require.NoError(t, err)
	// The history reports are among the files read, or the walk read
	// nothing that matters.
	for _, report := range []string{"agent/agent/history.go", "conversation/chain.go"} {
		assert.True(t, read[report], "%s was not read", report)
	}
}
