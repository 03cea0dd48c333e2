package testsuite_test

import (
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/temporaladk/adk-go/testsuite"
)

// shortChildEnv marks the copy of this test binary that
// TestShortSkipsEveryTestThatNeedsADevServer runs with -test.short.
const shortChildEnv = "TEMPORALADK_TESTSUITE_SHORT_CHILD"

// TestShortSkipsEveryTestThatNeedsADevServer runs this package's own binary
// again with -test.short on TestShortChild, whose subtests ask DevServerFor
// for a server of their own and for the shared one. Each must be skipped with ShortSkipMessage before any server starts:
// a subtest fails if DevServerFor returns at all.
func TestShortSkipsEveryTestThatNeedsADevServer(t *testing.T) {
	cmd := exec.CommandContext(testsuite.Context(t), os.Args[0],
		"-test.short", "-test.v", "-test.count=1", "-test.run", "^TestShortChild$")
	cmd.Env = append(os.Environ(), shortChildEnv+"=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("the -short child failed: %v\n%s", err, out)
	}
	for _, helper := range []string{"Own", "Shared"} {
		if !strings.Contains(string(out), "--- SKIP: TestShortChild/"+helper+" ") {
			t.Errorf("%s did not skip its test under -short:\n%s", helper, out)
		}
	}
	if got := strings.Count(string(out), testsuite.ShortSkipMessage); got != 2 {
		t.Errorf("the skip message %q appears %d times, want 2:\n%s", testsuite.ShortSkipMessage, got, out)
	}
}

// TestShortChild is run by TestShortSkipsEveryTestThatNeedsADevServer; in
// the package's own run it returns at once, as TestChildStartsServerThenDies
// does.
func TestShortChild(t *testing.T) {
	if os.Getenv(shortChildEnv) == "" {
		return
	}
	t.Run("Own", func(t *testing.T) {
		s := testsuite.DevServerFor(t, testsuite.DevServerOptions{})
		t.Fatalf("DevServerFor(t, opts) returned a server at %s under -short", s.Address())
	})
	t.Run("Shared", func(t *testing.T) {
		s := testsuite.DevServerFor(t)
		t.Fatalf("DevServerFor(t) returned a server at %s under -short", s.Address())
	})
}
