package testsuite_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/temporaladk/adk-go/testsuite"
)

// FuzzHistoryFile feeds any bytes, as a history file, to the public helpers
// that load one: HistoryCommands and ReplayFile must return an error for a
// malformed file, never panic.
func FuzzHistoryFile(f *testing.F) {
	good, err := os.ReadFile(filepath.Join("testdata", "histories", "order_workflow.json"))
	if err != nil {
		f.Fatal(err)
	}
	for _, seed := range [][]byte{good, good[:len(good)/3], nil, []byte("{}"), []byte(`{"events":[]}`), []byte("not json")} {
		f.Add(seed)
	}
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte) {
		path := filepath.Join(dir, "history.json")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := testsuite.HistoryCommands(path); err != nil {
			return
		}
		// No workflow is registered: a history that loads cannot replay, and
		// must say so.
		if err := testsuite.ReplayFile(path, testsuite.ReplayOptions{}); err == nil {
			t.Fatal("a history replayed with no workflow registered")
		}
	})
}
