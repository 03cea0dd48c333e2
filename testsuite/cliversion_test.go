package testsuite_test

import (
	"testing"

	"github.com/temporaladk/adk-go/internal/devserver"
	"github.com/temporaladk/adk-go/testsuite"
)

// TestTemporalCLIVersionIsTheOneBuilt holds the documented version to the
// one the dev server helper builds: testsuite states it as a literal, so
// that go doc shows the version rather than the name of an internal
// constant.
func TestTemporalCLIVersionIsTheOneBuilt(t *testing.T) {
	t.Parallel()
	if testsuite.TemporalCLIVersion != devserver.CLIVersion {
		t.Errorf("testsuite.TemporalCLIVersion is %q, the helper builds %q", testsuite.TemporalCLIVersion, devserver.CLIVersion)
	}
}
