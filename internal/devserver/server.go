package devserver

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"sync"
	"time"

	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/client"
	sdklog "go.temporal.io/sdk/log"
)

// Defaults for Options fields left at their zero value.
const (
	DefaultNamespace    = "default"
	DefaultLogLevel     = "warn"
	DefaultStartTimeout = 2 * time.Minute
	DefaultStopTimeout  = 10 * time.Second
)

// Options configures a dev server. The zero value starts an in-memory,
// headless server on a free 127.0.0.1 port with namespace "default".
type Options struct {
	// CLIPath is the Temporal CLI to run. If empty, TEMPORAL_CLI, PATH, GOBIN
	// and GOPATH/bin are searched, and if that fails the CLI is built once.
	CLIPath string
	// CLIBuildDir is where a missing CLI is built. If empty, GOBIN, else the
	// first GOPATH entry's bin directory.
	CLIBuildDir string
	// Progress receives the one progress line printed before a build. If nil,
	// os.Stderr.
	Progress io.Writer
	// Port is the frontend gRPC port on 127.0.0.1. If 0, a free port is chosen.
	Port int
	// Namespace is registered at start and used by Client. If empty, "default".
	Namespace string
	// DBFile is the SQLite file that keeps the server's state across restarts.
	// If empty, the state is in memory and lost when the process stops.
	DBFile string
	// EnableUI starts the Web UI. If false, the server is headless.
	EnableUI bool
	// UIPort is the Web UI port when EnableUI is set. If 0, a free port.
	UIPort int
	// LogLevel is the server's log level (debug, info, warn, error). If empty,
	// "warn".
	LogLevel string
	// PlainStartDev runs the server as a plain `temporal server start-dev`
	// does: FastDynamicConfig is not passed. If false, it is, before
	// ExtraArgs, which can override any of its values.
	PlainStartDev bool
	// ExtraArgs are appended to `temporal server start-dev`. If nil, none.
	ExtraArgs []string
	// Output receives the server's stdout and stderr as they are written. If
	// nil, they are kept only in memory and shown in start errors.
	Output io.Writer
	// ClientOptions are used for Client; HostPort and Namespace are replaced by
	// the server's. If Logger is nil, warnings and errors go to stderr. If
	// ConnectionOptions.GrpcCompression is nil, requests are not compressed
	// (the SDK's default is gzip, which on loopback only costs CPU).
	ClientOptions client.Options
	// StartTimeout bounds the wait for the server to answer. If 0, 2 minutes.
	StartTimeout time.Duration
	// StopTimeout is how long Stop waits after interrupting a server with a
	// DBFile before it kills the process group. If 0, 10 seconds.
	StopTimeout time.Duration

	// Environment replaces SystemEnvironment() when looking for the CLI. If
	// nil, the process environment is used. For tests.
	Environment *Environment
	// Builder replaces GoInstall when the CLI must be built. If nil,
	// GoInstall. For tests.
	Builder Builder
}

// Server is a running `temporal server start-dev` process, or a server that
// runs already (Attach), and a client connected to it. Its methods are safe
// for concurrent use.
type Server struct {
	cliPath   string
	args      []string
	opts      Options
	address   string
	uiAddress string
	client    client.Client

	// attached is set for a server found running (Attach): no process of
	// its own, and restartCommand, if any, restarts it.
	attached       bool
	restartCommand string

	mu      sync.Mutex
	proc    *process
	stopped bool
}

// process is one run of the CLI.
type process struct {
	cmd    *exec.Cmd
	output *tailBuffer
	exited chan struct{} // closed when the process has been waited for
	err    error         // the wait error, set before exited is closed
}

// Start finds (or builds) the CLI, starts the server and waits until its
// namespace answers. On error nothing is left running.
func Start(ctx context.Context, opts Options) (*Server, error) {
	opts.ExtraArgs = append([]string(nil), opts.ExtraArgs...)
	if err := validate(&opts); err != nil {
		return nil, err
	}
	cliPath, err := findOrBuild(ctx, opts)
	if err != nil {
		return nil, err
	}
	s := &Server{cliPath: cliPath, opts: opts}
	autoPort := opts.Port == 0
	for attempt := 1; ; attempt++ {
		err := s.startOnce(ctx)
		if err == nil {
			return s, nil
		}
		// A free port can be taken between choosing it and binding it; only
		// then is trying another port the right answer.
		if !autoPort || attempt == 3 || !errors.Is(err, errPortTaken) {
			return nil, err
		}
		s.opts.Port = 0
	}
}

