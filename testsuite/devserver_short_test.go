package testsuite_test

import (
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"

	"github.com/temporaladk/adk-go/testsuite"
)

// shortChildEnv marks the copy of this test binary that
// TestShortSkipsEveryTestThatNeedsADevServer runs with -test.short.
const shortChildEnv = "TEMPORALADK_TESTSUITE_SHORT_CHILD"

// TestShortSkipsEveryTestThatNeedsADevServer runs this package's own binary
// again with -test.short on two tests, one per helper. Each must be skipped
// with ShortSkipMessage before any server starts: the child's tests fail if
// the helper returns at all.
func TestShortSkipsEveryTestThatNeedsADevServer(t *testing.T) {
	if os.Getenv(shortChildEnv) != "" {
		t.Skip("the parent runs this test; the child runs the two below")
	}
	cmd := exec.CommandContext(testsuite.Context(t), os.Args[0],
		"-test.short", "-test.v", "-test.count=1",
		"-test.run", "^(TestShortChildStartTestDevServer|TestShortChildSharedDevServer)$")
	cmd.Env = append(os.Environ(), shortChildEnv+"=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("the -short child failed: %v\n%s", err, out)
	}
	for _, name := range []string{"TestShortChildStartTestDevServer", "TestShortChildSharedDevServer"} {
		if !regexp.MustCompile(`--- SKIP: ` + name + ` `).Match(out) {
			t.Errorf("%s was not skipped under -short:\n%s", name, out)
		}
	}
	if got := strings.Count(string(out), testsuite.ShortSkipMessage); got != 2 {
		t.Errorf("the skip message %q appears %d times, want 2:\n%s", testsuite.ShortSkipMessage, got, out)
	}
}

func TestShortChildStartTestDevServer(t *testing.T) {
	if os.Getenv(shortChildEnv) == "" {
		t.Skip("run by TestShortSkipsEveryTestThatNeedsADevServer with -test.short")
	}
	s := testsuite.StartTestDevServer(t, testsuite.DevServerOptions{})
	t.Fatalf("StartTestDevServer returned a server at %s under -short", s.Address())
}

func TestShortChildSharedDevServer(t *testing.T) {
	if os.Getenv(shortChildEnv) == "" {
		t.Skip("run by TestShortSkipsEveryTestThatNeedsADevServer with -test.short")
	}
	s := testsuite.SharedDevServer(t)
	t.Fatalf("SharedDevServer returned a server at %s under -short", s.Address())
}
