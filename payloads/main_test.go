package payloads_test

import (
	"os"
	"testing"

	"github.com/temporaladk/adk-go/testsuite"
)

// TestMain shares one dev server among this package's tests, or runs
// the worker process BenchmarkTakeover starts.
func TestMain(m *testing.M) {
	if os.Getenv(takeoverQueueEnv) != "" {
		os.Exit(takeoverWorker()) // BenchmarkTakeover's worker process
	}
	var opts testsuite.DevServerOptions
	if os.Getenv(testsuite.TestServerEnv) == "" {
		opts.ExtraArgs = checkpointArgs
	}
	os.Exit(testsuite.RunWithDevServer(m, opts))
}

// checkpointArgs have the dev server record its transfer and visibility
// queues' progress every second instead of every 30 s. The server deletes a
// closed run (DeleteWorkflowExecution, as retention does) only once that
// record shows the run's close was processed, and retries the deletion 3 s,
// 7.5 s, 14 s… later: with the default, TestCollectAfterRetention… waited
// about 30 s for it. They change when the server writes its progress, not
// what it does. A server at testsuite.TestServerEnv keeps its own config.
var checkpointArgs = []string{
	"--dynamic-config-value", `history.transferProcessorUpdateAckInterval="1s"`,
	"--dynamic-config-value", `history.visibilityProcessorUpdateAckInterval="1s"`,
}
