package testsuite_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/temporaladk/adk-go/testsuite"
)

// TestGoToolFindsBeforeItBuilds: a tool on PATH is taken from there; one
// only in GOBIN or a GOPATH's bin from there; nothing is built for either.
func TestGoToolFindsBeforeItBuilds(t *testing.T) {
	goBin, err := exec.LookPath("go")
	require.NoError(t, err)
	ctx := context.Background()

	onPath := t.TempDir()
	writeExecutable(t, filepath.Join(onPath, "adk-tool-a"))
	inGopath := t.TempDir()
	writeExecutable(t, filepath.Join(inGopath, "bin", "adk-tool-b"))
	t.Setenv("PATH", onPath+string(os.PathListSeparator)+filepath.Dir(goBin))
	t.Setenv("GOBIN", "")
	t.Setenv("GOPATH", inGopath)

	// A module that does not exist: a build would fail, so a path back
	// means nothing was built.
	const module = "example.invalid/none@v0.0.0"
	p, err := testsuite.GoTool(ctx, "adk-tool-a", module)
	require.NoError(t, err)
	assert.Equal(t, filepath.Join(onPath, "adk-tool-a"), p)
	p, err = testsuite.GoTool(ctx, "adk-tool-b", module)
	require.NoError(t, err)
	assert.Equal(t, filepath.Join(inGopath, "bin", "adk-tool-b"), p)
	_, err = testsuite.GoTool(ctx, "adk-tool-c", module)
	assert.ErrorContains(t, err, "go install "+module, "a tool found nowhere is built, and a failed build says so")
}

// TestGoToolBadInput: a name that is no executable's, and a module without
// its version, are errors naming them.
func TestGoToolBadInput(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	_, err := testsuite.GoTool(ctx, "", "example.com/x@v1.0.0")
	assert.ErrorContains(t, err, `name ""`)
	_, err = testsuite.GoTool(ctx, "bin/x", "example.com/x@v1.0.0")
	assert.ErrorContains(t, err, `name "bin/x"`)
	_, err = testsuite.GoTool(ctx, "x", "example.com/x")
	assert.ErrorContains(t, err, `module "example.com/x" is not module@version`)
}

func writeExecutable(t *testing.T, path string) {
	t.Helper()
	require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
	require.NoError(t, os.WriteFile(path, []byte("#!/bin/sh\n"), 0o755))
}
