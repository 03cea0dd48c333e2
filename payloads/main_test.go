package payloads_test

import (
	"os"
	"testing"

	"github.com/temporaladk/adk-go/testsuite"
)

// TestMain shares one dev server among this package's tests.
func TestMain(m *testing.M) {
	os.Exit(testsuite.RunWithDevServer(m, testsuite.DevServerOptions{}))
}
