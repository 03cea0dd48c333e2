package testsuite

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"go.temporal.io/sdk/client"

	"github.com/temporaladk/adk-go/internal/devserver"
)

// TemporalCLIVersion is the Temporal CLI version built when none is found
// (github.com/temporalio/cli/cmd/temporal at this version, from the Go
// module proxy).
const TemporalCLIVersion = "v1.5.1"

// FastDevServerArgs returns the `temporal server start-dev` arguments that
// make a dev server fast for tests, as a list of `--dynamic-config-value
// KEY=VALUE` flags. StartDevServer passes them unless PlainStartDev is set;
// pass them yourself to a server you start another way, for example the
// SDK's testsuite.DevServerOptions.ExtraArgs.
//
// On a plain dev server every workflow and activity task waits up to 50 ms in
// the server's queues (history reads them 20 times a second) and can wait
// for a poller of its task queue partition (a task queue has 4), and a retry
// or timer fires no sooner than a second after the timer queue's last read.
// These values lift those limits: they change when the server moves its
// tasks, not what it does with them. BENCHMARKS.md measures what each one
// buys. Each call returns a new slice.
func FastDevServerArgs() []string { return devserver.FastArgs() }

// DevServerOptions configures a dev server. The zero value starts an
// in-memory, headless server on a free 127.0.0.1 port with namespace
// "default", using the Temporal CLI found on this machine (or built once),
// with FastDevServerArgs.
type DevServerOptions struct {
	// Address is the frontend, host:port, of a Temporal server that runs
	// already: the DevServer connects to it and starts no process. PID is
	// then 0, UIAddress "", Stop only closes Client, and Restart runs
	// RestartCommand. Of the other options, Namespace, ClientOptions,
	// StartTimeout and Output (which receives the restart command's output)
	// apply; those that only say how to start a server (CLIPath,
	// CLIBuildDir, DBFile, LogLevel, PlainStartDev, StopTimeout) are unused,
	// and those whose promise a server started elsewhere cannot keep
	// (EnableUI, UIPort, Port, ExtraArgs) are an error. If empty, a dev
	// server is started.
	Address string
	// RestartCommand is run with `sh -c` by Restart of the server at
	// Address, which then waits until the namespace answers again. It needs
	// Address. If empty, Restart of such a server fails.
	RestartCommand string
	// CLIPath is the Temporal CLI to run. If empty, TEMPORAL_CLI, PATH, GOBIN
	// and each GOPATH/bin are searched; if none has it, it is built with
	// `go install` into CLIBuildDir. A CLIPath or TEMPORAL_CLI that is not an
	// executable file is an error.
	CLIPath string
	// CLIBuildDir is where a missing CLI is built. If empty, GOBIN as `go env`
	// reports it, else the first GOPATH entry's bin directory.
	CLIBuildDir string
	// Port is the frontend gRPC port on 127.0.0.1. If 0, a free port is chosen.
	Port int
	// Namespace is registered at start and used by Client. If empty, "default".
	Namespace string
	// DBFile is the SQLite file that keeps the server's state across Restart.
	// If empty, the state is in memory and lost when the process stops.
	DBFile string
	// EnableUI starts the Web UI on UIAddress. If false, the server is headless.
	EnableUI bool
	// UIPort is the Web UI port; it needs EnableUI. If 0, a free port.
	UIPort int
	// LogLevel is the server's log level: debug, info, warn or error. If
	// empty, "warn".
	LogLevel string
	// PlainStartDev runs the server as a plain `temporal server start-dev`
	// does, without FastDevServerArgs: tasks dispatch in tens of
	// milliseconds and retries and timers fire up to a second late. If false,
	// FastDevServerArgs are passed before ExtraArgs. Either way the server's
	// version check, which calls the internet, is off.
	PlainStartDev bool
	// ExtraArgs are appended to `temporal server start-dev`, for example
	// "--search-attribute", "Customer=Keyword". A `--dynamic-config-value`
	// here overrides the same key of FastDevServerArgs. If nil, none.
	ExtraArgs []string
	// Output receives the server's stdout and stderr. If nil, the output is
	// kept in memory and shown only when the server fails to start.
	Output io.Writer
	// ClientOptions configure Client; HostPort and Namespace are set from the
	// server. If ClientOptions.Logger is nil, warnings and errors go to stderr.
	// If ClientOptions.ConnectionOptions.GrpcCompression is nil, Client does
	// not compress its requests: the SDK's default, gzip, only costs CPU on
	// loopback, in the client and in the server.
	ClientOptions client.Options
	// StartTimeout bounds the wait until the server answers. If 0, 2 minutes
	// (a CLI build, when needed, is bounded by the context only).
	StartTimeout time.Duration
	// StopTimeout is how long Stop waits for a server with a DBFile to shut
	// down after an interrupt before it kills it. If 0, 10 seconds.
	StopTimeout time.Duration
}

// DevServer is a running Temporal dev server process and a client connected
// to it. Its methods are safe for concurrent use.
type DevServer struct {
	server *devserver.Server
}