var errPortTaken = errors.New("port taken")

func validate(opts *Options) error {
	if opts.Port < 0 || opts.Port > 65535 {
		return fmt.Errorf("devserver: Port %d is out of range: want 1-65535, or 0 for a free port", opts.Port)
	}
	if opts.UIPort < 0 || opts.UIPort > 65535 {
		return fmt.Errorf("devserver: UIPort %d is out of range: want 1-65535, or 0 for a free port", opts.UIPort)
	}
	if opts.UIPort != 0 && !opts.EnableUI {
		return fmt.Errorf("devserver: UIPort %d is set but EnableUI is false", opts.UIPort)
	}
	if opts.UIPort != 0 && opts.UIPort == opts.Port {
		return fmt.Errorf("devserver: UIPort and Port are both %d", opts.Port)
	}
	if opts.StartTimeout < 0 {
		return fmt.Errorf("devserver: StartTimeout %v is negative", opts.StartTimeout)
	}
	if opts.StopTimeout < 0 {
		return fmt.Errorf("devserver: StopTimeout %v is negative", opts.StopTimeout)
	}
	if opts.Namespace == "" {
		opts.Namespace = DefaultNamespace
	}
	if opts.LogLevel == "" {
		opts.LogLevel = DefaultLogLevel
	}
	if opts.StartTimeout == 0 {
		opts.StartTimeout = DefaultStartTimeout
	}
	if opts.StopTimeout == 0 {
		opts.StopTimeout = DefaultStopTimeout
	}
	if opts.Progress == nil {
		opts.Progress = os.Stderr
	}
	if opts.Builder == nil {
		opts.Builder = GoInstall
	}
	return nil
}

// findOrBuild returns the CLI's path, building it when none is found.
func findOrBuild(ctx context.Context, opts Options) (string, error) {
	var env Environment
	if opts.Environment != nil {
		env = *opts.Environment
	} else {
		env = SystemEnvironment()
	}
	path, err := Locate(opts.CLIPath, env, IsExecutable)
	if err == nil || !errors.Is(err, ErrCLINotFound) {
		return path, err
	}
	dir := opts.CLIBuildDir
	if dir == "" {
		if dir, err = InstallDir(env); err != nil {
			return "", err
		}
	}
	return Ensure(ctx, dir, opts.Progress, opts.Builder)
}

// startOnce chooses the ports, starts the process and waits for readiness.
func (s *Server) startOnce(ctx context.Context) error {
	port, err := choosePort(s.opts.Port, "Port")
	if err != nil {
		return err
	}
	uiPort := 0
	if s.opts.EnableUI {
		if uiPort, err = choosePort(s.opts.UIPort, "UIPort"); err != nil {
			return err
		}
	}
	s.opts.Port, s.opts.UIPort = port, uiPort
	s.address = net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
	if s.opts.EnableUI {
		s.uiAddress = net.JoinHostPort("127.0.0.1", strconv.Itoa(uiPort))
	}
	s.args = startArgs(s.opts)
	if err := s.launch(); err != nil {
		return err
	}
	if err := s.waitReady(ctx); err != nil {
		s.kill()
		if s.client != nil {
			s.client.Close()
			s.client = nil
		}
		return err
	}
	return nil
}

