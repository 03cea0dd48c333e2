package devserver

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"time"
)

// ProgressLine is printed once, to the progress writer, by a process that is
// about to build the CLI (or to wait for another process building it).
const ProgressLine = "temporaladk: building the Temporal CLI " + CLIVersion +
	" from the Go module proxy (first run only, takes a few minutes)..."

// Builder builds the CLI into dir, an empty directory it may fill. The result
// must be dir/temporal (temporal.exe on Windows).
type Builder func(ctx context.Context, dir string) error

// GoInstall is the real Builder: `go install CLIModule@CLIVersion` with GOBIN
// set to dir. It downloads modules through the Go module proxy as configured,
// never a prebuilt binary.
func GoInstall(ctx context.Context, dir string) error {
	cmd := exec.CommandContext(ctx, "go", "install", CLIModule+"@"+CLIVersion)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOBIN="+dir, "GOWORK=off")
	var out bytes.Buffer
	cmd.Stdout = &out
	cmd.Stderr = &out
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("devserver: go install %s@%s: %w\n%s", CLIModule, CLIVersion, err, tail(out.Bytes(), 4096))
	}
	return nil
}

// Ensure returns the CLI in installDir, building it there with build when it
// is missing. Parallel callers (goroutines or processes, such as the test
// binaries of `go test ./...`) serialise on a lock file, so only one builds
// and the others find its result; the build goes to a temporary directory and
// is renamed into place, so nobody ever sees a half-written binary. Each
// caller that does not find the CLI prints ProgressLine once to progress
// (nil discards it).
func Ensure(ctx context.Context, installDir string, progress io.Writer, build Builder) (string, error) {
	target := filepath.Join(installDir, exeName())
	if IsExecutable(target) == nil {
		return target, nil
	}
	if progress != nil {
		fmt.Fprintln(progress, ProgressLine)
	}
	if err := os.MkdirAll(installDir, 0o755); err != nil {
		return "", fmt.Errorf("devserver: creating the CLI build directory: %w", err)
	}
	unlock, err := lock(ctx, lockPath(installDir))
	if err != nil {
		return "", err
	}
	defer unlock()
	if IsExecutable(target) == nil { // another process built it while we waited
		return target, nil
	}
	tmp, err := os.MkdirTemp(installDir, ".temporal-cli-build-")
	if err != nil {
		return "", fmt.Errorf("devserver: creating a temporary build directory: %w", err)
	}
	defer os.RemoveAll(tmp)
	if progress != nil {
		fmt.Fprintf(progress, "temporaladk: the CLI goes to %s (about 250 MB); progress every %v\n", target, progressEvery)
	}
	start := time.Now()
	stop := reportProgress(progress, start)
	err = build(ctx, tmp)
	stop()
	if err != nil {
		return "", err
	}
	built := filepath.Join(tmp, exeName())
	if err := IsExecutable(built); err != nil {
		return "", fmt.Errorf("devserver: the CLI build produced no executable %s: %w", built, err)
	}
	if err := os.Rename(built, target); err != nil {
		return "", fmt.Errorf("devserver: moving the built CLI into place: %w", err)
	}
	if progress != nil {
		size := "?"
		if fi, err := os.Stat(target); err == nil {
			size = fmt.Sprintf("%.0f MB", float64(fi.Size())/1e6)
		}
		fmt.Fprintf(progress, "temporaladk: built the Temporal CLI in %v: %s (%s)\n", time.Since(start).Round(time.Second), target, size)
	}
	return target, nil
}

// progressEvery is how often a build says it is still going.
const progressEvery = 30 * time.Second

// reportProgress prints, every progressEvery until stop is called, how long
// the build has run, so that a first run is not minutes of silence. A nil
// progress prints nothing.
func reportProgress(progress io.Writer, start time.Time) (stop func()) {
	if progress == nil {
		return func() {}
	}
	done := make(chan struct{})
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		ticker := time.NewTicker(progressEvery)
		defer ticker.Stop()
		for {
			select {
			case <-done:
				return
			case <-ticker.C:
				fmt.Fprintf(progress, "temporaladk: still building the Temporal CLI (%v so far)\n", time.Since(start).Round(time.Second))
			}
		}
	}()
	return func() { close(done); <-finished }
}

// lockPath is a lock file for builds into installDir. It lives in the user
// cache directory (the temp directory if there is none), not in installDir,
// so GOBIN is not littered with lock files.
func lockPath(installDir string) string {
	base, err := os.UserCacheDir()
	if err != nil {
		base = os.TempDir()
	}
	abs, err := filepath.Abs(installDir)
	if err != nil {
		abs = installDir
	}
	sum := sha256.Sum256([]byte(abs))
	return filepath.Join(base, "temporaladk", "temporal-cli-build-"+hex.EncodeToString(sum[:8])+".lock")
}

// lock takes an exclusive lock on path, polling so that ctx can end the wait.
func lock(ctx context.Context, path string) (unlock func(), err error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, fmt.Errorf("devserver: creating the lock directory: %w", err)
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, fmt.Errorf("devserver: opening the build lock: %w", err)
	}
	ticker := time.NewTicker(200 * time.Millisecond)
	defer ticker.Stop()
	for {
		locked, err := tryLock(f)
		if err != nil {
			f.Close()
			return nil, fmt.Errorf("devserver: locking %s: %w", path, err)
		}
		if locked {
			return func() { unlockFile(f); f.Close() }, nil
		}
		select {
		case <-ctx.Done():
			f.Close()
			return nil, fmt.Errorf("devserver: waiting for another build of the Temporal CLI: %w", ctx.Err())
		case <-ticker.C:
		}
	}
}

// tail returns at most the last n bytes of b.
func tail(b []byte, n int) []byte {
	if len(b) > n {
		return b[len(b)-n:]
	}
	return b
}
