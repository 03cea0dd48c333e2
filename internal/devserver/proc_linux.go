//go:build linux

package devserver

import (
	"os/exec"
	"syscall"
)

// prepare puts the server in its own process group, so Stop can signal the
// group, and asks the kernel to SIGKILL it when the thread that started it
// dies: a test binary that panics or is killed cannot leave it behind.
// start runs on a goroutine locked to its OS thread for the child's life,
// because Pdeathsig fires when that thread, not the process, exits.
func prepare(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}

func signalGroup(pid int, kill bool) error {
	sig := syscall.SIGINT
	if kill {
		sig = syscall.SIGKILL
	}
	return ignoreGone(syscall.Kill(-pid, sig))
}

func ignoreGone(err error) error {
	if err == syscall.ESRCH {
		return nil
	}
	return err
}
