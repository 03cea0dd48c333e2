package main

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// goGetToolLines are the lines README.md gives a user to add the guard to a module of their own
// and run it; the package docs of workflowguard and of this command give them too.
var goGetToolLines = []string{
	"go get -tool github.com/temporaladk/adk-go/workflowguard/cmd/workflowguard",
	"go tool workflowguard ./...",
	"go vet -vettool=$(go tool -n workflowguard) ./...",
}

// TestGoGetToolLines runs README's lines for adding the guard to a user's module, as they are
// written there, in a fresh module with a workflow that reads the wall clock: go get -tool adds the
// tool, go tool workflowguard exits 3 with the finding, and go vet with the tool exits 1 with it.
//
// The kit's module is not on any proxy this test can reach (the module proxy answers 403 for it),
// so the fresh module's go.mod replaces it with this checkout, and go resolves it to the
// pseudo-version of a replaced module it cannot look up. Everything else comes from the module
// cache (GOPROXY=off), which the checkout's own build filled: the fresh module starts from the
// checkout's go.sum and requires the checkout's go.temporal.io/sdk.
func TestGoGetToolLines(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds the guard as a go tool of a fresh module")
	}
	root, err := filepath.Abs(filepath.Join("..", "..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	readme := readFile(t, filepath.Join(root, "README.md"))
	if got := shBlockWith(readme, goGetToolLines[0]); !equalLines(got, goGetToolLines) {
		t.Fatalf("README.md's block with %q is\n%s\nwant\n%s", goGetToolLines[0], strings.Join(got, "\n"), strings.Join(goGetToolLines, "\n"))
	}
	for _, doc := range []string{filepath.Join(root, "workflowguard", "doc.go"), "main.go"} {
		text := readFile(t, doc)
		for _, line := range goGetToolLines {
			if !strings.Contains(text, "//\t"+line+"\n") {
				t.Errorf("%s does not give the line %q", doc, line)
			}
		}
	}

	list := exec.Command("go", "list", "-m", "-f", "{{.Version}}", "go.temporal.io/sdk")
	list.Dir, list.Env = root, append(os.Environ(), "GOWORK=off") // the core module's own requirement
	sdk, err := list.Output()
	if err != nil {
		t.Fatalf("go list -m go.temporal.io/sdk: %v", err)
	}
	mod := t.TempDir()
	files := map[string]string{
		"go.mod": "module example.com/agents\n\ngo 1.26.0\n\nrequire go.temporal.io/sdk " + strings.TrimSpace(string(sdk)) +
			"\n\nreplace github.com/temporaladk/adk-go => " + root + "\n",
		"go.sum": readFile(t, filepath.Join(root, "go.sum")),
		"flows/flows.go": `package flows

import (
	"time"

	"go.temporal.io/sdk/workflow"
)

func Agent(ctx workflow.Context) (time.Time, error) {
	return time.Now(), workflow.Sleep(ctx, time.Second)
}
`,
	}
	writeFiles(t, mod, files)
	// Before go get -tool, go run and go install of the command's path fail, as README says:
	// the module does not require the kit. (Without the replace the go command says "no required
	// module provides package"; with it, that the module "is replaced but not required".)
	for _, verb := range []string{"run", "install"} {
		cmd := exec.Command("go", verb, "github.com/temporaladk/adk-go/workflowguard/cmd/workflowguard")
		cmd.Dir = mod
		cmd.Env = append(os.Environ(), "GOFLAGS=", "GOWORK=off", "GOPROXY=off", "GOBIN="+t.TempDir())
		if out, err := cmd.CombinedOutput(); err == nil || !strings.Contains(string(out), "is replaced but not required") {
			t.Errorf("go %s of the command's path in a module that does not require the kit: %v\n%s", verb, err, out)
		}
	}
	const finding = "flows/flows.go:10:9: ADK-W003 wall clock on the workflow path (time.Now)"
	for i, want := range []struct {
		code int
		out  string
	}{{0, ""}, {3, finding}, {1, finding}} {
		code, out := runInModule(t, mod, "sh", "-c", goGetToolLines[i])
		if code != want.code || !strings.Contains(out, want.out) {
			t.Fatalf("%s: exit %d, want %d with %q:\n%s", goGetToolLines[i], code, want.code, want.out, out)
		}
	}
	if gomod := readFile(t, filepath.Join(mod, "go.mod")); !strings.Contains(gomod, "\ntool github.com/temporaladk/adk-go/workflowguard/cmd/workflowguard\n") {
		t.Errorf("go.mod after go get -tool has no tool line:\n%s", gomod)
	}
}

// shBlockWith returns the lines of the first ```sh block of markdown that holds line.
func shBlockWith(markdown, line string) []string {
	var block []string
	in := false
	s := bufio.NewScanner(strings.NewReader(markdown))
	for s.Scan() {
		text := s.Text()
		switch {
		case !in && text == "```sh":
			in, block = true, nil
		case in && text == "```":
			in = false
			for _, l := range block {
				if l == line {
					return block
				}
			}
		case in:
			block = append(block, text)
		}
	}
	return nil
}

func equalLines(a, b []string) bool {
	return strings.Join(a, "\n") == strings.Join(b, "\n")
}
