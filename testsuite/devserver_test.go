package testsuite_test

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/client"

	"github.com/temporaladk/adk-go/testsuite"
)

func TestTwoDevServersInParallel(t *testing.T) {
	testsuite.SkipShort(t) // it starts its servers with StartDevServer, as a program does
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	var servers [2]*testsuite.DevServer
	var errs [2]error
	var wg sync.WaitGroup
	for i := range servers {
		wg.Go(func() { servers[i], errs[i] = testsuite.StartDevServer(ctx, testsuite.DevServerOptions{}) })
	}
	wg.Wait()
	for i, s := range servers {
		if s != nil {
			t.Cleanup(func() { _ = s.Stop() }) // in case an assertion below fails first
		}
		require.NoError(t, errs[i], "server %d", i)
	}
	require.NotEqual(t, servers[0].Address(), servers[1].Address())
	require.NotEqual(t, servers[0].PID(), servers[1].PID())

	pids := []int{servers[0].PID(), servers[1].PID()}
	for _, s := range servers {
		assert.True(t, strings.HasPrefix(s.Address(), "127.0.0.1:"), s.Address())
		_, err := s.Client().CheckHealth(ctx, &client.CheckHealthRequest{})
		require.NoError(t, err)
		assert.Equal(t, "default", s.Namespace())
	}
	for _, s := range servers {
		require.NoError(t, s.Stop())
		require.NoError(t, s.Stop(), "Stop twice is fine")
		assert.Zero(t, s.PID())
		conn, err := net.DialTimeout("tcp", s.Address(), time.Second)
		if err == nil {
			conn.Close()
			t.Errorf("%s still accepts connections after Stop", s.Address())
		}
	}
	for _, pid := range pids {
		assertNoProcessLeft(t, pid)
	}
}

func TestDevServerRestartKeepsState(t *testing.T) {
	t.Parallel()
	db := filepath.Join(t.TempDir(), "temporal.db")
	s := testsuite.DevServerFor(t, testsuite.DevServerOptions{DBFile: db})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	// No worker: the workflow stays running, in the database.
	run, err := s.Client().ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: "survives-restart", TaskQueue: "nobody-polls"}, "Anything")
	require.NoError(t, err)

	address, oldPID := s.Address(), s.PID()
	require.NoError(t, s.Restart(ctx))
	assert.Equal(t, address, s.Address())
	assert.NotEqual(t, oldPID, s.PID())
	assertNoProcessLeft(t, oldPID)

	desc, err := s.Client().DescribeWorkflowExecution(ctx, run.GetID(), run.GetRunID())
	require.NoError(t, err, "the same client must reach the restarted server")
	assert.Equal(t, enumspb.WORKFLOW_EXECUTION_STATUS_RUNNING, desc.GetWorkflowExecutionInfo().GetStatus())
}

func TestDevServerUI(t *testing.T) {
	t.Parallel()
	s := testsuite.DevServerFor(t, testsuite.DevServerOptions{EnableUI: true})
	require.NotEmpty(t, s.UIAddress())
	require.NotEqual(t, s.Address(), s.UIAddress())
	// The UI comes up alongside the frontend; give it a few seconds.
	deadline := time.Now().Add(15 * time.Second)
	for {
		resp, err := http.Get("http://" + s.UIAddress() + "/")
		if err == nil {
			resp.Body.Close()
			require.Equal(t, http.StatusOK, resp.StatusCode)
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("UI at %s did not answer: %v", s.UIAddress(), err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func TestDevServerBadInput(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	notExecutable := filepath.Join(dir, "not-executable")
	require.NoError(t, os.WriteFile(notExecutable, []byte("x"), 0o644))
	exitsAtOnce := filepath.Join(dir, "exits-at-once")
	require.NoError(t, os.WriteFile(exitsAtOnce, []byte("#!/bin/sh\necho 'cannot start: boom' >&2\nexit 1\n"), 0o755))
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	t.Cleanup(func() { busy.Close() }) // subtests are parallel: they run after this function returns
	busyPort := busy.Addr().(*net.TCPAddr).Port

	tests := []struct {
		name    string
		opts    testsuite.DevServerOptions
		wantErr string
	}{
		{"missing CLI path", testsuite.DevServerOptions{CLIPath: filepath.Join(dir, "missing")}, "CLIPath option"},
		{"CLI path is a directory", testsuite.DevServerOptions{CLIPath: dir}, "not a regular file"},
		{"CLI path not executable", testsuite.DevServerOptions{CLIPath: notExecutable}, "not executable"},
		{"CLI exits at once", testsuite.DevServerOptions{CLIPath: exitsAtOnce}, "cannot start: boom"},
		{"negative port", testsuite.DevServerOptions{Port: -1}, "Port -1 is out of range"},
		{"port too large", testsuite.DevServerOptions{Port: 70000}, "Port 70000 is out of range"},
		{"port in use", testsuite.DevServerOptions{Port: busyPort}, fmt.Sprintf("Port %d is not free", busyPort)},
		{"UI port without UI", testsuite.DevServerOptions{UIPort: 8233}, "EnableUI is false"},
		{"negative start timeout", testsuite.DevServerOptions{StartTimeout: -time.Second}, "StartTimeout -1s is negative"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			start := time.Now()
			s, err := testsuite.StartDevServer(context.Background(), tt.opts)
			if s != nil {
				_ = s.Stop()
			}
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.wantErr)
			assert.Less(t, time.Since(start), 30*time.Second, "a bad input must fail fast")
		})
	}
}

func TestDevServerForIsSharedWithoutOptions(t *testing.T) {
	t.Parallel()
	a, b := testsuite.DevServerFor(t), testsuite.DevServerFor(t)
	require.Same(t, a, b)
	_, err := a.Client().CheckHealth(context.Background(), &client.CheckHealthRequest{})
	require.NoError(t, err)
}

// endingTB stands in for a test that DevServerFor ends: it records what
// the test was failed or skipped with, and ends its goroutine as the real
// Fatal and Skip do.
type endingTB struct {
	testing.TB
	said string
}

func (r *endingTB) Helper() {}
func (r *endingTB) Fatal(args ...any) {
	r.said = fmt.Sprint(args...)
	runtime.Goexit()
}
func (r *endingTB) Fatalf(format string, args ...any) {
	r.said = fmt.Sprintf(format, args...)
	runtime.Goexit()
}
func (r *endingTB) Skip(args ...any) {
	r.said = "skip: " + fmt.Sprint(args...)
	runtime.Goexit()
}

// TestDevServerForRefusesTwoOptions holds the one bad input of DevServerFor,
// which is refused before any server starts (or skipped under -short).
func TestDevServerForRefusesTwoOptions(t *testing.T) {
	t.Parallel()
	rec := &endingTB{TB: t}
	done := make(chan struct{})
	go func() {
		defer close(done)
		testsuite.DevServerFor(rec, testsuite.DevServerOptions{}, testsuite.DevServerOptions{DBFile: "x.db"})
		rec.said = "DevServerFor returned"
	}()
	<-done
	if testing.Short() {
		assert.Equal(t, "skip: "+testsuite.ShortSkipMessage, rec.said)
		return
	}
	assert.Equal(t, "testsuite: DevServerFor got 2 DevServerOptions: pass none for the shared server, or one for a server of this test's own", rec.said)
}

type syncBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}