// StartDevServer starts a dev server and waits until its namespace answers,
// or, with opts.Address, connects to the server running there. It is the
// way a program gets a server; a test calls DevServerFor. The caller must
// call Stop. If the CLI is missing, it is built first, which takes minutes
// once per machine. On error nothing is left running.
func StartDevServer(ctx context.Context, opts DevServerOptions) (*DevServer, error) {
	if ctx == nil {
		return nil, errors.New("testsuite: StartDevServer: ctx is nil: pass a context that bounds the start")
	}
	if opts.Address != "" {
		return attach(ctx, opts)
	}
	if opts.RestartCommand != "" {
		return nil, errors.New("testsuite: DevServerOptions.RestartCommand needs Address: a dev server started here restarts itself")
	}
	s, err := devserver.Start(ctx, devserver.Options{
		CLIPath:       opts.CLIPath,
		CLIBuildDir:   opts.CLIBuildDir,
		Port:          opts.Port,
		Namespace:     opts.Namespace,
		DBFile:        opts.DBFile,
		EnableUI:      opts.EnableUI,
		UIPort:        opts.UIPort,
		LogLevel:      opts.LogLevel,
		PlainStartDev: opts.PlainStartDev,
		ExtraArgs:     opts.ExtraArgs,
		Output:        opts.Output,
		ClientOptions: opts.ClientOptions,
		StartTimeout:  opts.StartTimeout,
		StopTimeout:   opts.StopTimeout,
	})
	if err != nil {
		return nil, fmt.Errorf("testsuite: %w", err)
	}
	return &DevServer{server: s}, nil
}

// The environment variables that point tests at a server that runs already.
const (
	// TestServerEnv names the variable that holds a Temporal server's
	// frontend, host:port. When it is set and not empty, DevServerFor
	// connects to that server instead of starting a dev server
	// (DevServerOptions.Address), so that the same tests run on the dev
	// server by default and on a production stack when asked.
	TestServerEnv = "TEMPORALADK_TEST_SERVER"
	// TestServerRestartEnv names the variable that holds the command, run
	// with `sh -c`, that restarts the server of TestServerEnv: the
	// DevServer's Restart runs it (DevServerOptions.RestartCommand). Unset
	// or empty, Restart fails.
	TestServerRestartEnv = "TEMPORALADK_TEST_SERVER_RESTART"
)

// attach connects to the server at opts.Address (StartDevServer).
func attach(ctx context.Context, opts DevServerOptions) (*DevServer, error) {
	var refused []string
	if opts.EnableUI {
		refused = append(refused, "EnableUI")
	}
	if opts.UIPort != 0 {
		refused = append(refused, "UIPort")
	}
	if opts.Port != 0 {
		refused = append(refused, "Port")
	}
	if len(opts.ExtraArgs) > 0 {
		refused = append(refused, "ExtraArgs")
	}
	if len(refused) > 0 {
		return nil, fmt.Errorf("testsuite: the server at %s runs already, so DevServerOptions.%s cannot apply to it", opts.Address, strings.Join(refused, ", DevServerOptions."))
	}
	s, err := devserver.Attach(ctx, devserver.AttachOptions{
		Address:        opts.Address,
		RestartCommand: opts.RestartCommand,
		Namespace:      opts.Namespace,
		ClientOptions:  opts.ClientOptions,
		StartTimeout:   opts.StartTimeout,
		Output:         opts.Output,
	})
	if err != nil {
		return nil, fmt.Errorf("testsuite: %w", err)
	}
	return &DevServer{server: s}, nil
}

// startForTest is StartDevServer, connected to the server of TestServerEnv
// when that is set and opts name no Address of their own.
func startForTest(ctx context.Context, opts DevServerOptions) (*DevServer, error) {
	address := os.Getenv(TestServerEnv)
	if address == "" || opts.Address != "" {
		return StartDevServer(ctx, opts)
	}
	opts.Address, opts.RestartCommand = address, os.Getenv(TestServerRestartEnv)
	s, err := StartDevServer(ctx, opts)
	if err != nil {
		return nil, fmt.Errorf("%w (from %s=%s)", err, TestServerEnv, address)
	}
	return s, nil
}

// Address is the frontend's host:port, for client.Options.HostPort.
func (s *DevServer) Address() string { return s.server.Address() }

// UIAddress is the Web UI's host:port, or "" when EnableUI is false.
func (s *DevServer) UIAddress() string { return s.server.UIAddress() }

// Namespace is the namespace registered at start and used by Client.
func (s *DevServer) Namespace() string { return s.server.Namespace() }

// Client is connected to the server's namespace. It stays valid across
// Restart; Stop closes it, so stop workers built on it first.
func (s *DevServer) Client() client.Client { return s.server.Client() }

// PID is the server process's id, which is also its process group id on
// Unix, or 0 after Stop and for a server at DevServerOptions.Address.
func (s *DevServer) PID() int { return s.server.PID() }

