// Package natstest starts a real nats-server with JetStream for tests:
// nats-server (Apache 2.0), built from the Go module proxy when it is
// missing, on a free 127.0.0.1 port, over a temporary directory.
//
//	srv := natstest.Start(t) // stopped in t.Cleanup
//	nc, _ := nats.Connect(srv.URL)
package natstest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/temporaladk/adk-go/testsuite"
)

// NATSServer is the module the server is built from.
const NATSServer = "github.com/nats-io/nats-server/v2@v2.15.3"

// Server is a running nats-server with JetStream.
type Server struct {
	// URL is nats://127.0.0.1:port.
	URL string
	// Dir is where JetStream keeps its files.
	Dir string

	bin    string
	port   int
	mu     sync.Mutex
	cmd    *exec.Cmd
	output *bytes.Buffer
}

// Binary returns the nats-server executable: NATS_SERVER if set, else
// testsuite.GoTool's (PATH, GOBIN, each GOPATH/bin, or built there with
// `go install NATSServer`).
func Binary(ctx context.Context) (string, error) {
	if p := os.Getenv("NATS_SERVER"); p != "" {
		return p, nil
	}
	return testsuite.GoTool(ctx, "nats-server", NATSServer)
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// StartServer starts a server with JetStream over dir and waits until it
// answers. Stop it with Stop.
func StartServer(ctx context.Context, dir string) (*Server, error) {
	bin, err := Binary(ctx)
	if err != nil {
		return nil, err
	}
	port, err := freePort()
	if err != nil {
		return nil, fmt.Errorf("natstest: %w", err)
	}
	s := &Server{URL: fmt.Sprintf("nats://127.0.0.1:%d", port), Dir: dir, bin: bin, port: port}
	return s, s.start(ctx)
}

// start runs the server on s's port and dir, and waits until a client
// connects.
func (s *Server) start(ctx context.Context) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.output = &bytes.Buffer{}
	s.cmd = exec.Command(s.bin, "-a", "127.0.0.1", "-p", fmt.Sprint(s.port), "-js", "-sd", s.Dir)
	s.cmd.Stdout, s.cmd.Stderr = s.output, s.output
	s.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := s.cmd.Start(); err != nil {
		return fmt.Errorf("natstest: starting %s: %w", s.bin, err)
	}
	exited := make(chan error, 1)
	go func() { exited <- s.cmd.Wait() }()
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	for {
		if nc, err := nats.Connect(s.URL, nats.Timeout(time.Second)); err == nil {
			nc.Close()
			return nil
		}
		select {
		case err := <-exited:
			return fmt.Errorf("natstest: nats-server exited before it answered: %v\n%s", err, s.output)
		case <-ctx.Done():
			_ = s.cmd.Process.Kill()
			return fmt.Errorf("natstest: nats-server did not answer on %s: %w\n%s", s.URL, ctx.Err(), s.output)
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// Stop kills the server; JetStream's files stay in Dir for Restart.
func (s *Server) Stop() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.cmd.Process.Kill(); err != nil && !errors.Is(err, os.ErrProcessDone) {
		return err
	}
	return nil
}

// Restart starts the server again on its port and Dir after Stop.
func (s *Server) Restart(ctx context.Context) error { return s.start(ctx) }

// Start starts a server over a temporary directory for one test, stopped
// in t.Cleanup.
func Start(t testing.TB) *Server {
	t.Helper()
	s, err := StartServer(context.Background(), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := s.Stop(); err != nil {
			t.Errorf("natstest: stopping nats-server: %v", err)
		}
	})
	return s
}
