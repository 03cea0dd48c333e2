package devserver

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os/exec"
	"strconv"
	"strings"
	"time"

	"go.temporal.io/sdk/client"
)

// AttachOptions configures Attach: a Temporal server that runs already, such
// as a Temporal Server release on PostgreSQL, used instead of a dev server.
type AttachOptions struct {
	// Address is the server's frontend, host:port. Required.
	Address string
	// RestartCommand restarts the server, run as `sh -c RestartCommand`;
	// Restart runs it, then waits until the namespace answers again. If
	// empty, Restart fails: the server is not this process's to restart.
	RestartCommand string
	// Namespace must exist on the server; Client uses it. If empty, "default".
	Namespace string
	// ClientOptions are used for Client, as Options.ClientOptions are.
	ClientOptions client.Options
	// StartTimeout bounds the wait until the server answers, at Attach and
	// after each restart (the restart command itself is bounded only by the
	// context). If 0, 2 minutes.
	StartTimeout time.Duration
	// Output receives the restart command's stdout and stderr as they are
	// written. If nil, they are kept in memory and shown when it fails.
	Output io.Writer
}

// Attach connects to a running server and waits until its namespace
// answers. The Server it returns runs no process: PID is 0, Stop only closes
// Client, and Restart runs RestartCommand.
func Attach(ctx context.Context, opts AttachOptions) (*Server, error) {
	if err := validateAddress(opts.Address); err != nil {
		return nil, err
	}
	if strings.TrimSpace(opts.RestartCommand) == "" && opts.RestartCommand != "" {
		return nil, errors.New("devserver: RestartCommand is only blanks: give a command or leave it empty")
	}
	o := Options{Namespace: opts.Namespace, ClientOptions: opts.ClientOptions, StartTimeout: opts.StartTimeout, Output: opts.Output}
	if err := validate(&o); err != nil {
		return nil, err
	}
	s := &Server{opts: o, address: opts.Address, restartCommand: opts.RestartCommand, attached: true}
	if err := s.waitReady(ctx); err != nil {
		if s.client != nil {
			s.client.Close()
		}
		return nil, err
	}
	return s, nil
}

// validateAddress checks that address is host:port with a port of 1-65535.
func validateAddress(address string) error {
	host, port, err := net.SplitHostPort(address)
	if err != nil {
		return fmt.Errorf("devserver: address %q is not host:port: %w", address, err)
	}
	if host == "" {
		return fmt.Errorf("devserver: address %q has no host", address)
	}
	n, err := strconv.Atoi(port)
	if err != nil || n < 1 || n > 65535 {
		return fmt.Errorf("devserver: address %q has port %q: want 1-65535", address, port)
	}
	return nil
}

// restartAttached runs the restart command and waits for the server.
func (s *Server) restartAttached(ctx context.Context) error {
	if s.restartCommand == "" {
		return fmt.Errorf("devserver: the server at %s was attached without a restart command, so it cannot be restarted", s.address)
	}
	out := &tailBuffer{limit: 64 << 10}
	cmd := exec.CommandContext(ctx, "sh", "-c", s.restartCommand)
	var w io.Writer = out
	if s.opts.Output != nil {
		w = io.MultiWriter(out, s.opts.Output)
	}
	cmd.Stdout, cmd.Stderr = w, w
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("devserver: restart command %q: %w\noutput:\n%s", s.restartCommand, err, out.String())
	}
	return s.waitReady(ctx)
}
