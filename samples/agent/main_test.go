package main

import (
	"bufio"
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/temporaladk/adk-go/samples/agent/agent"
	"github.com/temporaladk/adk-go/spend"
	"github.com/temporaladk/adk-go/testsuite"
)

func noEnv(string) string { return "" }

func TestUnitBadFlagsAreClearErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"unknown flag", []string{"-adress", "x:1"}, "flag provided but not defined: -adress"},
		{"no port", []string{"-address", "localhost"}, `-address "localhost" is not host:port`},
		{"bad port", []string{"-address", "localhost:http"}, `port "http" is not a number`},
		{"port out of range", []string{"-address", "localhost:70000"}, "from 1 to 65535"},
		{"ui with address", []string{"-address", "localhost:7233", "-ui"}, "-ui starts the dev server's Web UI"},
		{"bad model url", []string{"-model-url", "api.openai.com"}, "is not an http(s) URL"},
		{"model without url", []string{"-model", "gpt"}, "-model names the model of -model-url"},
		{"empty namespace", []string{"-namespace", ""}, "-namespace is empty"},
		{"argument", []string{"now"}, `unexpected argument "now"`},
		{"bad bool", []string{"-ui=maybe"}, "invalid boolean value"},
		{"price of two", []string{"-price", "1,2"}, `-price "1,2" is not input,cached,output`},
		{"price not a number", []string{"-price", "1,x,3"}, `the cached price "x" is not a whole number`},
		{"negative price", []string{"-price", "1,2,-3"}, `the output price "-3" is not a whole number of micro-dollars of at least 0`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var stdout, stderr bytes.Buffer
			code := run(tt.args, &stdout, &stderr, noEnv)
			assert.Equal(t, 2, code)
			assert.Contains(t, stderr.String(), tt.want)
			assert.Empty(t, stdout.String())
		})
	}
}

// TestUnitModelWithoutAPriceIsAnError runs the sample with a model the
// price table has no entry for: a clear error naming it and -price, before
// any server is started or dialled.
func TestUnitModelWithoutAPriceIsAnError(t *testing.T) {
	t.Parallel()
	var stdout, stderr bytes.Buffer
	code := run([]string{"-address", "127.0.0.1:1", "-model-url", "http://127.0.0.1:1", "-model", "gpt-x", "-data", t.TempDir()}, &stdout, &stderr, noEnv)
	assert.Equal(t, 1, code)
	assert.Contains(t, stderr.String(), `model "gpt-x" has no price in the sample's price table`)
	assert.Contains(t, stderr.String(), "-price")
	assert.NotContains(t, stderr.String(), "connecting to")
}

func TestUnitFlagsParse(t *testing.T) {
	t.Parallel()
	cfg, err := parseFlags([]string{"-address", "localhost:7233", "-namespace", "agents", "-model-url", "https://api.example.com", "-model", "m", "-data", "d"},
		&bytes.Buffer{}, func(k string) string { return map[string]string{"MODEL_API_KEY": "secret"}[k] })
	require.NoError(t, err)
	assert.Equal(t, agent.Config{Address: "localhost:7233", Namespace: "agents", ModelURL: "https://api.example.com", Model: "m", APIKey: "secret", DataDir: "d"}, cfg)

	cfg, err = parseFlags([]string{"-model-url", "https://api.example.com", "-model", "m", "-price", "150000, 75000,600000"}, &bytes.Buffer{}, noEnv)
	require.NoError(t, err)
	assert.Equal(t, map[string]spend.Price{"m": {Input: 150_000, CachedInput: 75_000, Output: 600_000}}, cfg.Prices, "-price prices -model")
	cfg, err = parseFlags([]string{"-price", "1,0,2"}, &bytes.Buffer{}, noEnv)
	require.NoError(t, err)
	assert.Equal(t, map[string]spend.Price{agent.StandInModel: {Input: 1, Output: 2}}, cfg.Prices, "without -model, -price prices the stand-in")

	var stderr bytes.Buffer
	assert.Equal(t, 0, run([]string{"-h"}, &bytes.Buffer{}, &stderr, noEnv), "-h is not an error")
	assert.Contains(t, stderr.String(), "-model-url")
}

// TestReplayRecordedHistories replays the histories committed under
// testdata/histories with the current workflow code and the kit's plugin:
// a change that would break a running agent fails here.
func TestReplayRecordedHistories(t *testing.T) {
	t.Parallel()
	require.NoError(t, agent.ReplayDir(filepath.Join("testdata", "histories")))
}

