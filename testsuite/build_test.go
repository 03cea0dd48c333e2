//go:build clibuild

// This test builds the Temporal CLI from the Go module proxy, which takes
// minutes, so it is built only with the clibuild tag; .ci/run runs it:
//
//	go test -tags clibuild -run TestBuildsCLIInCleanGOBIN ./testsuite

package testsuite_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/temporaladk/adk-go/internal/devserver"
)

// buildEnv chooses the build cache of TestBuildsCLIInCleanGOBIN: unset (or
// "1"), the machine's Go build cache; "cold", an empty one, as on a new
// machine (several minutes more).
const buildEnv = "TEMPORALADK_TEST_BUILD_CLI"

// TestBuildsCLIInCleanGOBIN runs this package's server tests as two parallel
// child processes on a machine without the CLI: TEMPORAL_CLI unset, PATH
// without it, an empty GOBIN and GOPATH. The helper must build it once into
// GOBIN, print the progress line, and the tests must pass.
func TestBuildsCLIInCleanGOBIN(t *testing.T) {
	mode := os.Getenv(buildEnv)
	out, err := exec.Command("go", "env", "GOMODCACHE", "GOCACHE").Output()
	require.NoError(t, err)
	goenv := strings.Fields(string(out))
	require.Len(t, goenv, 2)
	modCache, buildCache := goenv[0], goenv[1]

	tmp := t.TempDir()
	gobin := filepath.Join(tmp, "bin")
	if mode == "cold" {
		buildCache = filepath.Join(tmp, "gocache")
	}
	var path []string
	for _, dir := range filepath.SplitList(os.Getenv("PATH")) {
		if devserver.IsExecutable(filepath.Join(dir, "temporal")) != nil {
			path = append(path, dir)
		}
	}
	env := []string{
		"PATH=" + strings.Join(path, string(os.PathListSeparator)),
		"GOBIN=" + gobin,
		"GOPATH=" + filepath.Join(tmp, "gopath"), // searched, empty
		"GOMODCACHE=" + modCache,                 // modules come from the proxy through the usual cache
		"GOCACHE=" + buildCache,
	}
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		switch name {
		case "PATH", "GOBIN", "GOPATH", "GOMODCACHE", "GOCACHE", devserver.EnvCLIPath, buildEnv:
		default:
			env = append(env, kv)
		}
	}

	start := time.Now()
	var wg sync.WaitGroup
	outputs := make([]string, 2)
	errs := make([]error, 2)
	for i := range outputs {
		wg.Go(func() {
			cmd := exec.Command(os.Args[0], "-test.run=^(TestTwoDevServersInParallel|TestRecordAndReplayOnDevServer)$", "-test.v")
			cmd.Env = env
			var stderr strings.Builder
			cmd.Stderr = &stderr
			stdout, err := cmd.Output()
			outputs[i], errs[i] = string(stdout)+"\nstderr:\n"+stderr.String(), err
		})
	}
	wg.Wait()
	t.Logf("two test binaries with a CLI build took %v", time.Since(start))
	for i := range outputs {
		require.NoError(t, errs[i], "child %d:\n%s", i, outputs[i])
		require.Equal(t, 1, strings.Count(outputs[i], devserver.ProgressLine), "child %d must print the progress line once:\n%s", i, outputs[i])
		require.Contains(t, outputs[i], "--- PASS: TestRecordAndReplayOnDevServer")
	}
	require.NoError(t, devserver.IsExecutable(filepath.Join(gobin, "temporal")))
	leftovers, _ := filepath.Glob(filepath.Join(gobin, ".temporal-cli-build-*"))
	require.Empty(t, leftovers)
}
