//go:build linux

// The process-table checks read /proc, and the kill-on-parent-death guarantee
// (Pdeathsig) is Linux's: these tests are built on Linux only, where CI runs.

package testsuite_test

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/temporaladk/adk-go/testsuite"
)

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
		s = testsuite.DevServerFor(t)
	} else {
		s = testsuite.DevServerFor(t, testsuite.DevServerOptions{})
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

// The server process runs with FastDevServerArgs by default and without them
// under PlainStartDev, as its command line in /proc shows.
func TestDevServerFastArgsReachTheProcess(t *testing.T) {
	t.Parallel()
	fast := testsuite.FastDevServerArgs()
	require.NotEmpty(t, fast)
	shared := processArgs(t, testsuite.DevServerFor(t).PID())
	assert.Subset(t, shared, fast, "the shared dev server runs without the fast config")

	plain := testsuite.DevServerFor(t, testsuite.DevServerOptions{PlainStartDev: true})
	plainArgs := processArgs(t, plain.PID())
	for i := 1; i < len(fast); i += 2 {
		assert.NotContains(t, plainArgs, fast[i], "PlainStartDev passes a fast value")
	}
	assert.Contains(t, plainArgs, "start-dev")
}

// processArgs reads a process's command line from /proc.
func processArgs(t *testing.T, pid int) []string {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "cmdline"))
	require.NoError(t, err)
	return strings.Split(strings.TrimRight(string(raw), "\x00"), "\x00")
}
