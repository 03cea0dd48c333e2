//go:build golangcilint

package golangci_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"
)

// customConfig is the part of golangci-lint's .custom-gcl.yml that the test reads and rewrites.
type customConfig struct {
	Version     string         `yaml:"version"`
	Name        string         `yaml:"name,omitempty"`
	Destination string         `yaml:"destination,omitempty"`
	Plugins     []customPlugin `yaml:"plugins"`
}

type customPlugin struct {
	Module  string `yaml:"module"`
	Import  string `yaml:"import,omitempty"`
	Version string `yaml:"version,omitempty"`
	Path    string `yaml:"path,omitempty"`
}

// finding is one reported hazard: the file relative to the repository root, the position and
// the rule code.
type finding struct {
	File         string
	Line, Column int
	Rule         string
}

func (f finding) String() string { return fmt.Sprintf("%s:%d:%d %s", f.File, f.Line, f.Column, f.Rule) }

func compareFindings(a, b finding) int {
	return strings.Compare(a.String(), b.String())
}

const coreModule = "github.com/temporaladk/adk-go"

// TestCustomBinary builds a golangci-lint binary with the plugin, as the README says
// (golangci-lint installed from the module proxy, then `golangci-lint custom` on this
// directory's .custom-gcl.yml with the plugin pointing at this checkout), and runs it with this
// directory's .golangci.yml: on samples/guard it reports exactly what the workflowguard command
// reports there (file, line, column and rule), on samples/agent nothing, and with the rules
// setting narrowed to one rule only that rule's findings.
//
// golangci-lint custom clones golangci-lint's GitHub repository at the version; the test gives
// git the module proxy's source of the same version instead (url.insteadOf), so the build needs
// no network beyond the module proxy. It runs in .ci/run under the golangcilint build tag.
func TestCustomBinary(t *testing.T) {
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	if out := goCmd(t, root, []string{"GOWORK=off"}, "list", "-m"); strings.TrimSpace(out) != coreModule {
		t.Fatalf("%s is module %q, want %s", root, strings.TrimSpace(out), coreModule)
	}
	tmp := t.TempDir()
	env := []string{"GOWORK=off", "TMPDIR=" + mkdir(t, tmp, "tmp")}

	// The example build configuration, with the plugin taken from this checkout.
	raw, err := os.ReadFile(".custom-gcl.yml")
	if err != nil {
		t.Fatal(err)
	}
	var build customConfig
	if err := yaml.Unmarshal(raw, &build); err != nil {
		t.Fatalf(".custom-gcl.yml: %v", err)
	}
	if len(build.Plugins) != 1 || build.Plugins[0].Module != coreModule || build.Plugins[0].Import != coreModule+"/workflowguard/golangci" ||
		build.Plugins[0].Version == "" || build.Version == "" || build.Name == "" {
		t.Fatalf(".custom-gcl.yml = %+v, want golangci-lint's version, a name and one plugin: module %s, import of this package, a version", build, coreModule)
	}
	build.Plugins[0].Version, build.Plugins[0].Path = "", root
	build.Destination = mkdir(t, tmp, "bin")
	buildDir := mkdir(t, tmp, "build")
	out, err := yaml.Marshal(build)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(buildDir, ".custom-gcl.yml"), out, 0o644); err != nil {
		t.Fatal(err)
	}

	// golangci-lint itself, from the module proxy, into an empty GOBIN.
	gobin := mkdir(t, tmp, "gobin")
	start := time.Now()
	goCmd(t, tmp, append(env, "GOBIN="+gobin), "install", "github.com/golangci/golangci-lint/v2/cmd/golangci-lint@"+build.Version)
	t.Logf("go install golangci-lint@%s: %.1f s", build.Version, time.Since(start).Seconds())

	// The source golangci-lint custom clones: the module proxy's, as a git repository tagged
	// with the version.
	start = time.Now()
	src := proxySource(t, tmp, env, "github.com/golangci/golangci-lint/v2", build.Version)
	gitEnv := append(env,
		"GIT_CONFIG_COUNT=1",
		"GIT_CONFIG_KEY_0=url.file://"+filepath.ToSlash(src)+".insteadOf",
		"GIT_CONFIG_VALUE_0=https://github.com/golangci/golangci-lint.git")
	run(t, buildDir, gitEnv, 0, filepath.Join(gobin, "golangci-lint"), "custom", "-v")
	binary := filepath.Join(build.Destination, build.Name)
	t.Logf("golangci-lint custom (source repository and build): %.1f s", time.Since(start).Seconds())

	// What the workflowguard command reports on samples/guard.
	guard := filepath.Join(tmp, "workflowguard")
	goCmd(t, root, nil, "build", "-o", guard, "./workflowguard/cmd/workflowguard")
	_, stderr := run(t, root, nil, 3, guard, "./samples/guard/...")
	want := guardFindings(t, root, stderr)
	t.Logf("workflowguard on samples/guard: %v", want)
	if len(want) < 2 {
		t.Fatalf("workflowguard reports %v on samples/guard, want at least two findings", want)
	}

	lintEnv := []string{"GOLANGCI_LINT_CACHE=" + mkdir(t, tmp, "lintcache")}
	config, err := filepath.Abs(".golangci.yml")
	if err != nil {
		t.Fatal(err)
	}
	lint := func(t *testing.T, config, pkgs string, status int) []finding {
		t.Helper()
		report := filepath.Join(tmp, "report.json")
		start := time.Now()
		run(t, root, lintEnv, status, binary, "run", "--config", config,
			"--path-mode", "abs", "--output.json.path", report, pkgs)
		t.Logf("custom binary on %s: %.1f s", pkgs, time.Since(start).Seconds())
		return lintFindings(t, root, report)
	}

	t.Run("samples/guard: the guard's findings", func(t *testing.T) {
		got := lint(t, config, "./samples/guard/...", 1)
		if !slices.Equal(got, want) {
			t.Errorf("custom golangci-lint on samples/guard reports\n%v\nworkflowguard reports\n%v", got, want)
		}
	})
	t.Run("samples/agent: none", func(t *testing.T) {
		if got := lint(t, config, "./samples/agent/...", 0); len(got) != 0 {
			t.Errorf("custom golangci-lint on samples/agent reports %v, want none", got)
		}
	})
	t.Run("rules narrowed to one", func(t *testing.T) {
		rule := want[0].Rule
		var only []finding
		for _, f := range want {
			if f.Rule == rule {
				only = append(only, f)
			}
		}
		if len(only) == len(want) {
			t.Fatalf("every finding on samples/guard is %s; the narrowing would show nothing", rule)
		}
		narrowed := strings.Replace(string(mustRead(t, config)), "rules: [ADK-W001, ADK-W002, ADK-W003, ADK-W004, ADK-W005, ADK-W006, ADK-W007]", "rules: ["+rule+"]", 1)
		if narrowed == string(mustRead(t, config)) {
			t.Fatal(".golangci.yml has no rules line listing the seven rules")
		}
		narrowedPath := filepath.Join(tmp, "narrowed.golangci.yml")
		if err := os.WriteFile(narrowedPath, []byte(narrowed), 0o644); err != nil {
			t.Fatal(err)
		}
		if got := lint(t, narrowedPath, "./samples/guard/...", 1); !slices.Equal(got, only) {
			t.Errorf("with rules [%s], custom golangci-lint reports\n%v\nwant\n%v", rule, got, only)
		}
	})
	t.Run("testdata/modules: the command's findings, of every kind", func(t *testing.T) {
		// A workflow with a hazard of each kind followed through libraries, iterators, deadlines,
		// global state and generic helpers, and an implementation a worker's main wires in.
		ws := filepath.Join(tmp, "modules")
		if err := os.CopyFS(ws, os.DirFS(filepath.Join("..", "testdata", "modules"))); err != nil {
			t.Fatal(err)
		}
		wsEnv := []string{"GOWORK=" + filepath.Join(ws, "go.work"), "GOPROXY=off", "GOFLAGS="}
		_, stderr := run(t, ws, wsEnv, 3, guard, "./...")
		want := guardFindings(t, ws, stderr)
		// The fixtures are not under the repository's import path: report in every package.
		everywhere := strings.Replace(string(mustRead(t, config)), "workflow-packages:\n            - github.com/temporaladk/adk-go/...\n", "", 1)
		if everywhere == string(mustRead(t, config)) {
			t.Fatal(".golangci.yml has no workflow-packages entry to leave out")
		}
		everywherePath := filepath.Join(tmp, "everywhere.golangci.yml")
		if err := os.WriteFile(everywherePath, []byte(everywhere), 0o644); err != nil {
			t.Fatal(err)
		}
		report := filepath.Join(tmp, "modules-report.json")
		run(t, ws, append(slices.Clone(lintEnv), wsEnv...), 1, binary, "run", "--config", everywherePath,
			"--path-mode", "abs", "--output.json.path", report, "./...")
		if got := lintFindings(t, ws, report); !slices.Equal(got, want) {
			t.Errorf("custom golangci-lint on testdata/modules reports\n%v\nworkflowguard reports\n%v", got, want)
		}
		t.Logf("workflowguard and golangci-lint on testdata/modules: %v", want)
	})
}