// TestPreReleaseBudgetHistoryFailsClearly replays a history recorded by the
// pre-release budget path (each attempt re-scheduled, a workflow timer
// between attempts): it does not replay with this version, and the failure
// names the version change, as UPGRADING.md says.
func TestPreReleaseBudgetHistoryFailsClearly(t *testing.T) {
	t.Parallel()
	err := agent.Replay(filepath.Join("testdata", "prerelease", "agent-budget-timers.json"))
	require.Error(t, err)
	assert.ErrorContains(t, err, "TMPRL1100")
	assert.ErrorContains(t, err, `"temporaladk/budget"`)
}

// readmeCommand is a command of a sample README, run as written.
type readmeCommand struct {
	file, line string
	exit       int
}

// commandsIn returns the `go run` lines of the ```sh blocks of a README.
// A trailing "# exits N" comment gives the expected status; a line marked
// "# needs" (a server of your own, Ctrl-C) is not run.
func commandsIn(t *testing.T, path string) []readmeCommand {
	t.Helper()
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	var out []readmeCommand
	exitRE := regexp.MustCompile(`#\s*exits (\d+)`)
	inSh := false
	s := bufio.NewScanner(f)
	for s.Scan() {
		line := strings.TrimSpace(s.Text())
		switch {
		case strings.HasPrefix(line, "```sh"):
			inSh = true
		case strings.HasPrefix(line, "```"):
			inSh = false
		case inSh && strings.HasPrefix(line, "go run ") && !strings.Contains(line, "# needs"):
			c := readmeCommand{file: path, line: line}
			if m := exitRE.FindStringSubmatch(line); m != nil {
				c.exit, _ = strconv.Atoi(m[1])
			}
			out = append(out, c)
		}
	}
	require.NoError(t, s.Err())
	return out
}

// TestREADMECommands runs the `go run` commands of the root README and the
// samples' READMEs exactly as written, from the repository root, as a user
// copying them would, one after another (several samples at once, each
// with a dev server of its own, load a 2-core machine past what a user's
// one command meets), and checks their exit status and the agent's report.
func TestREADMECommands(t *testing.T) {
	testsuite.SkipShort(t) // each command starts a dev server of its own
	root, err := filepath.Abs(filepath.Join("..", ".."))
	require.NoError(t, err)
	var cmds []readmeCommand
	for _, readme := range []string{"README.md", "samples/README.md", "samples/agent/README.md", "samples/fanout/README.md", "samples/guard/README.md"} {
		cmds = append(cmds, commandsIn(t, filepath.Join(root, readme))...)
	}
	require.NotEmpty(t, cmds)
	// The shell runs a line without its comment: lines that differ only
	// there (the guard's "# exits 1" is in three READMEs, with two comments)
	// are one command, run once.
	comment := regexp.MustCompile(`\s#.*$`)
	seen := map[string]bool{}
	for _, c := range cmds {
		key := strings.TrimSpace(comment.ReplaceAllString(c.line, "")) + " exits " + strconv.Itoa(c.exit)
		if seen[key] {
			continue
		}
		seen[key] = true
		t.Run(strings.TrimPrefix(c.line, "go run ./"), func(t *testing.T) {
			// Bounded by the test binary's -timeout, not a fixed figure: a
			// sample of 300 turns took over 2 minutes on a loaded CI machine.
			ctx := testsuite.Context(t)
			cmd := exec.CommandContext(ctx, "sh", "-c", c.line)
			cmd.Dir = root
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			err := cmd.Run()
			require.NoError(t, ctx.Err(), "%s (%s) was still running at the test's deadline\nstdout:\n%s\nstderr:\n%s", c.line, c.file, stdout.String(), stderr.String())
			code := 0
			if ee, ok := err.(*exec.ExitError); ok {
				code = ee.ExitCode()
			} else {
				require.NoError(t, err)
			}
			require.Equal(t, c.exit, code, "%s (%s)\nstdout:\n%s\nstderr:\n%s", c.line, c.file, stdout.String(), stderr.String())
			if strings.HasPrefix(c.line, "go run ./samples/agent") {
				for _, fact := range []string{
					"[ok  ] MODEL retried after an injected 503 with a drawn wait",
					"[ok  ] 429 Retry-After honoured",
					"[ok  ] stall before the first token survived by heartbeats",
					"[ok  ] exactly one ledger effect per booking",
					"[ok  ] read-only tool calls retried",
					"[ok  ] fan-out calls capped by the pool",
					"[ok  ] replay of the recorded history clean",
					"[ok  ] every MODEL attempt reserved before it ran and settled after",
					"[ok  ] tokens settled within the TokenBudget, history, workflow and Query agreeing",
					"[ok  ] cost settled within the CostBudget, history, workflow and Query agreeing",
				} {
					assert.Contains(t, stdout.String(), fact)
				}
			}
		})
	}
}
