// Package blobtest starts a real S3-compatible server for tests of the
// payload store: versitygw (Apache 2.0) over a temporary directory, built
// from the Go module proxy when it is missing, on a free 127.0.0.1 port.
//
//	srv := blobtest.StartS3(t)            // stopped in t.Cleanup
//	t.Setenv("AWS_ACCESS_KEY_ID", srv.AccessKey)
//	t.Setenv("AWS_SECRET_ACCESS_KEY", srv.SecretKey)
//	bucket, _ := blob.Open(ctx, srv.URL("payloads"))
package blobtest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/temporaladk/adk-go/testsuite"
)

// VersityGW is the module the server is built from.
const VersityGW = "github.com/versity/versitygw/cmd/versitygw@v1.8.0"

// S3 is a running versitygw.
type S3 struct {
	// Endpoint is http://127.0.0.1:port.
	Endpoint string
	// AccessKey and SecretKey are the root account's.
	AccessKey, SecretKey string
	// Dir is the directory the server keeps its buckets in, one
	// subdirectory per bucket.
	Dir string

	cmd    *exec.Cmd
	output *bytes.Buffer
}

// URL is a gocloud.dev/blob URL of bucket on the server (made if missing).
func (s *S3) URL(bucket string) string {
	return fmt.Sprintf("s3://%s?endpoint=%s&region=us-east-1&use_path_style=true&disable_https=true", bucket, s.Endpoint)
}

// MakeBucket makes a bucket (a directory of the server's).
func (s *S3) MakeBucket(name string) error {
	return os.MkdirAll(filepath.Join(s.Dir, name), 0o755)
}

// Binary returns the versitygw executable: VERSITYGW if set, else
// testsuite.GoTool's (PATH, GOBIN, each GOPATH/bin, or built there with
// `go install VersityGW`).
func Binary(ctx context.Context) (string, error) {
	if p := os.Getenv("VERSITYGW"); p != "" {
		return p, nil
	}
	return testsuite.GoTool(ctx, "versitygw", VersityGW)
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// Start starts a server over dir and waits until it answers. Stop it with
// Stop.
func Start(ctx context.Context, dir string) (*S3, error) {
	bin, err := Binary(ctx)
	if err != nil {
		return nil, err
	}
	port, err := freePort()
	if err != nil {
		return nil, fmt.Errorf("blobtest: %w", err)
	}
	s := &S3{
		Endpoint:  fmt.Sprintf("http://127.0.0.1:%d", port),
		AccessKey: "temporaladk", SecretKey: "temporaladk-secret",
		Dir:    dir,
		output: &bytes.Buffer{},
	}
	s.cmd = exec.Command(bin, "--access", s.AccessKey, "--secret", s.SecretKey, "--quiet",
		"--port", fmt.Sprintf("127.0.0.1:%d", port), "posix", "--nometa", dir)
	s.cmd.Stdout, s.cmd.Stderr = s.output, s.output
	s.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := s.cmd.Start(); err != nil {
		return nil, fmt.Errorf("blobtest: starting %s: %w", bin, err)
	}
	exited := make(chan error, 1)
	go func() { exited <- s.cmd.Wait() }()
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	for {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, s.Endpoint+"/", nil)
		if resp, err := http.DefaultClient.Do(req); err == nil {
			resp.Body.Close()
			s.cmd.Cancel = nil
			go func() { <-exited }()
			return s, nil
		}
		select {
		case err := <-exited:
			return nil, fmt.Errorf("blobtest: versitygw exited before it answered: %v\n%s", err, s.output)
		case <-ctx.Done():
			_ = s.cmd.Process.Kill()
			return nil, fmt.Errorf("blobtest: versitygw did not answer on %s: %w\n%s", s.Endpoint, ctx.Err(), s.output)
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// Stop kills the server.
func (s *S3) Stop() error {
	if err := s.cmd.Process.Kill(); err != nil && !errors.Is(err, os.ErrProcessDone) {
		return err
	}
	return nil
}

// StartS3 starts a server over a temporary directory for one test, stopped
// in t.Cleanup, with a bucket "payloads".
func StartS3(t testing.TB) *S3 {
	t.Helper()
	s, err := Start(context.Background(), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := s.Stop(); err != nil {
			t.Errorf("blobtest: stopping versitygw: %v", err)
		}
	})
	if err := s.MakeBucket("payloads"); err != nil {
		t.Fatal(err)
	}
	return s
}
