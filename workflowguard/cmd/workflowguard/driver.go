package main

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/temporaladk/adk-go/workflowguard"
	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/analysis/checker"
	"golang.org/x/tools/go/packages"
)

// The plain run (package patterns, -providers) goes through this driver; everything else (-fix,
// -json, go vet's -V=full, -flags and .cfg protocol) goes to singlechecker. The driver differs
// in one respect: the standard library, the Temporal SDK, gRPC and protobuf are type-checked
// without function bodies. workflowguard trusts those packages (it matches their hazards at the
// call and reads nothing inside them), and their bodies were most of the memory and time of a
// run, which loads every package of the build from source because the analyzer has facts.

// ownDriver returns the package patterns and flags for the lean driver when args hold only
// package patterns, -providers and -likely flags, and ok false otherwise.
func ownDriver(args []string) (patterns, flags []string, ok bool) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "-providers" || a == "--providers":
			if i+1 == len(args) {
				return nil, nil, false
			}
			flags = append(flags, a, args[i+1])
			i++
		case strings.HasPrefix(a, "-providers=") || strings.HasPrefix(a, "--providers=") ||
			a == "-likely" || a == "--likely" || strings.HasPrefix(a, "-likely=") || strings.HasPrefix(a, "--likely="):
			flags = append(flags, a)
		case strings.HasPrefix(a, "-") || strings.HasSuffix(a, ".cfg"):
			return nil, nil, false
		default:
			patterns = append(patterns, a)
		}
	}
	return patterns, flags, len(patterns) > 0
}

// drive loads the patterns (tests included, as singlechecker does), runs the analyzer, prints
// findings as file:line:col: message and returns the exit status: 3 with findings, 1 when
// loading or analysis failed, 0 when clean.
func drive(patterns, flags []string, stderr io.Writer) int {
	if err := workflowguard.Analyzer.Flags.Parse(flags); err != nil {
		fmt.Fprintf(stderr, "workflowguard: %v\n", err)
		return 1
	}
	trusted := trustedDirs()
	cfg := &packages.Config{
		Mode:  packages.LoadAllSyntax | packages.NeedModule,
		Tests: true,
		ParseFile: func(fset *token.FileSet, filename string, src []byte) (*ast.File, error) {
			f, err := parser.ParseFile(fset, filename, src, parser.AllErrors|parser.ParseComments|parser.SkipObjectResolution)
			if f != nil && trusted(filename) {
				for _, d := range f.Decls {
					if fd, ok := d.(*ast.FuncDecl); ok {
						fd.Body = nil
					}
				}
			}
			return f, err
		},
	}
	pkgs, err := packages.Load(cfg, patterns...)
	if err == nil && len(pkgs) == 0 {
		err = fmt.Errorf("%s matched no packages", strings.Join(patterns, " "))
	}
	if err != nil {
		fmt.Fprintf(stderr, "workflowguard: %v\n", err)
		return 1
	}
	status := 0
	packages.Visit(pkgs, nil, func(p *packages.Package) {
		forgiveMissingBodies(p, trusted)
	})
	if packages.PrintErrors(pkgs) > 0 {
		status = 1
	}
	graph, err := checker.Analyze([]*analysis.Analyzer{workflowguard.Analyzer}, pkgs, &checker.Options{})
	if err != nil {
		fmt.Fprintf(stderr, "workflowguard: %v\n", err)
		return 1
	}
	if err := graph.PrintText(stderr, -1); err != nil {
		return 1
	}
	findings := 0
	for act := range graph.All() {
		if act.Err != nil {
			status = 1
		} else if act.IsRoot {
			findings += len(act.Diagnostics)
		}
	}
	if status == 0 && findings > 0 {
		status = 3
	}
	return status
}

// forgiveMissingBodies drops, from a package whose bodies were left out, the errors that leaving
// them out causes: an import used only inside a body, and the functions that must have one
// (generic functions, init). It is called on dependencies first and recomputes IllTyped, which
// go/packages also sets when an import is ill-typed.
func forgiveMissingBodies(p *packages.Package, trusted func(string) bool) {
	defer func() {
		p.IllTyped = len(p.Errors) > 0
		for _, imp := range p.Imports {
			p.IllTyped = p.IllTyped || imp.IllTyped
		}
	}()
	if len(p.Errors) == 0 || len(p.GoFiles) == 0 || !trusted(p.GoFiles[0]) {
		return
	}
	kept := p.Errors[:0]
	for _, e := range p.Errors {
		if e.Kind == packages.TypeError && (strings.Contains(e.Msg, "imported") && strings.HasSuffix(e.Msg, "not used") ||
			strings.HasSuffix(e.Msg, "is missing function body") || strings.HasSuffix(e.Msg, "must have a body")) {
			continue
		}
		kept = append(kept, e)
	}
	p.Errors = kept
}

// trustedDirs returns a test for files of the standard library (GOROOT/src) and of the trusted
// modules in the module cache (go.temporal.io, google.golang.org/grpc and protobuf).
func trustedDirs() func(filename string) bool {
	var prefixes []string
	if out, err := exec.Command("go", "env", "GOROOT", "GOMODCACHE").Output(); err == nil {
		lines := strings.Split(strings.TrimSpace(string(out)), "\n")
		sep := string(filepath.Separator)
		if len(lines) == 2 && lines[0] != "" && lines[1] != "" {
			prefixes = append(prefixes, filepath.Join(lines[0], "src")+sep)
			for _, m := range []string{"go.temporal.io/", "google.golang.org/grpc@", "google.golang.org/protobuf@"} {
				prefixes = append(prefixes, filepath.Clean(lines[1])+sep+filepath.FromSlash(m))
			}
		}
	}
	return func(filename string) bool {
		for _, p := range prefixes {
			if strings.HasPrefix(filename, p) {
				return true
			}
		}
		return false
	}
}
