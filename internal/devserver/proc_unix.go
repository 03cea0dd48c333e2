//go:build unix && !linux

package devserver

import (
	"os/exec"
	"syscall"
)

// prepare puts the server in its own process group, so Stop can signal the
// group. There is no parent-death signal here: a test binary killed outright
// can leave the server running (Stop and t.Cleanup still stop it).
func prepare(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

func signalGroup(pid int, kill bool) error {
	sig := syscall.SIGINT
	if kill {
		sig = syscall.SIGKILL
	}
	err := syscall.Kill(-pid, sig)
	if err == syscall.ESRCH {
		return nil
	}
	return err
}
