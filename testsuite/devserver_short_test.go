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
// again with -test.short on TestShortChild, whose subtests call one helper
// each. Each must be skipped with ShortSkipMessage before any server starts:
// a subtest fails if its helper returns at all.
func TestShortSkipsEveryTestThatNeedsADevServer(t *testing.T) {
	cmd := exec.CommandContext(testsuite.Context(t), os.Args[0],
		"-test.short", "-test.v", "-test.count=1", "-test.run", "^TestShortChild$")
	cmd.Env = append(os.Environ(), shortChildEnv+"=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("the -short child failed: %v\n%s", err, out)
	}
	for _, helper := range []string{"StartTestDevServer", "SharedDevServer"} {
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
	t.Run("StartTestDevServer", func(t *testing.T) {
		s := testsuite.StartTestDevServer(t, testsuite.DevServerOptions{})
		t.Fatalf("StartTestDevServer returned a server at %s under -short", s.Address())
	})
	t.Run("SharedDevServer", func(t *testing.T) {
		s := testsuite.SharedDevServer(t)
		t.Fatalf("SharedDevServer returned a server at %s under -short", s.Address())
	})
}
