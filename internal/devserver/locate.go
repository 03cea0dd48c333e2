package devserver

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
)

// CLIVersion is the Temporal CLI version that is built when none is found.
const CLIVersion = "v1.5.1"

// CLIModule is the package path installed by `go install` to build the CLI.
const CLIModule = "github.com/temporalio/cli/cmd/temporal"

// EnvCLIPath names the environment variable holding the CLI's path.
const EnvCLIPath = "TEMPORAL_CLI"

// Environment is the part of the process environment that decides where the
// Temporal CLI is looked for. Tests build it by hand; SystemEnvironment reads
// the real one.
type Environment struct {
	// TemporalCLI is the value of TEMPORAL_CLI. If empty, it is not consulted.
	TemporalCLI string
	// Path is the value of PATH. If empty, PATH is not searched.
	Path string
	// GOBIN is the Go command's GOBIN. If empty, it is not searched.
	GOBIN string
	// GOPATH is the Go command's GOPATH (a list). If empty, it is not searched.
	GOPATH string
}

// SystemEnvironment reads the environment of this process. GOBIN and GOPATH
// come from `go env` when the go command is available, so that settings made
// with `go env -w` count, and from the process environment otherwise.
func SystemEnvironment() Environment {
	env := Environment{
		TemporalCLI: os.Getenv(EnvCLIPath),
		Path:        os.Getenv("PATH"),
		GOBIN:       os.Getenv("GOBIN"),
		GOPATH:      os.Getenv("GOPATH"),
	}
	if gobin, gopath, err := goEnv(); err == nil {
		env.GOBIN, env.GOPATH = gobin, gopath
	}
	return env
}

// goEnv asks the go command for GOBIN and GOPATH.
func goEnv() (gobin, gopath string, err error) {
	out, err := exec.Command("go", "env", "GOBIN", "GOPATH").Output()
	if err != nil {
		return "", "", err
	}
	lines := strings.Split(strings.TrimRight(string(out), "\r\n"), "\n")
	if len(lines) != 2 {
		return "", "", fmt.Errorf("go env printed %d lines, want 2", len(lines))
	}
	return strings.TrimSpace(lines[0]), strings.TrimSpace(lines[1]), nil
}

// ErrCLINotFound reports that no Temporal CLI was found in the searched places.
var ErrCLINotFound = errors.New("temporal CLI not found")

// exeName is the CLI's file name on this platform.
func exeName() string {
	if runtime.GOOS == "windows" {
		return "temporal.exe"
	}
	return "temporal"
}

// Locate returns the path of the Temporal CLI. It looks, in order, at the
// explicit path, env.TemporalCLI, each PATH entry, GOBIN and each GOPATH
// entry's bin directory. A path given explicitly (argument or TEMPORAL_CLI)
// that is not an executable file is an error, never skipped. When nothing is
// found the error wraps ErrCLINotFound and lists the places searched.
// isExecutable is injected so the decision can be tested without files.
func Locate(explicit string, env Environment, isExecutable func(path string) error) (string, error) {
	if explicit != "" {
		if err := isExecutable(explicit); err != nil {
			return "", fmt.Errorf("devserver: Temporal CLI path %q (CLIPath option): %w", explicit, err)
		}
		return explicit, nil
	}
	if env.TemporalCLI != "" {
		if err := isExecutable(env.TemporalCLI); err != nil {
			return "", fmt.Errorf("devserver: Temporal CLI path %q (%s): %w", env.TemporalCLI, EnvCLIPath, err)
		}
		return env.TemporalCLI, nil
	}
	var searched []string
	for _, dir := range SearchDirs(env) {
		candidate := filepath.Join(dir, exeName())
		searched = append(searched, dir)
		if isExecutable(candidate) == nil {
			return candidate, nil
		}
	}
	return "", fmt.Errorf("devserver: %w (%s unset; searched %s)", ErrCLINotFound, EnvCLIPath, strings.Join(searched, string(os.PathListSeparator)))
}

// SearchDirs lists the directories Locate searches, in order: PATH entries,
// GOBIN, then each GOPATH entry's bin directory. Empty entries are dropped.
func SearchDirs(env Environment) []string {
	var dirs []string
	for _, dir := range filepath.SplitList(env.Path) {
		if dir != "" {
			dirs = append(dirs, dir)
		}
	}
	if env.GOBIN != "" {
		dirs = append(dirs, env.GOBIN)
	}
	for _, dir := range filepath.SplitList(env.GOPATH) {
		if dir != "" {
			dirs = append(dirs, filepath.Join(dir, "bin"))
		}
	}
	return dirs
}

// InstallDir is where `go install` puts the CLI: GOBIN, else the first GOPATH
// entry's bin directory. It errors when both are empty.
func InstallDir(env Environment) (string, error) {
	if env.GOBIN != "" {
		return env.GOBIN, nil
	}
	for _, dir := range filepath.SplitList(env.GOPATH) {
		if dir != "" {
			return filepath.Join(dir, "bin"), nil
		}
	}
	return "", errors.New("devserver: neither GOBIN nor GOPATH is set, so there is no directory to build the Temporal CLI into; set CLIBuildDir")
}

// IsExecutable reports why path is not an executable regular file, or nil.
func IsExecutable(path string) error {
	info, err := os.Stat(path)
	if err != nil {
		return err
	}
	if !info.Mode().IsRegular() {
		return fmt.Errorf("not a regular file (mode %v)", info.Mode())
	}
	if runtime.GOOS != "windows" && info.Mode().Perm()&0o111 == 0 {
		return fmt.Errorf("not executable (mode %v): %w", info.Mode(), fs.ErrPermission)
	}
	return nil
}
