//go:build !linux

package testsuite_test

import (
	"os"
	"syscall"
	"testing"
	"time"
)

// assertNoProcessLeft waits up to 15s for pid to be gone. Without /proc only
// the server itself is checked, not its children or group.
func assertNoProcessLeft(t *testing.T, pid int) {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for {
		p, err := os.FindProcess(pid)
		if err != nil || p.Signal(syscall.Signal(0)) != nil {
			return
		}
		if time.Now().After(deadline) {
			t.Errorf("server %d is still running", pid)
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
}
