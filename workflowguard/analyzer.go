package workflowguard

import (
	"go/ast"
	"go/types"
	"strings"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/ast/inspector"
	"golang.org/x/tools/go/types/typeutil"
)

const analyzerDoc = `workflowguard: report replay hazards on the Temporal workflow path

workflowguard checks every function whose first parameter is a
go.temporal.io/sdk/workflow.Context (through aliases), the closures inside
it, and everything it calls across packages (through function variables,
struct fields and interface methods too), for model provider calls
(ADK-W001), random draws (ADK-W002), the wall clock (ADK-W003), network,
process, environment and file I/O (ADK-W004), helpers that reach any of them
(ADK-W005), and native concurrency or map order that decides commands
(ADK-W006). Code inside workflow.SideEffect and MutableSideEffect callbacks
and in activities is out of scope unless a workflow calls it directly.
time.Now, time.Since, time.Sleep and go statements come with suggested fixes.

A finding is silenced by a directive that names the rule and a reason, on
the line, on the line above, or in the function's doc comment:

	//workflowguard:ignore ADK-W003 the timestamp only feeds a log line`

// Analyzer reports replay hazards (ADK-W001..ADK-W006) on the Temporal workflow path.
//
// It builds its own inspector instead of requiring inspect.Analyzer: the driver keeps every
// analyzer's result until the run ends, and an inspector for each package of the standard
// library and the SDK (which this analyzer skips) would be most of its peak memory.
var Analyzer = &analysis.Analyzer{
	Name:      "workflowguard",
	Doc:       analyzerDoc,
	URL:       "https://pkg.go.dev/github.com/temporaladk/adk-go/workflowguard",
	FactTypes: []analysis.Fact{(*reachFact)(nil)},
	Run:       run,
}

// extraProviders holds the -providers flag: more model provider import path prefixes.
var extraProviders providerList

func init() {
	Analyzer.Flags.Var(&extraProviders, "providers",
		"comma-separated import path prefixes of more model provider SDKs for ADK-W001 (added to the built-in list)")
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
	w := newWalker(u, newCatalog(extraProviders), sc, values)
	fs := newFacts(u, values)
	root := inspector.New(pass.Files).Root()
	index(root, u.info, sc, values, w)
	w.walkPackage(root)
	fs.summarize(w.events, dirs)
	newReporter(u, dirs, sc, fs).report(w.events)
	return nil, nil
}

// index records, in one pass over the package, what the later phases look up: assignments (for
// the walk's provenance of *rand.Rand and fs.FS values), uses of local function variables (for
// their verdicts), and functions handed to SideEffect (out of scope).
func index(root inspector.Cursor, info *types.Info, sc *scope, values *funcValues, w *walker) {
	for cur := range root.Preorder((*ast.AssignStmt)(nil), (*ast.ValueSpec)(nil), (*ast.Ident)(nil), (*ast.CallExpr)(nil)) {
		switch n := cur.Node().(type) {
		case *ast.AssignStmt:
			if len(n.Lhs) == len(n.Rhs) {
				for i := range n.Lhs {
					w.recordAssign(n.Lhs[i], n.Rhs[i])
				}
			}
		case *ast.ValueSpec:
			if len(n.Names) == len(n.Values) {
				for i := range n.Names {
					w.recordAssign(n.Names[i], n.Values[i])
				}
			}
		case *ast.Ident:
			values.recordUse(cur, n)
		case *ast.CallExpr:
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
