//go:build !unix

package devserver

import (
	"errors"
	"os"
	"os/exec"
)

// prepare has no process groups to set up on this platform.
func prepare(*exec.Cmd) {}

// signalGroup kills the process itself; there is no gentle interrupt here.
func signalGroup(pid int, _ bool) error {
	p, err := os.FindProcess(pid)
	if err != nil {
		return nil
	}
	if err := p.Kill(); err != nil && !errors.Is(err, os.ErrProcessDone) {
		return err
	}
	return nil
}
