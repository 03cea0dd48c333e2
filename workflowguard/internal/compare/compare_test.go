package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestTreeFindings generates a small tree over the testdata SDK stub and checks that workflowguard
// reports exactly the findings the generator expects: every random draw and clock read on the
// workflow path, nothing in SideEffect callbacks, activities or the workflow's own random stream.
func TestTreeFindings(t *testing.T) { // not parallel: it sets the environment
	dir := t.TempDir()
	guard := filepath.Join(dir, "workflowguard")
	if out, err := exec.Command("go", "build", "-o", guard, "../../cmd/workflowguard").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	tree := filepath.Join(dir, "tree")
	goMod := "module example.com/guardbench\n\ngo 1.26\n\nrequire go.temporal.io/sdk v1.51.0\n\nreplace go.temporal.io/sdk => ./sdk\n"
	want, err := writeTree(tree, 4, 2, goMod)
	if err != nil {
		t.Fatal(err)
	}
	stub := filepath.Join("..", "..", "testdata", "src", "go.temporal.io", "sdk")
	for _, rel := range []string{"internal/internal.go", "workflow/workflow.go"} {
		src, err := os.ReadFile(filepath.Join(stub, filepath.FromSlash(rel)))
		if err != nil {
			t.Fatal(err)
		}
		dst := filepath.Join(tree, "sdk", filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(dst, src, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(tree, "sdk", "go.mod"), []byte("module go.temporal.io/sdk\n\ngo 1.26\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("GOFLAGS", "-mod=mod")
	t.Setenv("GOPROXY", "off")
	out, err := runTool(tree, []string{guard, "./..."})
	if err != nil {
		t.Fatalf("workflowguard: %v\n%s", err, out)
	}
	got := map[finding]bool{}
	for line := range strings.SplitSeq(out, "\n") {
		if f, ok := classifyGuard(strings.TrimPrefix(line, tree+string(filepath.Separator))); ok {
			got[f] = true
		}
	}
	for f := range want {
		if !got[f] {
			t.Errorf("missed %v", f)
		}
	}
	for f := range got {
		if !want[f] {
			t.Errorf("unexpected %v", f)
		}
	}
	if len(want) != 4*12 {
		t.Errorf("generator expects %d findings, want %d", len(want), 4*12)
	}
}
