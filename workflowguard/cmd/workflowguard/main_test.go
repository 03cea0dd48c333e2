package main

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestCommand builds the command and runs it, standalone and as a go vet tool, over a throwaway
// module whose go.temporal.io/sdk is the testdata stub (so nothing is fetched).
func TestCommand(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	bin := filepath.Join(dir, "workflowguard")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	mod := filepath.Join(dir, "mod")
	stub := filepath.Join("..", "..", "testdata", "src", "go.temporal.io", "sdk")
	files := map[string]string{
		"go.mod":                   "module example.com/guardtest\n\ngo 1.26\n\nrequire go.temporal.io/sdk v1.51.0\n\nreplace go.temporal.io/sdk => ./sdk\n",
		"sdk/go.mod":               "module go.temporal.io/sdk\n\ngo 1.26\n",
		"sdk/internal/internal.go": readFile(t, filepath.Join(stub, "internal", "internal.go")),
		"sdk/workflow/workflow.go": readFile(t, filepath.Join(stub, "workflow", "workflow.go")),
		"clean/clean.go": `package clean

import (
	"time"

	"go.temporal.io/sdk/workflow"
)

func Workflow(ctx workflow.Context) time.Time { return workflow.Now(ctx) }
`,
		"findings/findings.go": `package findings

import (
	"time"

	"go.temporal.io/sdk/workflow"
)

func Workflow(ctx workflow.Context) time.Time { return time.Now() }
`,
		"fixme/fixme.go": `package fixme

import (
	"time"

	"go.temporal.io/sdk/workflow"
)

func Workflow(ctx workflow.Context) time.Duration {
	start := time.Now()
	time.Sleep(time.Second)
	go func() {}()
	return time.Since(start)
}
`,
		"partfix/partfix.go": `package partfix

import (
	"math/rand"
	"os"
	"time"

	"go.temporal.io/sdk/workflow"
)

func Workflow(ctx workflow.Context) (time.Time, int, string) {
	return time.Now(), rand.Intn(10), os.Getenv("HOME")
}
`,
		"likely/likely.go": `package likely

import (
	"time"

	"go.temporal.io/sdk/workflow"
)

var startedAt = time.Now()

func Workflow(ctx workflow.Context) time.Duration { return workflow.Now(ctx).Sub(startedAt) }
`,
		"broken/broken.go": `package broken

import "go.temporal.io/sdk/workflow"

func Workflow(ctx workflow.Context) int { return "not an int" }
`,
	}
	files["partfixtoo/partfixtoo.go"] = strings.Replace(files["partfix/partfix.go"], "package partfix", "package partfixtoo", 1)
	writeFiles(t, mod, files)

	tests := []struct {
		name     string
		args     []string
		wantCode int
		want     string            // in the combined output
		wantFile map[string]string // file → text it holds afterwards
	}{
		{"clean package exits 0", []string{bin, "./clean"}, 0, "", nil},
		{"findings exit 3", []string{bin, "./findings"}, 3, "findings.go:9:56: ADK-W003 wall clock on the workflow path (time.Now); use workflow.Now(ctx)", nil},
		{"type errors exit 1 without a panic", []string{bin, "./broken"}, 1, "cannot use \"not an int\"", nil},
		{"go vet -vettool reports findings", []string{"go", "vet", "-vettool=" + bin, "./findings"}, 1, "ADK-W003 wall clock on the workflow path (time.Now)", nil},
		{"go vet -vettool is quiet on clean code", []string{"go", "vet", "-vettool=" + bin, "./clean"}, 0, "", nil},
		{"go vet passes the providers flag", []string{"go", "vet", "-vettool=" + bin, "-providers=example.com/llm", "./clean"}, 0, "", nil},
		{"the lean driver takes the providers flag", []string{bin, "-providers=example.com/llm", "./clean"}, 0, "", nil},
		{"singlechecker reports what the lean driver reports", []string{bin, "-test=true", "./findings"}, 3,
			"findings.go:9:56: ADK-W003 wall clock on the workflow path (time.Now); use workflow.Now(ctx)", nil},
		{"a likely finding is reported and says so", []string{bin, "./likely"}, 3,
			"ADK-W007 process-global state on the workflow path (likely: example.com/guardtest/likely.startedAt, set from time.Now)", nil},
		{"-likely=false leaves likely findings out", []string{bin, "-likely=false", "./likely"}, 0, "", nil},
		{"go vet passes -likely=false", []string{"go", "vet", "-vettool=" + bin, "-likely=false", "./likely"}, 0, "", nil},
		{"go vet reports a likely finding", []string{"go", "vet", "-vettool=" + bin, "./likely"}, 1, "likely: example.com/guardtest/likely.startedAt", nil},
		{"a pattern that matches nothing exits 1", []string{bin, "./nothing"}, 1, "nothing", nil},
		{"-fix applies the suggested fixes", []string{bin, "-fix", "./fixme"}, 0, "", map[string]string{
			"fixme/fixme.go": "\tstart := workflow.Now(ctx)\n\tworkflow.Sleep(ctx, time.Second)\n" +
				"\tworkflow.Go(ctx, func(ctx workflow.Context) {})\n\treturn workflow.Now(ctx).Sub(start)\n",
		}},
		{"-fix exits 3 and prints the findings it could not fix", []string{bin, "-fix", "./partfix"}, 3,
			"partfix.go:12:28: ADK-W002 random draw on the workflow path (math/rand.Intn)", map[string]string{
				"partfix/partfix.go": "\treturn workflow.Now(ctx), rand.Intn(10), os.Getenv(\"HOME\")\n",
			}},
		{"-fix=true is -fix", []string{bin, "-fix=true", "./partfixtoo"}, 3, "partfixtoo.go:12:43: ADK-W004", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			code, out := runInModule(t, mod, tt.args...)
			if code != tt.wantCode {
				t.Errorf("exit code %d, want %d\n%s", code, tt.wantCode, out)
			}
			if !strings.Contains(out, tt.want) {
				t.Errorf("output lacks %q:\n%s", tt.want, out)
			}
			for file, text := range tt.wantFile {
				if got := readFile(t, filepath.Join(mod, file)); !strings.Contains(got, text) {
					t.Errorf("%s after the run:\n%s\nwant it to hold:\n%s", file, got, text)
				}
			}
			if strings.Contains(out, "panic") {
				t.Errorf("output has a panic:\n%s", out)
			}
		})
	}
}