// Restart stops the server process and starts it again on the same port and
// DBFile, then waits until it answers. Client and workers reconnect on their
// own. Without a DBFile, all state is lost. Between the two processes the
// port is held in TIME_WAIT (on Linux and the other systems that hand out
// free ports at random), so that no other process asking for a free port
// is handed it; a port taken anyway is an error that says so. A server at
// DevServerOptions.Address is restarted by RestartCommand instead.
func (s *DevServer) Restart(ctx context.Context) error {
	if err := s.server.Restart(ctx); err != nil {
		return fmt.Errorf("testsuite: %w", err)
	}
	return nil
}

// Stop closes Client and ends the server's process group, then waits for it
// to exit. It is safe to call more than once. For a server at
// DevServerOptions.Address it only closes Client: the server is not this
// process's.
func (s *DevServer) Stop() error {
	if err := s.server.Stop(); err != nil {
		return fmt.Errorf("testsuite: %w", err)
	}
	return nil
}

// shared is the dev server of RunWithDevServer, started on first use.
var shared struct {
	mu      sync.Mutex
	enabled bool
	opts    DevServerOptions
	server  *DevServer
	err     error
}

// RunWithDevServer runs a package's tests with one dev server, started with
// opts, that they share through DevServerFor. The server starts at the
// first DevServerFor(t) call, so `go test -run Unit` starts none, and is
// stopped after the tests. Call it from TestMain and pass its result to
// os.Exit:
//
//	func TestMain(m *testing.M) { os.Exit(testsuite.RunWithDevServer(m, testsuite.DevServerOptions{})) }
//
// If a test panics or the binary times out, TestMain does not get to stop
// the server; on Linux the kernel kills it with the test binary.
func RunWithDevServer(m *testing.M, opts DevServerOptions) int {
	opts.ExtraArgs = append([]string(nil), opts.ExtraArgs...)
	shared.mu.Lock()
	shared.enabled, shared.opts = true, opts
	shared.mu.Unlock()
	defer func() {
		shared.mu.Lock()
		defer shared.mu.Unlock()
		if shared.server != nil {
			if err := shared.server.Stop(); err != nil {
				fmt.Fprintln(os.Stderr, err)
			}
			shared.server = nil
		}
		shared.enabled = false
	}()
	return m.Run()
}

// DevServerFor returns a dev server for the test t, the one way a test gets
// one. Without opts it is the test binary's shared server, the one
// RunWithDevServer starts at the first such call: tests that share it use
// their own task queues and workflow IDs. With opts (one value, which may
// be the zero value) it is a server of t's own, started with them and
// stopped in t.Cleanup, which also runs when the test fails or panics: for
// a test that restarts or kills its server, or needs other ExtraArgs.
//
// When TestServerEnv is set, either is the server there instead
// (DevServerOptions.Address), and Restart runs TestServerRestartEnv's
// command. DevServerFor fails the test when the server cannot start, when
// it gets more than one DevServerOptions, or, without opts, when TestMain
// does not call RunWithDevServer. Under `go test -short` it skips the
// test: -short runs the tests that need no server (the unit tests) alone.
func DevServerFor(t testing.TB, opts ...DevServerOptions) *DevServer {
	t.Helper()
	SkipShort(t)
	switch len(opts) {
	case 0:
		return sharedDevServer(t)
	case 1:
	default:
		t.Fatalf("testsuite: DevServerFor got %d DevServerOptions: pass none for the shared server, or one for a server of this test's own", len(opts))
	}
	s, err := startForTest(context.Background(), opts[0])
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := s.Stop(); err != nil {
			t.Errorf("testsuite: stopping the dev server: %v", err)
		}
	})
	return s
}

// sharedDevServer is the test binary's shared server, started at the first
// call.
func sharedDevServer(t testing.TB) *DevServer {
	t.Helper()
	shared.mu.Lock()
	defer shared.mu.Unlock()
	if !shared.enabled {
		t.Fatal("testsuite: DevServerFor(t) shares the test binary's dev server, which needs the package's TestMain to call testsuite.RunWithDevServer; or pass DevServerOptions for a server of this test's own")
	}
	if shared.server == nil && shared.err == nil {
		shared.server, shared.err = startForTest(context.Background(), shared.opts)
	}
	if shared.err != nil {
		t.Fatalf("testsuite: the shared dev server did not start: %v", shared.err)
	}
	return shared.server
}

// ShortSkipMessage is what a test that needs a dev server is skipped with
// under `go test -short`.
const ShortSkipMessage = "testsuite: -short runs only the tests that need no dev server"

// SkipShort skips t under `go test -short`, with ShortSkipMessage: the one
// place that decides which tests -short leaves out, those that need a dev
// server. DevServerFor calls it; a test that starts a server another way (a
// program that starts its own) calls it first.
func SkipShort(t testing.TB) {
	t.Helper()
	if testing.Short() {
		t.Skip(ShortSkipMessage)
	}
}
