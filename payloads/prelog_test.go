package payloads_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/worker"

	"github.com/temporaladk/adk-go/interceptors"
	"github.com/temporaladk/adk-go/testsuite"
)

// TestHistoriesRecordedBeforeLogsReplay replays the two runs of a chain
// that Agent (its conversation a slice, on the store, continuing as new by
// history bytes) recorded on a dev server with the build before
// conversation.Log (testdata/prelog: the histories and the bucket they
// reference). This build's store DataConverter, which looks for Logs in
// everything it encodes and decodes, and its ShouldContinueAsNew, which also
// counts what Logs appended, replay them as they ran.
func TestHistoriesRecordedBeforeLogsReplay(t *testing.T) {
	// A copy of the bucket: a replay may mark what it reads, never the
	// repository's files.
	bucket := t.TempDir()
	require.NoError(t, os.CopyFS(bucket, os.DirFS(filepath.Join("testdata", "prelog", "bucket"))))
	store, _ := newDirStore(t, bucket, 0)
	kit, err := interceptors.NewPlugin(interceptors.Options{})
	require.NoError(t, err)
	opts := testsuite.ReplayOptions{Workflows: []testsuite.ReplayWorkflow{{Func: Agent}}, Plugins: []worker.Plugin{kit}}
	opts.ExternalStorage, opts.DataConverter, err = store.Configure(opts.ExternalStorage, opts.DataConverter)
	require.NoError(t, err)
	for _, run := range []string{"run0.json", "run1.json"} {
		require.NoError(t, testsuite.ReplayFile(filepath.Join("testdata", "prelog", run), opts), run)
	}
	require.Positive(t, store.Stats().BytesDecoded, "the replays decoded stored payloads")
}
