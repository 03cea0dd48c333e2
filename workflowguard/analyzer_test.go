package workflowguard_test

import (
	"go/ast"
	"go/doc"
	"go/parser"
	"go/token"
	"path/filepath"
	"strings"
	"testing"

	"github.com/temporaladk/adk-go/workflowguard"
	"golang.org/x/tools/go/analysis/analysistest"
)

// TestAnalyzer runs every rule and every case that must stay quiet over the testdata packages.
// Package b and c carry facts only (their helpers have no workflow); package a holds workflows;
// the later packages each hold one capability with the shapes that must stay quiet.
func TestAnalyzer(t *testing.T) {
	tests := []struct {
		name string
		pkgs []string
	}{
		{"helpers export facts", []string{"example.com/b", "example.com/c"}},
		{"workflows", []string{"example.com/a"}},
		{"stubs and foreign packages stay quiet", []string{"example.com/myrand", "example.com/notsdk/workflow", "go.temporal.io/sdk/workflow"}},
		{"function variables and fields", []string{"example.com/d", "example.com/funcvars"}},
		{"interface methods", []string{"example.com/iface"}},
		{"environment and file system", []string{"example.com/osfs"}},
		{"native concurrency and map order", []string{"example.com/conc"}},
		{"fan-out through libraries", []string{"example.com/pool", "example.com/fanout"}},
		{"map order through iterators", []string{"example.com/registry", "example.com/iters"}},
		{"wall-clock deadlines", []string{"example.com/deadlines"}},
		{"process-global state", []string{"example.com/globals"}},
		{"query handlers, hash seeds and the machine", []string{"example.com/queries"}},
		{"backoff libraries", []string{"example.com/backoffs", "example.com/keptbackoffs"}},
		{"generic helpers per instantiation", []string{"example.com/generics"}},
		{"reflection and embedded generators", []string{"example.com/reflects"}},
		{"implementations wired in by main", []string{"example.com/wiredlib", "example.com/wiredstore", "example.com/wiredmain"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			analysistest.Run(t, analysistest.TestData(), workflowguard.Analyzer, tt.pkgs...)
		})
	}
}

// TestProvidersFlag extends ADK-W001 with a provider the built-in list does not know. It sets a
// flag on the shared Analyzer, so it does not run in parallel.
func TestProvidersFlag(t *testing.T) {
	if err := workflowguard.Analyzer.Flags.Set("providers", "example.com/myprovider"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { workflowguard.ResetProvidersForTest() })
	analysistest.Run(t, analysistest.TestData(), workflowguard.Analyzer, "example.com/flagged")
}

// TestSuggestedFixes applies the rewrites of time.Now, time.Since, time.Sleep and go statements
// and compares the result with fix.go.golden; a file that does not import the workflow package
// gets no rewrite.
func TestSuggestedFixes(t *testing.T) {
	analysistest.RunWithSuggestedFixes(t, analysistest.TestData(), workflowguard.Analyzer, "example.com/fix")
}

// TestDocIsPackageComment checks that the analyzer's documentation is doc.go's package comment,
// as go doc shows it, and not a copy of its own.
func TestDocIsPackageComment(t *testing.T) {
	t.Parallel()
	names, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	var files []*ast.File
	for _, name := range names {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, parser.ParseComments)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	p, err := doc.NewFromFiles(fset, files, "github.com/temporaladk/adk-go/workflowguard")
	if err != nil {
		t.Fatal(err)
	}
	if p.Doc == "" {
		t.Fatal("the package has no package comment")
	}
	if workflowguard.Analyzer.Doc != p.Doc {
		t.Errorf("Analyzer.Doc is not the package comment:\n%s\n--- package comment:\n%s", workflowguard.Analyzer.Doc, p.Doc)
	}
}

// TestAcrossModules runs over a workspace of three modules (testdata/modules): a workflow calls a
// worker pool of another module, whose goroutines are reported at the call with the chain and
// whose own channels are not.
func TestAcrossModules(t *testing.T) {
	analysistest.Run(t, filepath.Join(analysistest.TestData(), "modules"), workflowguard.Analyzer, "example.com/app/flows", "example.com/app/kinds", "example.com/app/wired",
		"example.com/app/cmd/worker")
}
