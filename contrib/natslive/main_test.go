package natslive_test

import (
	"os"
	"testing"

	"github.com/temporaladk/adk-go/testsuite"
)

// TestMain shares one dev server among the package's server tests; -short
// starts none. Run as a fleet's worker process (integration_test.go), it is
// that worker instead.
func TestMain(m *testing.M) {
	if os.Getenv(workerEnv) != "" {
		os.Exit(workerProcess())
	}
	os.Exit(testsuite.RunWithDevServer(m, testsuite.DevServerOptions{}))
}
