// Package internal_test holds the rule of the module's internal/ tree: the
// packages under it are the layer the kit builds on, so none of them, tests
// included, imports a public package of this module. Code that measures or
// exercises the kit from above (the benchmark harness, for one) lives beside
// the kit, not under internal/.
package internal_test

import (
	"bufio"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// publicImportsAllowed are the only imports of public packages that
// internal/ holds, by package (both relative to the module's root). vocab
// reads and converts the values of temporaladk's types (Class,
// ActivityCall, Clock, the kit's errors), and vocabtest builds the tests'
// helpers on them and on policies: both sit over temporaladk, under the
// packages that use them. Placing them under the kit means defining those
// types under internal/, which would change how temporaladk's API reads.
// budget counts in spend's value types (Micros, Price, State, Tally, Usage),
// which users read and write and go doc must show with their fields: spend
// imports nothing of the kit, so it sits under budget, and
// TestSpendImportsNothingOfTheKit holds it there. wire is the JSON the
// kit's two sides exchange, whose fields are the public types they carry
// (Class, BudgetExceededError, Price, Usage, Approvers, Request): it sits
// over those packages and under interceptors and testsuite. charge is the
// budgets' mechanism, the ledger and the charger, which decide and ask in
// those same types and report to the observer in observe's (Refusal,
// Charge, Reservation, Settlement) and record usage with providers: it sits
// over them and under interceptors, which wires it. An entry no import needs
// any more fails the test, so that the list only shrinks.
var publicImportsAllowed = map[string][]string{
	"internal/budget":    {"spend"},
	"internal/charge":    {"observe", "providers", "spend", "temporaladk"},
	"internal/vocab":     {"temporaladk"},
	"internal/vocabtest": {"policies", "temporaladk"},
	"internal/wire":      {"approvals", "spend", "temporaladk"},
}

// TestSpendImportsNothingOfTheKit holds spend, which internal/budget
// imports, at the bottom of the kit: none of its files imports a package of
// this module.
func TestSpendImportsNothingOfTheKit(t *testing.T) {
	module := modulePath(t, filepath.Join("..", "go.mod"))
	files, err := filepath.Glob(filepath.Join("..", "spend", "*.go"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no Go files in spend/: %v", err)
	}
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), name, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, spec := range f.Imports {
			if imp, _ := strconv.Unquote(spec.Path.Value); strings.HasPrefix(imp, module+"/") {
				t.Errorf("%s imports %s: spend is the value types internal/budget counts in, and must import nothing of the kit", name, imp)
			}
		}
	}
}

// TestInternalImportsNoPublicPackage reads the imports of every Go file
// under internal/, whatever its build tags, and fails on any import of a
// package of this module outside internal/ that publicImportsAllowed does
// not name. It parses import clauses only, so it needs neither the network
// nor the go command.
func TestInternalImportsNoPublicPackage(t *testing.T) {
	module := modulePath(t, filepath.Join("..", "go.mod"))
	used := map[string]bool{}     // "pkg imports dep", both relative to the module's root
	packages := map[string]bool{} // the directories read, relative to the module's root
	err := filepath.WalkDir(".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			name := d.Name()
			if p != "." && (name == "testdata" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, ".go") {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), p, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		pkg := path.Join("internal", filepath.ToSlash(filepath.Dir(p)))
		packages[pkg] = true
		for _, spec := range f.Imports {
			imp, err := strconv.Unquote(spec.Path.Value)
			if err != nil {
				return err
			}
			rel, ok := strings.CutPrefix(imp, module+"/")
			if !ok || rel == "internal" || strings.HasPrefix(rel, "internal/") {
				continue
			}
			edge := pkg + " imports " + rel
			if !slices.Contains(publicImportsAllowed[pkg], rel) {
				t.Errorf("%s imports %s, a public package of the module (%s): internal/ is the layer under the kit, so move the code that needs it out of internal/", path.Join("internal", filepath.ToSlash(p)), imp, edge)
			}
			used[edge] = true
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for pkg, deps := range publicImportsAllowed {
		for _, dep := range deps {
			if edge := pkg + " imports " + dep; !used[edge] {
				t.Errorf("publicImportsAllowed names %q, which no file imports any more: remove it", edge)
			}
		}
	}
	// A walk that read almost nothing would pass without checking anything.
	if !packages["internal/kitcore"] || len(packages) < 5 {
		t.Fatalf("read %d directories under internal/, internal/kitcore among them: %v; want the whole tree", len(packages), packages)
	}
}

// modulePath reads the module directive of the go.mod file at name.
func modulePath(t *testing.T, name string) string {
	t.Helper()
	f, err := os.Open(name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	s := bufio.NewScanner(f)
	for s.Scan() {
		if rest, ok := strings.CutPrefix(strings.TrimSpace(s.Text()), "module "); ok {
			return strings.Trim(strings.TrimSpace(rest), `"`)
		}
	}
	if err := s.Err(); err != nil {
		t.Fatal(err)
	}
	t.Fatalf("%s has no module directive", name)
	return ""
}

// TestNoPublicAliasOfAnInternalType walks the module's public packages
// (every directory outside internal/, testdata and the contrib modules,
// which cannot import internal/ at all) and fails on a type alias whose
// target is a type of an internal package: go doc and pkg.go.dev would show
// the alias without the target's fields and methods. It parses the files,
// so it needs neither the network nor the go command.
func TestNoPublicAliasOfAnInternalType(t *testing.T) {
	module := modulePath(t, filepath.Join("..", "go.mod"))
	read := 0
	err := filepath.WalkDir("..", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			name := d.Name()
			if p != ".." && (name == "internal" || name == "testdata" || name == "contrib" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), p, nil, 0)
		if err != nil {
			return err
		}
		read++
		internalImports := map[string]string{} // the name a file uses → the internal package's path
		for _, spec := range f.Imports {
			imp, _ := strconv.Unquote(spec.Path.Value)
			if !strings.HasPrefix(imp, module+"/internal/") {
				continue
			}
			name := path.Base(imp)
			if spec.Name != nil {
				name = spec.Name.Name
			}
			internalImports[name] = imp
		}
		for _, decl := range f.Decls {
			gen, ok := decl.(*ast.GenDecl)
			if !ok || gen.Tok != token.TYPE {
				continue
			}
			for _, spec := range gen.Specs {
				ts := spec.(*ast.TypeSpec)
				sel, ok := ts.Type.(*ast.SelectorExpr)
				if !ts.Assign.IsValid() || !ok || !ts.Name.IsExported() {
					continue
				}
				if x, ok := sel.X.(*ast.Ident); ok && internalImports[x.Name] != "" {
					t.Errorf("%s: type %s = %s.%s aliases a type of %s: define the type in the public package, so that go doc shows its fields and methods", p, ts.Name.Name, x.Name, sel.Sel.Name, internalImports[x.Name])
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if read < 50 {
		t.Fatalf("read %d Go files outside internal/; want the whole module", read)
	}
}