// guardFindings parses the workflowguard command's output: file:line:col: RULE message.
func guardFindings(t *testing.T, root, out string) []finding {
	t.Helper()
	line := regexp.MustCompile(`^(.+):(\d+):(\d+): (ADK-W\d{3}) `)
	var fs []finding
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		m := line.FindStringSubmatch(l)
		if m == nil {
			t.Fatalf("workflowguard printed %q, not a finding", l)
		}
		fs = append(fs, finding{File: relTo(t, root, m[1]), Line: atoi(t, m[2]), Column: atoi(t, m[3]), Rule: m[4]})
	}
	slices.SortFunc(fs, compareFindings)
	return fs
}

// lintFindings parses golangci-lint's JSON report; every issue must come from workflowguard and
// start with a rule code.
func lintFindings(t *testing.T, root, report string) []finding {
	t.Helper()
	var r struct {
		Issues []struct {
			FromLinter string
			Text       string
			Pos        struct {
				Filename     string
				Line, Column int
			}
		}
	}
	if err := json.Unmarshal(mustRead(t, report), &r); err != nil {
		t.Fatalf("golangci-lint's report: %v", err)
	}
	code := regexp.MustCompile(`^(ADK-W\d{3}) `)
	fs := []finding{}
	for _, is := range r.Issues {
		m := code.FindStringSubmatch(is.Text)
		if is.FromLinter != "workflowguard" || m == nil {
			t.Fatalf("golangci-lint reports %q from %q, want a workflowguard finding", is.Text, is.FromLinter)
		}
		fs = append(fs, finding{File: relTo(t, root, is.Pos.Filename), Line: is.Pos.Line, Column: is.Pos.Column, Rule: m[1]})
	}
	slices.SortFunc(fs, compareFindings)
	return fs
}

