package blob_test

import (
	"os"
	"testing"

	"github.com/temporaladk/adk-go/testsuite"
)

// TestMain shares one dev server among this package's tests; run as a
// fleet's worker process (fleet_test.go), it is that worker instead.
func TestMain(m *testing.M) {
	if os.Getenv(workerEnv) != "" {
		os.Exit(workerProcess())
	}
	os.Exit(testsuite.RunWithDevServer(m, testsuite.DevServerOptions{}))
}
