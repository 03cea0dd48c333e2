package natslive_test

import (
	"os"
	"testing"

	"github.com/temporaladk/adk-go/testsuite"
)

// TestMain shares one dev server among the package's server tests; -short
// starts none.
func TestMain(m *testing.M) {
	os.Exit(testsuite.RunWithDevServer(m, testsuite.DevServerOptions{}))
}
