package workflowguard

import (
	_ "embed"
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"strings"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/ast/inspector"
	"golang.org/x/tools/go/types/typeutil"
)

// docGo is the source of doc.go, whose package comment is the analyzer's documentation.
//
//go:embed doc.go
var docGo string

// Analyzer reports replay hazards (ADK-W001..ADK-W006) on the Temporal workflow path. Its Doc is
// the package comment of doc.go.
//
// It builds its own inspector instead of requiring inspect.Analyzer: the driver keeps every
// analyzer's result until the run ends, and an inspector for each package of the standard
// library and the SDK (which this analyzer skips) would be most of its peak memory.
var Analyzer = &analysis.Analyzer{
	Name:      "workflowguard",
	Doc:       packageDoc(docGo),
	URL:       "https://pkg.go.dev/github.com/temporaladk/adk-go/workflowguard",
	FactTypes: []analysis.Fact{(*reachFact)(nil), (*mapOrderFact)(nil), (*wiredCallsFact)(nil)},
	Run:       run,
}

// packageDoc returns the text of the package comment of the Go source src. doc.go is compiled
// into the package, so a src without a package comment is a defect of this package's own
// source, caught by its tests: it panics rather than run with empty documentation.
func packageDoc(src string) string {
	f, err := parser.ParseFile(token.NewFileSet(), "doc.go", src, parser.PackageClauseOnly|parser.ParseComments)
	if err != nil {
		panic("workflowguard: doc.go: " + err.Error())
	}
	if f.Doc == nil {
		panic("workflowguard: doc.go has no package comment")
	}
	return f.Doc.Text()
}

// extraProviders holds the -providers flag: more model provider import path prefixes.
var extraProviders providerList

// likelyFindings holds the -likely flag: whether findings that are likely rather than proved
// (a package-level value set at init from the clock, a draw or the environment) are reported.
var likelyFindings = true

func init() {
	Analyzer.Flags.Var(&extraProviders, "providers",
		"comma-separated import path prefixes of more model provider SDKs for ADK-W001 (added to the built-in list)")
	Analyzer.Flags.BoolVar(&likelyFindings, "likely", true,
		"report what is likely but not proved (ADK-W007: a package-level value set at init from the clock, a draw or the environment)")
}

// providerList is a comma-separated flag value.
type providerList []string

func (p *providerList) String() string { return strings.Join(*p, ",") }

func (p *providerList) Set(s string) error {
	for part := range strings.SplitSeq(s, ",") {
		if part = strings.TrimSpace(part); part != "" {
			*p = append(*p, part)
		}
	}
	return nil
}

// unit is the package under analysis, which every phase reads.
type unit struct {
	pass   *analysis.Pass
	info   *types.Info
	module string // module path of the package, or "" outside a module
}

// run analyses one package in phases, each with its own state: scope (which functions are
// workflows), function values, the walk (hazards and calls, as events), facts (what every
// function reaches, exported for other packages) and the report (findings in workflow code).
func run(pass *analysis.Pass) (any, error) {
	if skipPackage(pass) {
		return nil, nil
	}
	if pass.TypesInfo == nil {
		return nil, nil
	}
	u := &unit{pass: pass, info: pass.TypesInfo}
	if pass.Module != nil {
		u.module = pass.Module.Path
	}
	dirs := collectDirectives(pass)
	sc := newScope()
	values := newFuncValues(u)
	cat := newCatalog(extraProviders)
	w := newWalker(u, cat, sc, values)
	ft := newFacts(u, values)
	root := inspector.New(pass.Files).Root()
	index(root, u.info, sc, values, w)
	w.findMapSeqs(root)
	w.walkPackage(root)
	w.flushWrites()
	w.flushMapReads()
	ft.summarize(w.events, dirs)
	rep := newReporter(u, dirs, sc, ft, cat)
	rep.report(w.events)
	rep.exportWiredCalls(w.events)
	rep.reportWired()
	return nil, nil
}

// index records, in one pass over the package, what the later phases look up: assignments (for
// the walk's provenance of *rand.Rand and fs.FS values), uses of local function variables (for
// their verdicts), and functions handed to SideEffect (out of scope).
func index(root inspector.Cursor, info *types.Info, sc *scope, values *funcValues, w *walker) {
	for cur := range root.Preorder((*ast.AssignStmt)(nil), (*ast.ValueSpec)(nil), (*ast.Ident)(nil), (*ast.CallExpr)(nil),
		(*ast.RangeStmt)(nil), (*ast.CompositeLit)(nil), (*ast.ReturnStmt)(nil)) {
		switch n := cur.Node().(type) {
		case *ast.CompositeLit:
			w.recordFields(n)
		case *ast.ReturnStmt:
			for enc := range cur.Enclosing((*ast.FuncDecl)(nil), (*ast.FuncLit)(nil)) {
				if decl, ok := enc.Node().(*ast.FuncDecl); ok {
					if fn, ok := info.Defs[decl.Name].(*types.Func); ok {
						w.recordReturns(fn, n)
					}
				}
				break // the innermost function: a literal's return is its own
			}
		case *ast.RangeStmt:
			for _, e := range []ast.Expr{n.Key, n.Value} {
				if id, ok := e.(*ast.Ident); ok && n.Tok == token.DEFINE {
					if v, ok := info.Defs[id].(*types.Var); ok {
						w.rangeOf[v] = n.X
					}
				}
			}
		case *ast.AssignStmt:
			if len(n.Lhs) == len(n.Rhs) {
				for i := range n.Lhs {
					w.recordAssign(n.Lhs[i], n.Rhs[i])
				}
			}
			values.recordTableParam(cur, n)
		case *ast.ValueSpec:
			if len(n.Names) == len(n.Values) {
				for i := range n.Names {
					w.recordAssign(n.Names[i], n.Values[i])
				}
			}
		case *ast.Ident:
			values.recordUse(cur, n)
		case *ast.CallExpr:
			if fn := typeutil.StaticCallee(info, n); fn != nil && sortsInPlace(fn) && len(n.Args) > 0 {
				switch x := ast.Unparen(n.Args[0]).(type) {
				case *ast.Ident:
					if v, ok := info.Uses[x].(*types.Var); ok {
						w.sorted[v] = true
					}
				case *ast.SelectorExpr: // a field sorted in place (slices.Sort(a.queue))
					if v, ok := info.Uses[x.Sel].(*types.Var); ok && v.IsField() {
						w.sorted[v] = true
					}
				}
			}
			values.recordReflected(cur)
			if fn := typeutil.StaticCallee(info, n); fn != nil && defersCallback(fn) {
				for _, arg := range n.Args {
					if f := funcRef(info, arg); f != nil {
						sc.callbacks[f] = true
					}
				}
			}
		}
	}
}
