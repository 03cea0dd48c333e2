package devserver

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// fakeFS says which paths are executable files.
func fakeFS(executables ...string) func(string) error {
	return func(path string) error {
		for _, e := range executables {
			if path == e {
				return nil
			}
		}
		return fs.ErrNotExist
	}
}

func TestLocate(t *testing.T) {
	t.Parallel()
	sep := string(os.PathListSeparator)
	env := Environment{Path: "/usr/bin" + sep + "/opt/bin", GOBIN: "/gobin", GOPATH: "/gp1" + sep + "/gp2"}
	tests := []struct {
		name     string
		explicit string
		env      Environment
		files    []string
		want     string
		wantErr  string
	}{
		{"explicit wins", "/my/temporal", env, []string{"/my/temporal", "/usr/bin/temporal"}, "/my/temporal", ""},
		{"explicit missing is an error, not skipped", "/my/temporal", env, []string{"/usr/bin/temporal"}, "", `"/my/temporal" (CLIPath option)`},
		{"env var before PATH", "", withCLI(env, "/env/temporal"), []string{"/env/temporal", "/usr/bin/temporal"}, "/env/temporal", ""},
		{"env var missing is an error", "", withCLI(env, "/env/temporal"), []string{"/usr/bin/temporal"}, "", `"/env/temporal" (TEMPORAL_CLI)`},
		{"PATH in order", "", env, []string{"/opt/bin/temporal", "/gobin/temporal"}, "/opt/bin/temporal", ""},
		{"GOBIN before GOPATH", "", env, []string{"/gobin/temporal", "/gp1/bin/temporal"}, "/gobin/temporal", ""},
		{"second GOPATH entry", "", env, []string{"/gp2/bin/temporal"}, "/gp2/bin/temporal", ""},
		{"nowhere", "", env, nil, "", "searched /usr/bin" + sep + "/opt/bin" + sep + "/gobin" + sep + "/gp1/bin" + sep + "/gp2/bin"},
		{"empty environment", "", Environment{}, nil, "", "temporal CLI not found"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := Locate(tt.explicit, tt.env, fakeFS(tt.files...))
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("Locate() error = %v, want it to contain %q", err, tt.wantErr)
				}
				return
			}
			if err != nil || got != filepath.FromSlash(tt.want) && got != tt.want {
				t.Fatalf("Locate() = %q, %v; want %q", got, err, tt.want)
			}
		})
	}
}

func withCLI(env Environment, path string) Environment {
	env.TemporalCLI = path
	return env
}

func TestLocateNotFoundWrapsSentinel(t *testing.T) {
	t.Parallel()
	_, err := Locate("", Environment{Path: "/nowhere"}, fakeFS())
	if !errors.Is(err, ErrCLINotFound) {
		t.Fatalf("error %v does not wrap ErrCLINotFound", err)
	}
}

func TestInstallDir(t *testing.T) {
	t.Parallel()
	sep := string(os.PathListSeparator)
	tests := []struct {
		name    string
		env     Environment
		want    string
		wantErr bool
	}{
		{"GOBIN", Environment{GOBIN: "/gobin", GOPATH: "/gp"}, "/gobin", false},
		{"first GOPATH entry", Environment{GOPATH: "/gp1" + sep + "/gp2"}, filepath.Join("/gp1", "bin"), false},
		{"neither", Environment{}, "", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := InstallDir(tt.env)
			if (err != nil) != tt.wantErr || got != tt.want {
				t.Fatalf("InstallDir() = %q, %v; want %q, error %v", got, err, tt.want, tt.wantErr)
			}
		})
	}
}