// startArgs is the CLI command line for opts (ports already chosen).
func startArgs(opts Options) []string {
	args := []string{
		"server", "start-dev",
		"--ip", "127.0.0.1",
		"--port", strconv.Itoa(opts.Port),
		"--namespace", opts.Namespace,
		"--log-level", opts.LogLevel,
		// As the SDK's own dev server helper: the check calls out to the internet.
		"--dynamic-config-value", "frontend.enableServerVersionCheck=false",
	}
	if !opts.PlainStartDev {
		args = append(args, FastArgs()...)
	}
	if opts.EnableUI {
		args = append(args, "--ui-ip", "127.0.0.1", "--ui-port", strconv.Itoa(opts.UIPort))
	} else {
		args = append(args, "--headless")
	}
	if opts.DBFile != "" {
		args = append(args, "--db-filename", opts.DBFile)
	}
	return append(args, opts.ExtraArgs...)
}

// launch starts the process. On Linux the goroutine that starts it stays
// locked to its OS thread until the process exits, because the parent-death
// signal is tied to that thread.
func (s *Server) launch() error {
	p := &process{output: &tailBuffer{limit: 64 << 10}, exited: make(chan struct{})}
	p.cmd = exec.Command(s.cliPath, s.args...)
	prepare(p.cmd)
	var out io.Writer = p.output
	if s.opts.Output != nil {
		out = io.MultiWriter(p.output, s.opts.Output)
	}
	p.cmd.Stdout, p.cmd.Stderr = out, out
	started := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		if err := p.cmd.Start(); err != nil {
			started <- err
			runtime.UnlockOSThread()
			return
		}
		started <- nil
		p.err = p.cmd.Wait()
		close(p.exited)
		// The thread is left locked on purpose: it ends with this goroutine.
	}()
	if err := <-started; err != nil {
		return fmt.Errorf("devserver: starting %s: %w", s.cliPath, err)
	}
	s.mu.Lock()
	s.proc = p
	s.mu.Unlock()
	return nil
}

// waitReady dials the server until its health check and namespace answer.
func (s *Server) waitReady(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, s.opts.StartTimeout)
	defer cancel()
	p := s.current()
	// An attached server has no process here: its exit is never seen, and a
	// nil channel never fires.
	var exited <-chan struct{}
	if p != nil {
		exited = p.exited
	}
	ticker := time.NewTicker(100 * time.Millisecond)
	defer ticker.Stop()
	var lastErr error
	for {
		select {
		case <-exited:
			return s.exitError(p)
		default:
		}
		if lastErr = s.probe(ctx); lastErr == nil {
			return nil
		}
		select {
		case <-exited:
			return s.exitError(p)
		case <-ctx.Done():
			if p == nil {
				return fmt.Errorf("devserver: server at %s not ready after %v: %w (last probe: %v)",
					s.address, s.opts.StartTimeout, ctx.Err(), lastErr)
			}
			return fmt.Errorf("devserver: server at %s not ready after %v: %w (last probe: %v)\nserver output:\n%s",
				s.address, s.opts.StartTimeout, ctx.Err(), lastErr, p.output.String())
		case <-ticker.C:
		}
	}
}

// probe checks health and the namespace once, dialing the client if needed.
func (s *Server) probe(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	if s.client == nil {
		c, err := client.DialContext(ctx, clientOptions(s.opts, s.address))
		if err != nil {
			return err
		}
		s.client = c
	}
	if _, err := s.client.CheckHealth(ctx, &client.CheckHealthRequest{}); err != nil {
		return err
	}
	_, err := s.client.WorkflowService().DescribeNamespace(ctx, &workflowservice.DescribeNamespaceRequest{Namespace: s.opts.Namespace})
	return err
}

// clientOptions are the options of the server's client: the caller's, with
// the server's address and namespace, a logger of warnings to stderr if none
// is set, and no gRPC compression if none is chosen.
func clientOptions(o Options, address string) client.Options {
	opts := o.ClientOptions
	opts.HostPort = address
	opts.Namespace = o.Namespace
	if opts.Logger == nil {
		opts.Logger = sdklog.NewStructuredLogger(slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn})))
	}
	// The SDK gzips every request and the server every answer by default:
	// on loopback that is CPU spent for nothing, on both sides.
	if opts.ConnectionOptions.GrpcCompression == nil {
		opts.ConnectionOptions.GrpcCompression = &client.GrpcCompressionNone{}
	}
	return opts
}

