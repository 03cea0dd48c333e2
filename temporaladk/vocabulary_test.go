package temporaladk_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"slices"
	"strings"
	"testing"
)

// maxExportedNames is the most top-level exported names (functions, types,
// constants and variables, each name of a block counted) package temporaladk
// may export: it is the vocabulary users write in workflow code, and every
// name added is one more to learn. The error hierarchy is counted with it:
// 18 of the names are the kit's own nine failures and their types, which
// left interceptors and approvals (nine constants) to be typed here, and 12
// are the structs of the errors a user's code returns, each named as the
// type the server records (TemporaladkSchemaViolation) and aliased by the
// name code writes (SchemaViolationError): the SDK records an error
// returned raw, on an activity worker without the kit, under its Go type's
// name, and no other name both keeps that one the kit's and collides with
// no user's own.
const maxExportedNames = 83

// TestExportedVocabularyStaysSmall counts the package's top-level exported
// names over its own non-test files.
func TestExportedVocabularyStaysSmall(t *testing.T) {
	t.Parallel()
	fset := token.NewFileSet()
	pkgs, err := parser.ParseDir(fset, ".", func(fi fs.FileInfo) bool { return !strings.HasSuffix(fi.Name(), "_test.go") }, 0)
	if err != nil {
		t.Fatal(err)
	}
	pkg, ok := pkgs["temporaladk"]
	if !ok {
		t.Fatalf("no package temporaladk in the directory: %v", pkgs)
	}
	var names []string
	for _, f := range pkg.Files {
		for _, decl := range f.Decls {
			switch d := decl.(type) {
			case *ast.FuncDecl:
				if d.Recv == nil && d.Name.IsExported() {
					names = append(names, d.Name.Name)
				}
			case *ast.GenDecl:
				for _, spec := range d.Specs {
					switch s := spec.(type) {
					case *ast.TypeSpec:
						if s.Name.IsExported() {
							names = append(names, s.Name.Name)
						}
					case *ast.ValueSpec:
						for _, n := range s.Names {
							if n.IsExported() {
								names = append(names, n.Name)
							}
						}
					}
				}
			}
		}
	}
	slices.Sort(names)
	if len(names) > maxExportedNames {
		t.Errorf("temporaladk exports %d top-level names, more than %d: move plumbing to an internal package or new vocabulary to a package of its own\n%s",
			len(names), maxExportedNames, strings.Join(names, " "))
	}
	t.Logf("%d top-level exported names: %s", len(names), strings.Join(names, " "))
}