// writeFiles writes each file of files, by its slash-separated path under
// dir, making the directories it needs.
func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		path := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// runInModule runs args in the module at dir, offline and outside any
// workspace, and returns its exit code and its output, stdout and stderr
// interleaved. A command that cannot start fails the test.
func runInModule(t *testing.T, dir string, args ...string) (int, string) {
	t.Helper()
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOWORK=off", "GOPROXY=off")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		return exit.ExitCode(), out.String()
	} else if err != nil {
		t.Fatal(err)
	}
	return 0, out.String()
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestVetMatchesCommand runs the command and go vet -vettool over a copy of the workspace of
// ../../testdata/modules (a workflow with a hazard of each kind followed through libraries,
// iterators, deadlines, global state and generic helpers, and an implementation wired in by a
// worker's main) and checks that both report the same file, line, column and rule.
func TestVetMatchesCommand(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	bin := filepath.Join(dir, "workflowguard")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	ws := filepath.Join(dir, "modules")
	if err := os.CopyFS(ws, os.DirFS(filepath.Join("..", "..", "testdata", "modules"))); err != nil {
		t.Fatal(err)
	}
	findings := func(args ...string) []string {
		cmd := exec.Command(args[0], args[1:]...)
		cmd.Dir = ws
		cmd.Env = append(os.Environ(), "GOWORK="+filepath.Join(ws, "go.work"), "GOPROXY=off", "GOFLAGS=")
		out, _ := cmd.CombinedOutput()
		var got []string
		for line := range strings.SplitSeq(string(out), "\n") {
			pos, rest, ok := strings.Cut(line, ": ")
			if !ok || !strings.HasPrefix(rest, "ADK-W") {
				continue
			}
			if rel, err := filepath.Rel(ws, pos); err == nil && filepath.IsAbs(pos) {
				pos = rel
			}
			got = append(got, filepath.ToSlash(strings.TrimPrefix(pos, "./"))+" "+rest[:len("ADK-W000")])
		}
		slices.Sort(got)
		return got
	}
	command := findings(bin, "./...", "./pool/...")
	vet := findings("go", "vet", "-vettool="+bin, "./...", "./pool/...")
	for _, want := range []string{"kinds/kinds.go", "cmd/worker/main.go"} {
		if !slices.ContainsFunc(command, func(f string) bool { return strings.HasPrefix(f, want+":") }) {
			t.Errorf("the command reports nothing in %s:\n%s", want, strings.Join(command, "\n"))
		}
	}
	if !slices.Equal(command, vet) {
		t.Errorf("the command reports\n%s\ngo vet -vettool reports\n%s", strings.Join(command, "\n"), strings.Join(vet, "\n"))
	}
}