func TestIsExecutable(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	exe := filepath.Join(dir, "exe")
	plain := filepath.Join(dir, "plain")
	if err := os.WriteFile(exe, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(plain, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := IsExecutable(exe); err != nil {
		t.Errorf("IsExecutable(exe) = %v", err)
	}
	for _, bad := range []string{plain, dir, filepath.Join(dir, "missing")} {
		if IsExecutable(bad) == nil {
			t.Errorf("IsExecutable(%s) = nil, want an error", bad)
		}
	}
}

// fakeBuilder writes a script where the CLI would be, counting builds.
func fakeBuilder(builds *atomic.Int32, delay time.Duration) Builder {
	return func(ctx context.Context, dir string) error {
		builds.Add(1)
		time.Sleep(delay) // stands in for minutes of compiling; keeps the lock held
		return os.WriteFile(filepath.Join(dir, exeName()), []byte("#!/bin/sh\n"), 0o755)
	}
}

func TestEnsureBuildsOnceForParallelCallers(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "bin")
	var builds atomic.Int32
	var progress syncBuffer
	var wg sync.WaitGroup
	paths := make([]string, 4)
	errs := make([]error, 4)
	for i := range paths {
		wg.Go(func() {
			paths[i], errs[i] = Ensure(context.Background(), dir, &progress, fakeBuilder(&builds, 300*time.Millisecond))
		})
	}
	wg.Wait()
	for i := range paths {
		if errs[i] != nil || paths[i] != filepath.Join(dir, exeName()) {
			t.Fatalf("caller %d: Ensure() = %q, %v", i, paths[i], errs[i])
		}
	}
	if n := builds.Load(); n != 1 {
		t.Errorf("built %d times, want 1", n)
	}
	if n := strings.Count(progress.String(), ProgressLine+"\n"); n < 1 || n > 4 {
		t.Errorf("progress line printed %d times for 4 callers, want 1 per waiting caller", n)
	}
	// The one caller that built says where the CLI goes before, and what it
	// built, how long it took and its size after.
	target := filepath.Join(dir, exeName())
	if n := strings.Count(progress.String(), "the CLI goes to "+target); n != 1 {
		t.Errorf("the destination was said %d times, want 1:\n%s", n, progress.String())
	}
	if !regexp.MustCompile(`built the Temporal CLI in \d+s: ` + regexp.QuoteMeta(target) + ` \(\d+ MB\)`).MatchString(progress.String()) {
		t.Errorf("no line says what was built, in how long and how large:\n%s", progress.String())
	}
	leftovers, _ := filepath.Glob(filepath.Join(dir, ".temporal-cli-build-*"))
	if len(leftovers) != 0 {
		t.Errorf("temporary build directories left behind: %v", leftovers)
	}
	// A second round finds the CLI and neither builds nor prints.
	before := progress.String()
	if _, err := Ensure(context.Background(), dir, &progress, fakeBuilder(&builds, 0)); err != nil {
		t.Fatal(err)
	}
	if builds.Load() != 1 || progress.String() != before {
		t.Errorf("Ensure rebuilt or printed although the CLI was there")
	}
}

func TestEnsureReportsBuildFailure(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	boom := errors.New("boom")
	_, err := Ensure(context.Background(), dir, nil, func(context.Context, string) error { return boom })
	if !errors.Is(err, boom) {
		t.Fatalf("Ensure() error = %v, want it to wrap the build error", err)
	}
	_, err = Ensure(context.Background(), dir, nil, func(context.Context, string) error { return nil })
	if err == nil || !strings.Contains(err.Error(), "produced no executable") {
		t.Fatalf("Ensure() with an empty build = %v, want a 'produced no executable' error", err)
	}
	if IsExecutable(filepath.Join(dir, exeName())) == nil {
		t.Fatal("a failed build left a CLI in place")
	}
}

func TestEnsureWaitEndsWithContext(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	unlock, err := lock(context.Background(), lockPath(dir))
	if err != nil {
		t.Fatal(err)
	}
	defer unlock()
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	var builds atomic.Int32
	_, err = Ensure(ctx, dir, nil, fakeBuilder(&builds, 0))
	if !errors.Is(err, context.DeadlineExceeded) || builds.Load() != 0 {
		t.Fatalf("Ensure() while another holds the lock = %v (builds %d), want a deadline error and no build", err, builds.Load())
	}
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
