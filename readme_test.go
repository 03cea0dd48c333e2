// Package readme checks that every Go snippet of README.md compiles against this checkout.
//
// A ```go block of README.md is checked as the marker on the line before its fence (blank lines
// aside) says, naming its frame:
//
//	<!-- readme:check workflow -->   statements of workflow code: ctx is a workflow.Context
//	<!-- readme:check worker -->     statements of worker, client or test code: ctx is a context.Context
//
// A block without a marker fails the test. The snippet's top-level functions (from a line
// "func ..." to the next line "}") become functions of a package of its own; every other line
// goes, as it is, into the body of a function of the frame, func snippet(ctx) error, so that a
// snippet may assign ctx, declare with :=, and return an error. The names snippets use without
// declaring them are declared once for all of them (snippetVars), and their packages imported by
// the name they use (snippetImports). Each snippet is compiled in a module of its own in a
// temporary directory, in a workspace with every module of the repository's go.work, and every
// error but a variable or an import left unused fails the test at its line of README.md.
package readme

import (
	"bufio"
	"encoding/json"
	"fmt"
	"go/version"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// snippetMarker is the marker line before a checked snippet.
var snippetMarker = regexp.MustCompile(`^<!-- readme:check (\w+) -->$`)

// snippetFrames are the frames a marker may name: the type of ctx in each.
var snippetFrames = map[string]string{
	"workflow": "workflow.Context",
	"worker":   "context.Context",
}

// snippetVars declares the names snippets use without declaring them. A snippet gets those it
// mentions, unless it declares one itself as a top-level function.
var snippetVars = map[string]string{
	"c":         "var c client.Client",
	"w":         "var w worker.Worker",
	"suite":     "var suite sdktestsuite.WorkflowTestSuite",
	"kitOpts":   "var kitOpts interceptors.Options",
	"opts":      "var opts interceptors.Options",
	"anaPub":    "var anaPub approvals.PublicKey",
	"boPub":     "var boPub approvals.PublicKey",
	"cyPub":     "var cyPub approvals.PublicKey",
	"ana":       "var ana *approvals.Signer",
	"fromProxy": "var fromProxy func(r *http.Request) (string, error)",
	"creds":     "var creds []passkey.Credential",
	"connect":   "var connect = mcp.Options{}.Transport",
	"state":     "var state any",
	"CallModel": "func CallModel(ctx context.Context, prompt string) (string, error) { return prompt, nil }",
	"Agent":     "func Agent(ctx workflow.Context, prompt string) (string, error) { return prompt, nil }",
	"Message":   "type Message struct{ Role, Content string }",
	"question":  "var question string",
	"AskModel":  "func AskModel(ctx context.Context, conv *conversation.Log[Message]) (Message, error) { return Message{}, nil }",
}

// snippetImports are the packages a snippet may use, by the name it uses.
var snippetImports = map[string]string{
	"context":       "context",
	"errors":        "errors",
	"fmt":           "fmt",
	"http":          "net/http",
	"os":            "os",
	"time":          "time",
	"client":        "go.temporal.io/sdk/client",
	"temporal":      "go.temporal.io/sdk/temporal",
	"worker":        "go.temporal.io/sdk/worker",
	"workflow":      "go.temporal.io/sdk/workflow",
	"sdktestsuite":  "go.temporal.io/sdk/testsuite",
	"approvals":     "github.com/temporaladk/adk-go/approvals",
	"inbox":         "github.com/temporaladk/adk-go/approvals/inbox",
	"conversation":  "github.com/temporaladk/adk-go/conversation",
	"interceptors":  "github.com/temporaladk/adk-go/interceptors",
	"payloads":      "github.com/temporaladk/adk-go/payloads",
	"policies":      "github.com/temporaladk/adk-go/policies",
	"providers":     "github.com/temporaladk/adk-go/providers",
	"spend":         "github.com/temporaladk/adk-go/spend",
	"temporaladk":   "github.com/temporaladk/adk-go/temporaladk",
	"testsuite":     "github.com/temporaladk/adk-go/testsuite",
	"anthropic":     "github.com/temporaladk/adk-go/contrib/anthropic",
	"blob":          "github.com/temporaladk/adk-go/contrib/blob",
	"mcp":           "github.com/temporaladk/adk-go/contrib/mcp",
	"openai":        "github.com/temporaladk/adk-go/contrib/openai",
	"opentelemetry": "github.com/temporaladk/adk-go/contrib/opentelemetry",
	"passkey":       "github.com/temporaladk/adk-go/contrib/passkey",
}

// snippet is one ```go block of README.md.
type snippet struct {
	frame string
	line  int      // the line of README.md of its first line
	lines []string // its text
}

// readmeSnippets returns README.md's ```go blocks, and a problem for each block without a marker
// or marker without a block.
func readmeSnippets(readme string) ([]snippet, []string) {
	var (
		out      []snippet
		problems []string
		marker   string // the frame of the marker above, if the last non-blank line was one
		markedAt int
		in       *snippet
		fenced   bool // inside a fence of another language
	)
	s := bufio.NewScanner(strings.NewReader(readme))
	for n := 1; s.Scan(); n++ {
		text := s.Text()
		switch {
		case in != nil && text == "```":
			out, in = append(out, *in), nil
		case in != nil:
			in.lines = append(in.lines, text)
		case fenced:
			fenced = !strings.HasPrefix(text, "```")
		case text == "```go":
			if marker == "" {
				problems = append(problems, fmt.Sprintf("README.md:%d: a ```go block without a marker: put <!-- readme:check workflow --> or <!-- readme:check worker --> on the line before it", n))
			}
			in, marker = &snippet{frame: marker, line: n + 1}, ""
		case strings.HasPrefix(text, "```"):
			fenced = true
			fallthrough
		case strings.TrimSpace(text) != "":
			if marker != "" {
				problems = append(problems, fmt.Sprintf("README.md:%d: a marker not followed by a ```go block", markedAt))
			}
			marker = ""
			if m := snippetMarker.FindStringSubmatch(text); m != nil {
				if _, ok := snippetFrames[m[1]]; !ok {
					problems = append(problems, fmt.Sprintf("README.md:%d: unknown frame %q (want workflow or worker)", n, m[1]))
				}
				marker, markedAt = m[1], n
			}
		}
	}
	if in != nil {
		problems = append(problems, fmt.Sprintf("README.md:%d: a ```go block that is never closed", in.line-1))
	}
	return out, problems
}

var topLevelFunc = regexp.MustCompile(`^func (\w+)`)

// source returns the Go file that checks sn, in package pkg.
func (sn snippet) source(pkg string) string {
	var decls, body strings.Builder
	declared := map[string]bool{}
	inFunc := false
	for i, l := range sn.lines {
		if !inFunc {
			if m := topLevelFunc.FindStringSubmatch(l); m != nil {
				inFunc, declared[m[1]] = true, true
				fmt.Fprintf(&decls, "//line README.md:%d\n", sn.line+i)
			}
		}
		if inFunc {
			decls.WriteString(l + "\n")
			inFunc = l != "}"
			continue
		}
		fmt.Fprintf(&body, "//line README.md:%d\n%s\n", sn.line+i, l)
	}
	text := strings.Join(sn.lines, "\n")
	var vars strings.Builder
	for _, name := range slices.Sorted(maps.Keys(snippetVars)) {
		if !declared[name] && regexp.MustCompile(`\b`+name+`\b`).MatchString(text) {
			vars.WriteString(snippetVars[name] + "\n")
		}
	}
	code := vars.String() + decls.String() + "func snippet(ctx " + snippetFrames[sn.frame] + ") error {\n" + body.String() + "\treturn nil\n}\n"
	var imports strings.Builder
	for _, name := range slices.Sorted(maps.Keys(snippetImports)) {
		if name == "context" || regexp.MustCompile(`\b`+name+`\.`).MatchString(code) {
			fmt.Fprintf(&imports, "\t%s %q\n", name, snippetImports[name])
		}
	}
	return "package " + pkg + "\n\nimport (\n" + imports.String() + ")\n\n" + code
}

// unused matches the errors of a variable or an import a snippet leaves unused.
var unused = regexp.MustCompile(`declared and not used|imported and not used`)

// TestReadmeGoSnippetsCompile type-checks every Go snippet of README.md against this checkout.
func TestReadmeGoSnippetsCompile(t *testing.T) {
	t.Parallel()
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	snippets, problems := readmeSnippets(string(readme))
	for _, p := range problems {
		t.Error(p)
	}
	if len(snippets) == 0 {
		t.Fatal("README.md has no ```go block")
	}

	// A module of its own beside the repository's, in a workspace with all of them.
	var modules []string
	goVersion := "1.26.0"
	out, err := exec.Command("go", "list", "-m", "-json").Output()
	if err != nil {
		t.Fatalf("go list -m: %v", err)
	}
	for dec := json.NewDecoder(strings.NewReader(string(out))); dec.More(); {
		var m struct{ Dir, GoVersion string }
		if err := dec.Decode(&m); err != nil {
			t.Fatal(err)
		}
		modules = append(modules, m.Dir)
		if version.Compare("go"+m.GoVersion, "go"+goVersion) > 0 {
			goVersion = m.GoVersion
		}
	}
	if len(modules) < 2 {
		t.Fatalf("go list -m gives %v: the snippets need the repository's go.work (its contrib modules); run without GOWORK=off", modules)
	}
	dir := t.TempDir()
	work := "go " + goVersion + "\n\nuse (\n\t.\n"
	for _, m := range modules {
		work += "\t" + strconv.Quote(m) + "\n"
	}
	work += ")\n"
	files := map[string]string{
		"go.mod":  "module readmesnippets\n\ngo " + goVersion + "\n",
		"go.work": work,
	}
	if sum, err := os.ReadFile("go.work.sum"); err == nil {
		files["go.work.sum"] = string(sum)
	}
	for i, sn := range snippets {
		if sn.frame == "" {
			continue // reported above
		}
		pkg := fmt.Sprintf("s%02d", i)
		files[filepath.Join(pkg, "snippet.go")] = sn.source(pkg)
	}
	for name, content := range files {
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}

	// -e: every error of a snippet, not the first ten. -race under the race
	// detector: the snippets' packages are then the ones go vet and the
	// other tests of the run already compiled, not a second build of each.
	args := []string{"build", "-gcflags=-e"}
	if raceBuild {
		args = append(args, "-race")
	}
	build := exec.Command("go", append(args, "./...")...)
	build.Dir, build.Env = dir, append(os.Environ(), "GOWORK="+filepath.Join(dir, "go.work"))
	out, err = build.CombinedOutput()
	reported, report := 0, false
	for _, line := range strings.Split(string(out), "\n") {
		switch {
		case strings.TrimSpace(line) == "" || strings.HasPrefix(line, "# "):
			report = false
		case strings.HasPrefix(line, "\t") || strings.HasPrefix(line, " "):
			if report { // the continuation of the error above
				t.Error(line)
			}
		case unused.MatchString(line):
			report = false
		default:
			report = true
			reported++
			t.Error(line)
		}
	}
	if err != nil && reported == 0 && !unused.MatchString(string(out)) {
		t.Errorf("go build of the snippets: %v\n%s", err, out)
	}
	if t.Failed() {
		for i, sn := range snippets {
			t.Logf("snippet s%02d, README.md:%d, as checked:\n%s", i, sn.line, sn.source(fmt.Sprintf("s%02d", i)))
		}
	}
}

// TestQuickstartIsAsLongAsTheDocsSay holds the "N-line file" that README and
// samples/README.md call samples/quickstart to its length: at most N lines,
// and more than nine tenths of N, so that the figure moves with the file.
func TestQuickstartIsAsLongAsTheDocsSay(t *testing.T) {
	src, err := os.ReadFile(filepath.Join("samples", "quickstart", "main.go"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Count(string(src), "\n")
	claim := regexp.MustCompile(`(\d+)-line\s+file`)
	for _, doc := range []string{"README.md", filepath.Join("samples", "README.md")} {
		text, err := os.ReadFile(doc)
		if err != nil {
			t.Fatal(err)
		}
		m := claim.FindAllStringSubmatch(string(text), -1)
		if len(m) != 1 {
			t.Errorf("%s: %d claims of an N-line file, want the quickstart's one", doc, len(m))
			continue
		}
		n, _ := strconv.Atoi(m[0][1])
		if lines > n || lines*10 <= n*9 {
			t.Errorf("%s calls samples/quickstart/main.go a %d-line file; it has %d lines", doc, n, lines)
		}
	}
}
