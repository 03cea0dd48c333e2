package testsuite

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
)

// toolBuilds serialises the builds of GoTool in one process, so that two
// tests that need a missing tool build it once.
var toolBuilds sync.Mutex

// GoTool returns the executable name, a server a test runs beside the kit
// (nats-server, versitygw), looking in PATH, GOBIN, then each GOPATH/bin; if
// none has it, it is built into the first of GOBIN and GOPATH/bin with `go
// install module` (module@version, from the Go module proxy, outside any
// workspace), which takes minutes once per machine. An empty name or a
// module without a version is an error naming it.
func GoTool(ctx context.Context, name, module string) (string, error) {
	if name == "" || strings.ContainsRune(name, filepath.Separator) {
		return "", fmt.Errorf("testsuite: GoTool: name %q is not an executable's name", name)
	}
	if path, version, ok := strings.Cut(module, "@"); !ok || path == "" || version == "" {
		return "", fmt.Errorf("testsuite: GoTool: module %q is not module@version: a build from the proxy is pinned", module)
	}
	if p, err := exec.LookPath(name); err == nil {
		return p, nil
	}
	toolBuilds.Lock()
	defer toolBuilds.Unlock()
	var dirs []string
	gobin, err := goEnv(ctx, "GOBIN")
	if err != nil {
		return "", err
	}
	if gobin != "" {
		dirs = append(dirs, gobin)
	}
	gopath, err := goEnv(ctx, "GOPATH")
	if err != nil {
		return "", err
	}
	for _, p := range filepath.SplitList(gopath) {
		dirs = append(dirs, filepath.Join(p, "bin"))
	}
	if len(dirs) == 0 {
		return "", errors.New("testsuite: GoTool: neither GOBIN nor GOPATH is set: there is nowhere to look for " + name)
	}
	for _, d := range dirs {
		p := filepath.Join(d, name)
		if info, err := os.Stat(p); err == nil && !info.IsDir() && info.Mode()&0o111 != 0 {
			return p, nil
		}
	}
	cmd := exec.CommandContext(ctx, "go", "install", module)
	cmd.Env = append(os.Environ(), "GOBIN="+dirs[0], "GOWORK=off", "GOFLAGS=")
	cmd.Dir = os.TempDir()
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("testsuite: GoTool: go install %s: %w\n%s", module, err, out)
	}
	return filepath.Join(dirs[0], name), nil
}

func goEnv(ctx context.Context, name string) (string, error) {
	out, err := exec.CommandContext(ctx, "go", "env", name).Output()
	if err != nil {
		return "", fmt.Errorf("testsuite: go env %s: %w", name, err)
	}
	return strings.TrimSpace(string(out)), nil
}