// proxySource returns a git repository holding the module proxy's source of module@version,
// tagged with the version.
func proxySource(t *testing.T, tmp string, env []string, module, version string) string {
	t.Helper()
	var dl struct{ Dir, Error string }
	if err := json.Unmarshal([]byte(goCmd(t, tmp, env, "mod", "download", "-json", module+"@"+version)), &dl); err != nil || dl.Dir == "" {
		t.Fatalf("go mod download %s@%s: %v %s", module, version, err, dl.Error)
	}
	repo := filepath.Join(tmp, "golangci-lint-src")
	if err := os.CopyFS(repo, os.DirFS(dl.Dir)); err != nil {
		t.Fatal(err)
	}
	git := []string{"-c", "user.name=workflowguard test", "-c", "user.email=test@invalid", "-c", "init.defaultBranch=main", "-c", "commit.gpgsign=false"}
	for _, args := range [][]string{{"init", "-q"}, {"add", "-A"}, {"commit", "-q", "-m", module + " " + version}, {"tag", version}} {
		run(t, repo, nil, 0, "git", append(slices.Clone(git), args...)...)
	}
	return repo
}

// goCmd runs the go command in dir and returns its standard output; it fails the test unless
// the command succeeds.
func goCmd(t *testing.T, dir string, env []string, args ...string) string {
	t.Helper()
	out, _ := run(t, dir, env, 0, "go", args...)
	return out
}

// run runs name in dir with env added to the test's environment, fails the test unless it exits
// with status, and returns its standard output and standard error.
func run(t *testing.T, dir string, env []string, status int, name string, args ...string) (string, string) {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	got := 0
	if exit := (*exec.ExitError)(nil); errors.As(err, &exit) {
		got = exit.ExitCode()
	} else if err != nil {
		t.Fatalf("%s %s: %v", name, strings.Join(args, " "), err)
	}
	if got != status {
		t.Fatalf("%s %s in %s: exit status %d, want %d\nstdout:\n%s\nstderr:\n%s", name, strings.Join(args, " "), dir, got, status, stdout.String(), stderr.String())
	}
	return stdout.String(), stderr.String()
}

func mkdir(t *testing.T, parent, name string) string {
	t.Helper()
	dir := filepath.Join(parent, name)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func relTo(t *testing.T, root, file string) string {
	t.Helper()
	rel, err := filepath.Rel(root, file)
	if err != nil || !filepath.IsAbs(file) || strings.HasPrefix(rel, "..") {
		t.Fatalf("%q is not an absolute path under the repository", file)
	}
	return filepath.ToSlash(rel)
}

func atoi(t *testing.T, s string) int {
	t.Helper()
	n, err := strconv.Atoi(s)
	if err != nil {
		t.Fatal(err)
	}
	return n
}