func (s *Server) exitError(p *process) error {
	out := p.output.String()
	err := fmt.Errorf("devserver: %s exited before the server was ready (%v)\nserver output:\n%s", s.cliPath, p.err, out)
	if bytes.Contains([]byte(out), []byte("address already in use")) {
		return fmt.Errorf("%w: %w", errPortTaken, err)
	}
	return err
}

func (s *Server) current() *process {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.proc
}

// Address is the frontend's host:port, for client.Options.HostPort.
func (s *Server) Address() string { return s.address }

// UIAddress is the Web UI's host:port, or "" when the UI is off.
func (s *Server) UIAddress() string { return s.uiAddress }

// Namespace is the namespace registered at start and used by Client.
func (s *Server) Namespace() string { return s.opts.Namespace }

// Client is connected to the server. It stays valid across Restart; Stop
// closes it.
func (s *Server) Client() client.Client { return s.client }

// PID is the server process's id (also its process group id on Unix), or 0
// after Stop.
func (s *Server) PID() int {
	p := s.current()
	if p == nil {
		return 0
	}
	return p.cmd.Process.Pid
}

// Restart stops the server process and starts it again on the same port and
// database file; workers and the client reconnect. With no DBFile the state is
// lost. An attached server is restarted by its restart command instead.
func (s *Server) Restart(ctx context.Context) error {
	s.mu.Lock()
	stopped := s.stopped
	s.mu.Unlock()
	if stopped {
		return errors.New("devserver: Restart after Stop")
	}
	if s.attached {
		return s.restartAttached(ctx)
	}
	if err := s.terminate(); err != nil {
		return err
	}
	// The ports are held again (choosePort) until the new process binds
	// them, so that no other process is handed them in between; a port
	// taken already makes the launch fail, saying so.
	_, _ = choosePort(s.opts.Port, "Port")
	if s.opts.EnableUI {
		_, _ = choosePort(s.opts.UIPort, "UIPort")
	}
	if err := s.launch(); err != nil {
		return err
	}
	if err := s.waitReady(ctx); err != nil {
		s.kill()
		return err
	}
	return nil
}

// Stop closes the client and ends the server's process group: at once for an
// in-memory server, else by an interrupt and, after StopTimeout, a kill. It
// waits for the process to exit and is safe to call more than once. An
// attached server has no process here: Stop only closes the client.
func (s *Server) Stop() error {
	s.mu.Lock()
	if s.stopped {
		s.mu.Unlock()
		return nil
	}
	s.stopped = true
	s.mu.Unlock()
	if s.client != nil {
		s.client.Close()
	}
	err := s.terminate()
	s.mu.Lock()
	s.proc = nil
	s.mu.Unlock()
	return err
}

// terminate interrupts, then kills, the current process group and waits.
func (s *Server) terminate() error {
	p := s.current()
	if p == nil {
		return nil
	}
	pid := p.cmd.Process.Pid
	// An in-memory server has nothing to flush, so it is killed at once; one
	// with a database file gets StopTimeout to shut down cleanly.
	err := signalGroup(pid, s.opts.DBFile == "")
	select {
	case <-p.exited:
	case <-time.After(s.opts.StopTimeout):
		err = errors.Join(err, signalGroup(pid, true))
		<-p.exited
	}
	// The leader is gone; anything it left in its group goes too.
	if killErr := signalGroup(pid, true); killErr != nil {
		err = errors.Join(err, killErr)
	}
	if err != nil {
		return fmt.Errorf("devserver: stopping process group %d: %w", pid, err)
	}
	return nil
}

// kill ends the current process group at once and waits.
func (s *Server) kill() {
	if p := s.current(); p != nil {
		_ = signalGroup(p.cmd.Process.Pid, true)
		<-p.exited
	}
}

// tailBuffer keeps the last limit bytes written to it.
type tailBuffer struct {
	mu    sync.Mutex
	limit int
	buf   []byte
}

func (b *tailBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.buf = append(b.buf, p...)
	if len(b.buf) > b.limit {
		b.buf = append([]byte(nil), b.buf[len(b.buf)-b.limit:]...)
	}
	return len(p), nil
}

func (b *tailBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return string(b.buf)
}
