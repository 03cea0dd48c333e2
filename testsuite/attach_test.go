package testsuite_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/client"

	"github.com/temporaladk/adk-go/testsuite"
)

// restartMarker is a restart command that appends a line to a file, and the
// file: what Restart ran can be read back.
func restartMarker(t *testing.T) (command, file string) {
	file = filepath.Join(t.TempDir(), "restarts")
	return fmt.Sprintf("echo restarted >> '%s'", file), file
}

func TestStartDevServerAtAddressUsesTheRunningServer(t *testing.T) {
	t.Parallel()
	running := testsuite.DevServerFor(t)
	command, marker := restartMarker(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()

	s, err := testsuite.StartDevServer(ctx, testsuite.DevServerOptions{Address: running.Address(), RestartCommand: command, DBFile: filepath.Join(t.TempDir(), "unused.db")})
	require.NoError(t, err)
	assert.Equal(t, running.Address(), s.Address())
	assert.Equal(t, "default", s.Namespace())
	assert.Zero(t, s.PID(), "an attached server runs no process of this one")
	assert.Empty(t, s.UIAddress())
	_, err = s.Client().CheckHealth(ctx, &client.CheckHealthRequest{})
	require.NoError(t, err)

	require.NoError(t, s.Restart(ctx))
	require.NoError(t, s.Restart(ctx))
	b, err := os.ReadFile(marker)
	require.NoError(t, err, "Restart ran the restart command")
	assert.Equal(t, "restarted\nrestarted\n", string(b), "each Restart runs the command once")
	_, err = s.Client().CheckHealth(ctx, &client.CheckHealthRequest{})
	require.NoError(t, err, "the client works after Restart")

	require.NoError(t, s.Stop())
	require.NoError(t, s.Stop(), "Stop twice is fine")
	_, err = running.Client().CheckHealth(ctx, &client.CheckHealthRequest{})
	require.NoError(t, err, "Stop of an attached server leaves the server running")
	require.ErrorContains(t, s.Restart(ctx), "Restart after Stop")
}

func TestStartDevServerAtAddressRestartFailures(t *testing.T) {
	t.Parallel()
	running := testsuite.DevServerFor(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()

	none, err := testsuite.StartDevServer(ctx, testsuite.DevServerOptions{Address: running.Address()})
	require.NoError(t, err)
	t.Cleanup(func() { _ = none.Stop() })
	err = none.Restart(ctx)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "without a restart command")

	failing, err := testsuite.StartDevServer(ctx, testsuite.DevServerOptions{Address: running.Address(), RestartCommand: "echo boom >&2; exit 3"})
	require.NoError(t, err)
	t.Cleanup(func() { _ = failing.Stop() })
	err = failing.Restart(ctx)
	require.Error(t, err)
	assert.Contains(t, err.Error(), `restart command "echo boom >&2; exit 3"`)
	assert.Contains(t, err.Error(), "exit status 3")
	assert.Contains(t, err.Error(), "boom", "the command's output is in the error")
}

func TestStartDevServerAtAddressBadInput(t *testing.T) {
	t.Parallel()
	running := testsuite.DevServerFor(t)
	tests := []struct {
		name    string
		address string
		restart string
		opts    testsuite.DevServerOptions
		wantErr string
	}{
		{"no port", "127.0.0.1", "", testsuite.DevServerOptions{}, `address "127.0.0.1" is not host:port`},
		{"no host", ":7233", "", testsuite.DevServerOptions{}, `address ":7233" has no host`},
		{"port zero", "127.0.0.1:0", "", testsuite.DevServerOptions{}, `has port "0": want 1-65535`},
		{"port not a number", "127.0.0.1:x", "", testsuite.DevServerOptions{}, `has port "x"`},
		{"blank restart command", running.Address(), "  ", testsuite.DevServerOptions{}, "RestartCommand is only blanks"},
		{"UI asked", running.Address(), "", testsuite.DevServerOptions{EnableUI: true}, "DevServerOptions.EnableUI cannot apply"},
		{"port and extra args asked", running.Address(), "", testsuite.DevServerOptions{Port: 7233, ExtraArgs: []string{"--x"}},
			"DevServerOptions.Port, DevServerOptions.ExtraArgs cannot apply"},
		{"negative start timeout", running.Address(), "", testsuite.DevServerOptions{StartTimeout: -time.Second}, "StartTimeout -1s is negative"},
		{"restart command without address", "", "scripts/prodstack restart", testsuite.DevServerOptions{}, "RestartCommand needs Address"},
		{"unknown namespace", running.Address(), "", testsuite.DevServerOptions{Namespace: "no-such-namespace", StartTimeout: 2 * time.Second}, "not ready after 2s"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			opts := tt.opts
			opts.Address, opts.RestartCommand = tt.address, tt.restart
			s, err := testsuite.StartDevServer(context.Background(), opts)
			if s != nil {
				_ = s.Stop()
			}
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.wantErr)
		})
	}
}

// TestDevServerForFollowsTheEnvironment sets TestServerEnv, so it cannot run
// in parallel: t.Setenv refuses to.
func TestDevServerForFollowsTheEnvironment(t *testing.T) {
	running := testsuite.DevServerFor(t)
	command, marker := restartMarker(t)
	t.Setenv(testsuite.TestServerEnv, running.Address())
	t.Setenv(testsuite.TestServerRestartEnv, command)

	s := testsuite.DevServerFor(t, testsuite.DevServerOptions{DBFile: filepath.Join(t.TempDir(), "unused.db")})
	assert.Equal(t, running.Address(), s.Address(), "the server of %s, not a new dev server", testsuite.TestServerEnv)
	assert.Zero(t, s.PID())
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	require.NoError(t, s.Restart(ctx))
	b, err := os.ReadFile(marker)
	require.NoError(t, err, "Restart ran the command of %s", testsuite.TestServerRestartEnv)
	assert.Equal(t, "restarted\n", string(b))
}
