package testsuite_test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
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

// childEnv makes TestChildStartsServerThenDies act; see TestNoServerLeftBehind.
const childEnv = "TEMPORALADK_TEST_DEVSERVER_CHILD"

// TestChildStartsServerThenDies is the child process of TestNoServerLeftBehind:
// it starts a server, prints its PID and dies the way childEnv says. Without
// childEnv it does nothing.
func TestChildStartsServerThenDies(t *testing.T) {
	mode := os.Getenv(childEnv)
	if mode == "" {
		return
	}
	var s *testsuite.DevServer
	if strings.HasPrefix(mode, "shared-") {
		s = testsuite.SharedDevServer(t)
	} else {
		s = testsuite.StartTestDevServer(t, testsuite.DevServerOptions{})
	}
	fmt.Printf("SERVER_PID=%d\n", s.PID())
	// Wait until the parent has seen the server running.
	if _, err := bufio.NewReader(os.Stdin).ReadString('\n'); err != nil {
		t.Fatalf("reading the parent's go-ahead: %v", err)
	}
	switch mode {
	case "fail", "shared-fail":
		t.Fatal("failing on purpose")
	case "panic", "shared-panic":
		panic("panicking on purpose")
	case "exit":
		os.Exit(3)
	case "killed":
		select {} // the parent kills this process
	}
}

// TestNoServerLeftBehind runs this test binary as a child that starts a dev
// server and then fails, panics, exits or is killed, and checks the process
// table: neither the server nor anything in its process group may survive.
func TestNoServerLeftBehind(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("reads the process table from /proc; the kill-on-parent-death guarantee is Linux-only")
	}
	t.Parallel()
	modes := []struct{ mode, wantOutput string }{
		{"fail", "failing on purpose"},
		{"panic", "panic: panicking on purpose"},
		{"shared-fail", "failing on purpose"},
		{"shared-panic", "panic: panicking on purpose"},
		{"exit", ""},
		{"killed", ""},
	}
	for _, m := range modes {
		t.Run(m.mode, func(t *testing.T) {
			t.Parallel()
			cmd := exec.Command(os.Args[0], "-test.run=^TestChildStartsServerThenDies$", "-test.v")
			cmd.Env = append(os.Environ(), childEnv+"="+m.mode)
			var output syncBuffer
			cmd.Stderr = &output
			stdout, err := cmd.StdoutPipe()
			require.NoError(t, err)
			stdin, err := cmd.StdinPipe()
			require.NoError(t, err)
			require.NoError(t, cmd.Start())
			pidc := make(chan int, 1)
			go func() {
				scanner := bufio.NewScanner(stdout)
				for scanner.Scan() {
					line := scanner.Text()
					fmt.Fprintln(&output, line)
					if v, ok := strings.CutPrefix(line, "SERVER_PID="); ok {
						pid, _ := strconv.Atoi(v)
						pidc <- pid
					}
				}
				close(pidc)
			}()
			pid, ok := <-pidc
			if !ok {
				_ = cmd.Wait()
				t.Fatalf("the child printed no server PID:\n%s", output.String())
			}
			require.True(t, processAlive(pid), "server %d should run while the child lives", pid)
			if m.mode == "killed" {
				require.NoError(t, cmd.Process.Kill())
			} else {
				_, err := io.WriteString(stdin, "go\n")
				require.NoError(t, err)
			}
			err = cmd.Wait()
			require.Error(t, err, "the child must fail:\n%s", output.String())
			assert.Contains(t, output.String(), m.wantOutput)
			assertNoProcessLeft(t, pid)
		})
	}
}

func TestDevServerRestartKeepsState(t *testing.T) {
	t.Parallel()
	db := filepath.Join(t.TempDir(), "temporal.db")
	s := testsuite.StartTestDevServer(t, testsuite.DevServerOptions{DBFile: db})
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
	s := testsuite.StartTestDevServer(t, testsuite.DevServerOptions{EnableUI: true})
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

func TestSharedDevServerIsShared(t *testing.T) {
	t.Parallel()
	a, b := testsuite.SharedDevServer(t), testsuite.SharedDevServer(t)
	require.Same(t, a, b)
	_, err := a.Client().CheckHealth(context.Background(), &client.CheckHealthRequest{})
	require.NoError(t, err)
}

// processAlive reports whether pid runs (a zombie does not).
func processAlive(pid int) bool {
	for _, p := range processTable() {
		if p.pid == pid {
			return p.state != 'Z' && p.state != 'X'
		}
	}
	return false
}

// assertNoProcessLeft waits up to 15s for pid, its children and its process
// group to be gone from the process table.
func assertNoProcessLeft(t *testing.T, pid int) {
	t.Helper()
	if runtime.GOOS != "linux" {
		return
	}
	deadline := time.Now().Add(15 * time.Second)
	for {
		var left []string
		for _, p := range processTable() {
			if p.state == 'Z' || p.state == 'X' {
				continue
			}
			if p.pid == pid || p.ppid == pid || p.pgrp == pid {
				left = append(left, fmt.Sprintf("%d (%s, parent %d, group %d)", p.pid, p.comm, p.ppid, p.pgrp))
			}
		}
		if len(left) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Errorf("server %d left processes behind: %s", pid, strings.Join(left, "; "))
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
}

type procEntry struct {
	pid, ppid, pgrp int
	state           byte
	comm            string
}

// processTable reads /proc/*/stat.
func processTable() []procEntry {
	dirs, _ := os.ReadDir("/proc")
	var out []procEntry
	for _, d := range dirs {
		pid, err := strconv.Atoi(d.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", d.Name(), "stat"))
		if err != nil {
			continue
		}
		// "pid (comm) state ppid pgrp ...": comm may hold spaces and parens.
		s := string(b)
		open, closing := strings.IndexByte(s, '('), strings.LastIndexByte(s, ')')
		if open < 0 || closing < open {
			continue
		}
		fields := strings.Fields(s[closing+1:])
		if len(fields) < 3 {
			continue
		}
		ppid, _ := strconv.Atoi(fields[1])
		pgrp, _ := strconv.Atoi(fields[2])
		out = append(out, procEntry{pid: pid, ppid: ppid, pgrp: pgrp, state: fields[0][0], comm: s[open+1 : closing]})
	}
	return out
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
