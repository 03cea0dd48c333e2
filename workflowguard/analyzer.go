package workflowguard

import (
	"go/ast"
	"go/token"
	"go/types"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/ast/edge"
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
// library and the SDK (which this analyzer skips) was most of its peak memory.
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

// reachFact is exported on every function that reaches a hazard, directly or through callees,
// so that workflows in other packages see it without re-reading its body.
type reachFact struct {
	Paths  []reachPath // at most one per rule, the shortest chain, sorted by rule
	Module string      // module of the exporting package: ADK-W006 stays within one module
}

// reachPath is the shortest known call chain from a function to one hazard.
type reachPath struct {
	Rule   string   // ADK-W001..ADK-W004, ADK-W006
	Chain  []string // the function (or function variable) itself first, the hazard last
	Remedy string
}

// AFact marks reachFact as an analysis fact.
func (*reachFact) AFact() {}

func (f *reachFact) String() string {
	parts := make([]string, len(f.Paths))
	for i, p := range f.Paths {
		parts[i] = p.Rule + " " + strings.Join(p.Chain, " → ")
	}
	return "reaches(" + strings.Join(parts, "; ") + ")"
}

// verdict says whether a function value reaches a call on the path that holds it.
type verdict int

const (
	opaque   verdict = iota // stored where only reflection can call it (any, interfaces): activities
	deferred                // handed to workflow.SideEffect or MutableSideEffect: recorded, not replayed
	reached                 // called, or stored where it can be called
)

// walkState is what the walker knows about the code it is in.
type walkState struct {
	decl  *ast.FuncDecl // enclosing declaration, for doc-comment directives
	fn    types.Object  // function, or function variable or field, whose summary collects hazards, or nil
	owner ast.Node      // workflow (FuncDecl or FuncLit) whose report collects hazards, or nil
}

func (s walkState) active() bool { return s.fn != nil || s.owner != nil }

// event is one use of a hazard or of a function that may reach one.
type event struct {
	node   ast.Node
	st     walkState
	direct *hazard      // a hazard itself
	callee types.Object // or a function, interface method or function variable whose reach is looked up
	value  bool         // taken as a function value rather than called
}

type pathSet map[string]reachPath

// checker holds the per-package state of one run.
type checker struct {
	pass *analysis.Pass
	info *types.Info
	cat  *catalog
	dirs *directives

	assigns         map[*types.Var][]ast.Expr
	funcVarUses     map[*types.Var][]inspector.Cursor
	varVerdicts     map[*types.Var]verdict
	sideEffectFuncs map[*types.Func]bool
	roots           map[types.Object]bool
	events          []event
	summaries       map[types.Object]pathSet
	facts           map[types.Object]pathSet
	fieldNames      map[*types.Var]string         // (pkg.T).f for fields of the package's struct types
	impls           map[*types.Func][]*types.Func // implementations of interface methods, by method
	candidates      []*types.Named                // named types visible to the package, once computed
	candidatesDone  bool
	module          string
	sources         map[string][]byte // file contents read for suggested fixes
}

func run(pass *analysis.Pass) (any, error) {
	if skipPackage(pass) {
		return nil, nil
	}
	if pass.TypesInfo == nil {
		return nil, nil
	}
	in := inspector.New(pass.Files)
	c := &checker{
		pass:            pass,
		info:            pass.TypesInfo,
		cat:             newCatalog(extraProviders),
		dirs:            collectDirectives(pass),
		assigns:         map[*types.Var][]ast.Expr{},
		funcVarUses:     map[*types.Var][]inspector.Cursor{},
		varVerdicts:     map[*types.Var]verdict{},
		sideEffectFuncs: map[*types.Func]bool{},
		roots:           map[types.Object]bool{},
		summaries:       map[types.Object]pathSet{},
		facts:           map[types.Object]pathSet{},
		fieldNames:      map[*types.Var]string{},
		impls:           map[*types.Func][]*types.Func{},
		sources:         map[string][]byte{},
	}
	if pass.Module != nil {
		c.module = pass.Module.Path
	}
	c.index(in.Root())
	c.walkPackage(in.Root())
	c.summarize()
	c.report()
	return nil, nil
}

// skipPackage reports whether the package is trusted and needs neither facts nor findings: the
// standard library (hazards there are matched at the call, and following its internals only
// yields noise such as log.Printf reading the clock) and the Temporal SDK itself.
func skipPackage(pass *analysis.Pass) bool {
	path := pass.Pkg.Path()
	if trustedPath(path) {
		return true
	}
	if !stdLike(path) {
		return false
	}
	for _, f := range pass.Files {
		if tf := pass.Fset.File(f.Pos()); tf != nil && inGOROOT(filepath.Dir(tf.Name()), path) {
			return true
		}
	}
	return false
}

// trustedPath reports whether path is the Temporal SDK or one of its RPC dependencies.
func trustedPath(path string) bool {
	for _, p := range []string{"go.temporal.io", "google.golang.org/grpc", "google.golang.org/protobuf"} {
		if underPath(path, p) {
			return true
		}
	}
	return false
}

// stdLike reports whether path has no dot in its first element, as standard library paths.
func stdLike(path string) bool {
	first, _, _ := strings.Cut(path, "/")
	return !strings.Contains(first, ".")
}

var gorootCache sync.Map // root directory → bool

// inGOROOT reports whether dir is GOROOT/src/path of some Go installation, recognised by its
// src/runtime directory rather than by an environment variable or a fixed location.
func inGOROOT(dir, path string) bool {
	suffix := filepath.FromSlash("/src/" + path)
	root, ok := strings.CutSuffix(dir, suffix)
	if !ok {
		return false
	}
	if v, ok := gorootCache.Load(root); ok {
		return v.(bool)
	}
	st, err := os.Stat(filepath.Join(root, "src", "runtime"))
	isRoot := err == nil && st.IsDir()
	gorootCache.Store(root, isRoot)
	return isRoot
}

// isWorkflowContext reports whether t is go.temporal.io/sdk/workflow.Context: through any chain
// of aliases (user aliases, workflow.Context = internal.Context = workflowcontext.Context in the
// SDK), and by the named type it finally denotes.
func isWorkflowContext(t types.Type) bool {
	for {
		switch tt := t.(type) {
		case *types.Alias:
			if isContextObj(tt.Obj()) {
				return true
			}
			t = tt.Rhs()
		case *types.Named:
			return isContextObj(tt.Obj())
		default:
			return false
		}
	}
}

func isContextObj(obj *types.TypeName) bool {
	if obj.Pkg() == nil || obj.Name() != "Context" {
		return false
	}
	switch obj.Pkg().Path() {
	case "go.temporal.io/sdk/workflow", "go.temporal.io/sdk/internal",
		"go.temporal.io/sdk/internal/common/workflowcontext":
		return true
	}
	return false
}

// isWorkflowSig reports whether sig's first parameter is a workflow context.
func isWorkflowSig(sig *types.Signature) bool {
	return sig != nil && sig.Params().Len() > 0 && isWorkflowContext(sig.Params().At(0).Type())
}

// defersCallback reports whether fn runs its callback once and records the result, so that code
// inside the callback never runs on replay.
func defersCallback(fn *types.Func) bool {
	if fn.Pkg() == nil {
		return false
	}
	switch fn.Pkg().Path() {
	case "go.temporal.io/sdk/workflow", "go.temporal.io/sdk/internal":
		return oneOf(fn.Name(), "SideEffect", "SideEffectWithOptions", "MutableSideEffect", "MutableSideEffectWithOptions")
	}
	return false
}

func isFuncType(t types.Type) bool {
	_, ok := t.Underlying().(*types.Signature)
	return ok
}

func (c *checker) isLocal(v *types.Var) bool {
	return v.Pkg() == c.pass.Pkg && !v.IsField() && v.Parent() != nil && v.Parent() != c.pass.Pkg.Scope()
}

// funcRef returns the function e names (pkg.F, F, T.M, x.M, F[int]), or nil.
func (c *checker) funcRef(e ast.Expr) *types.Func {
	e = unparenIndex(e)
	if sel, ok := e.(*ast.SelectorExpr); ok {
		e = sel.Sel
	}
	if id, ok := e.(*ast.Ident); ok {
		if fn, ok := c.info.Uses[id].(*types.Func); ok {
			return fn.Origin()
		}
	}
	return nil
}

// unparenIndex strips parentheses and generic instantiations.
func unparenIndex(e ast.Expr) ast.Expr {
	for {
		switch x := e.(type) {
		case *ast.ParenExpr:
			e = x.X
		case *ast.IndexExpr:
			e = x.X
		case *ast.IndexListExpr:
			e = x.X
		default:
			return e
		}
	}
}

// index records, in one pass, what the walk needs to look up: assignments (for the provenance
// of *rand.Rand values), uses of local function variables, and functions handed to SideEffect.
func (c *checker) index(root inspector.Cursor) {
	scope := c.pass.Pkg.Scope()
	for _, name := range scope.Names() {
		tn, ok := scope.Lookup(name).(*types.TypeName)
		if !ok || tn.IsAlias() {
			continue
		}
		if st, ok := tn.Type().Underlying().(*types.Struct); ok {
			for f := range st.Fields() {
				c.fieldNames[f] = "(" + c.pass.Pkg.Name() + "." + tn.Name() + ")." + f.Name()
			}
		}
	}
	record := func(lhs ast.Expr, rhs ast.Expr) {
		if id, ok := ast.Unparen(lhs).(*ast.Ident); ok {
			if v, ok := c.info.ObjectOf(id).(*types.Var); ok {
				c.assigns[v] = append(c.assigns[v], rhs)
			}
		}
	}
	for cur := range root.Preorder((*ast.AssignStmt)(nil), (*ast.ValueSpec)(nil), (*ast.Ident)(nil), (*ast.CallExpr)(nil)) {
		switch n := cur.Node().(type) {
		case *ast.AssignStmt:
			if len(n.Lhs) == len(n.Rhs) {
				for i := range n.Lhs {
					record(n.Lhs[i], n.Rhs[i])
				}
			}
		case *ast.ValueSpec:
			if len(n.Names) == len(n.Values) {
				for i := range n.Names {
					record(n.Names[i], n.Values[i])
				}
			}
		case *ast.Ident:
			if v, ok := c.info.Uses[n].(*types.Var); ok && c.isLocal(v) && isFuncType(v.Type()) {
				c.funcVarUses[v] = append(c.funcVarUses[v], cur)
			}
		case *ast.CallExpr:
			if fn := typeutil.StaticCallee(c.info, n); fn != nil && defersCallback(fn) {
				for _, arg := range n.Args {
					if f := c.funcRef(arg); f != nil {
						c.sideEffectFuncs[f] = true
					}
				}
			}
		}
	}
}

// walkPackage walks every function declaration (workflows are report roots, every function is
// summarised for facts) and package-level variables (for workflow function literals).
func (c *checker) walkPackage(root inspector.Cursor) {
	for cur := range root.Preorder((*ast.FuncDecl)(nil), (*ast.GenDecl)(nil)) {
		if cur.ParentEdgeKind() != edge.File_Decls {
			continue
		}
		switch n := cur.Node().(type) {
		case *ast.FuncDecl:
			fn, _ := c.info.Defs[n.Name].(*types.Func)
			if n.Body == nil || fn == nil {
				continue
			}
			st := walkState{decl: n, fn: fn}
			// A function handed to SideEffect is a callback, not a workflow, even though its first
			// parameter is a workflow.Context; a workflow that calls it directly still reaches it.
			if isWorkflowSig(fn.Signature()) && !c.sideEffectFuncs[fn] {
				st.owner = n
				c.roots[fn] = true
			}
			c.walk(cur.Child(n.Body), st)
		case *ast.GenDecl:
			c.walk(cur, walkState{})
		}
	}
}

// walk visits the code under cur with the given state.
func (c *checker) walk(cur inspector.Cursor, st walkState) {
	cur.Inspect(nil, func(cc inspector.Cursor) bool {
		switch n := cc.Node().(type) {
		case *ast.FuncLit:
			if v := c.storedVar(cc); v != nil {
				// A literal kept in a package variable or a struct field: what it reaches is
				// the variable's, reported where the variable is called.
				c.walk(cc.Child(n.Body), walkState{decl: st.decl, fn: v})
			}
			c.visitLit(cc, n, st)
			return false
		case *ast.CallExpr:
			if st.active() {
				c.visitCall(n, st)
			}
		case *ast.Ident:
			c.visitIdent(cc, n, st)
		case *ast.GoStmt, *ast.SendStmt, *ast.UnaryExpr, *ast.RangeStmt:
			if st.active() && !isSelectComm(cc) {
				c.visitConcurrency(n, st)
			}
		case *ast.SelectStmt:
			if st.active() {
				// The select is the finding; its communications are not reported again.
				c.direct(n, st, hazard{rule: RuleConcurrency, callee: "select statement", remedy: remedySelect})
			}
		}
		return true
	})
}

// direct records a hazard at n.
func (c *checker) direct(n ast.Node, st walkState, h hazard) {
	c.events = append(c.events, event{node: n, st: st, direct: &h})
}

// Remedies of ADK-W006.
const (
	remedyGo       = "start it with workflow.Go(ctx, func(ctx workflow.Context) { ... })"
	remedyChan     = "use workflow.NewChannel(ctx) or NewBufferedChannel and its Send and Receive"
	remedySelect   = "use workflow.NewSelector(ctx) with AddReceive and AddFuture"
	remedyMapOrder = "iterate slices.Sorted(maps.Keys(m)) so that the commands come in the same order on replay"
)

// isSelectComm reports whether cur is the communication of a select case (case ch <- v,
// case <-ch, case v := <-ch), which the select statement's finding covers.
func isSelectComm(cur inspector.Cursor) bool {
	switch cur.ParentEdgeKind() {
	case edge.CommClause_Comm:
		return true
	case edge.ExprStmt_X, edge.AssignStmt_Rhs:
		return cur.Parent().ParentEdgeKind() == edge.CommClause_Comm
	}
	return false
}

// visitConcurrency records native concurrency, and a map iteration whose order decides commands.
func (c *checker) visitConcurrency(n ast.Node, st walkState) {
	isChan := func(e ast.Expr) bool {
		t := c.info.TypeOf(e)
		if t == nil {
			return false
		}
		_, ok := t.Underlying().(*types.Chan)
		return ok
	}
	conc := func(n ast.Node, what, remedy string, fix fixKind) {
		c.direct(n, st, hazard{rule: RuleConcurrency, callee: what, remedy: remedy, fix: fix})
	}
	switch n := n.(type) {
	case *ast.GoStmt:
		conc(n, "go statement", remedyGo, fixGo)
	case *ast.SendStmt:
		if isChan(n.Chan) {
			conc(n, "send on a Go channel", remedyChan, noFix)
		}
	case *ast.UnaryExpr:
		if n.Op == token.ARROW && isChan(n.X) && !c.isHazardCall(n.X) { // <-time.After(d) is ADK-W003
			conc(n, "receive from a Go channel", remedyChan, noFix)
		}
	case *ast.RangeStmt:
		if isChan(n.X) {
			conc(n.X, "range over a Go channel", remedyChan, noFix)
		} else if c.mapOrder(n.X) && c.issuesCommand(n.Body) {
			conc(n.X, "range over a map whose order decides commands", remedyMapOrder, noFix)
		}
	}
}

// isHazardCall reports whether e is a call of a catalogued hazard.
func (c *checker) isHazardCall(e ast.Expr) bool {
	if call, ok := ast.Unparen(e).(*ast.CallExpr); ok {
		if fn := typeutil.StaticCallee(c.info, call); fn != nil {
			_, hazard := c.cat.lookup(fn.Origin())
			return hazard
		}
	}
	return false
}

// mapOrder reports whether ranging over x visits a map in Go's randomised order: a map, or
// maps.Keys, maps.Values or maps.All of one (slices.Sorted(maps.Keys(m)) is a slice).
func (c *checker) mapOrder(x ast.Expr) bool {
	if t := c.info.TypeOf(x); t != nil {
		if _, ok := t.Underlying().(*types.Map); ok {
			return true
		}
	}
	if call, ok := ast.Unparen(x).(*ast.CallExpr); ok {
		if fn := typeutil.StaticCallee(c.info, call); fn != nil && fn.Pkg() != nil && fn.Pkg().Path() == "maps" {
			return oneOf(fn.Name(), "Keys", "Values", "All")
		}
	}
	return false
}

// commandFuncs are the SDK functions that schedule a command, or (Go) a coroutine whose
// commands follow in start order.
var commandFuncs = []string{
	"ExecuteActivity", "ExecuteLocalActivity", "ExecuteChildWorkflow", "NewTimer", "Sleep",
	"SideEffect", "SideEffectWithOptions", "MutableSideEffect", "MutableSideEffectWithOptions", "GetVersion",
	"SignalExternalWorkflow", "RequestCancelExternalWorkflow", "UpsertSearchAttributes",
	"UpsertTypedSearchAttributes", "UpsertMemo", "NewContinueAsNewError", "Go", "GoNamed",
}

// issuesCommand reports whether body calls something that issues a workflow command: an SDK
// function that schedules one, a send on a workflow channel, or a helper that takes the
// workflow context. Logging, metrics and workflow.Now do not.
func (c *checker) issuesCommand(body ast.Node) bool {
	found := false
	ast.Inspect(body, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if found || !ok {
			return !found
		}
		fn, ok := typeutil.Callee(c.info, call).(*types.Func)
		if !ok || fn.Pkg() == nil {
			return true
		}
		switch path := fn.Pkg().Path(); {
		case path == "go.temporal.io/sdk/workflow" || path == "go.temporal.io/sdk/internal":
			if recv := receiverName(fn); recv == "" {
				found = oneOf(fn.Name(), commandFuncs...)
			} else {
				found = oneOf(fn.Name(), "Send", "SendAsync", "ExecuteOperation")
			}
		case !trustedPath(path) && isWorkflowSig(fn.Signature()):
			found = true
		}
		return !found
	})
	return found
}

// visitLit decides what a closure belongs to: the enclosing function when it is reached, nothing
// when it is a SideEffect callback, and its own report when it is itself a workflow.
func (c *checker) visitLit(cur inspector.Cursor, lit *ast.FuncLit, st walkState) {
	v := c.classify(cur)
	if v == deferred {
		return
	}
	next := walkState{decl: st.decl}
	if v == reached {
		next.fn, next.owner = st.fn, st.owner
	}
	if sig, ok := c.info.TypeOf(lit).(*types.Signature); ok && isWorkflowSig(sig) {
		next.owner = lit
	}
	c.walk(cur.Child(lit.Body), next)
}

func (c *checker) visitCall(call *ast.CallExpr, st walkState) {
	switch obj := typeutil.Callee(c.info, call).(type) {
	case *types.Func:
		if isFSRead(obj) && len(call.Args) > 0 {
			if src := c.origin(call.Args[0], isDirFS, map[*types.Var]bool{}, 0); src != "" {
				c.direct(call, st, hazard{rule: RuleIO, callee: "io/fs." + obj.Name() + " on " + src, remedy: remedyLocal})
			}
			return
		}
		c.use(obj, c.methodReceiver(call.Fun), call, st, false)
	case *types.Var:
		if isFuncVar(obj) {
			c.events = append(c.events, event{node: call, st: st, callee: obj})
		}
	}
	// Anything else is a builtin, a conversion, or a call through a local variable (judged where
	// the value was taken).
}

func isDirFS(fn *types.Func) string {
	if fn.Pkg() != nil && fn.Pkg().Path() == "os" && fn.Name() == "DirFS" {
		return "os.DirFS"
	}
	return ""
}

// isFuncVar reports whether v is a package-level variable or a struct field of function type:
// the function values the analyzer follows from where they are stored to where they are called.
func isFuncVar(v *types.Var) bool {
	return v.Pkg() != nil && isFuncType(v.Type()) && (v.IsField() || v.Parent() == v.Pkg().Scope())
}

// storedVar returns the package variable or struct field of this package that the value at cur
// is stored into (var v = f, v = f, T{F: f}, T{f}, x.F = f), or nil.
func (c *checker) storedVar(cur inspector.Cursor) *types.Var {
	for cur.ParentEdgeKind() == edge.ParenExpr_X {
		cur = cur.Parent()
	}
	k, idx := cur.ParentEdge()
	if k == edge.Invalid {
		return nil
	}
	parent := cur.Parent().Node()
	var v *types.Var
	switch k {
	case edge.AssignStmt_Rhs:
		if as := parent.(*ast.AssignStmt); len(as.Lhs) == len(as.Rhs) {
			v = c.varOf(as.Lhs[idx])
		}
	case edge.ValueSpec_Values:
		if vs := parent.(*ast.ValueSpec); len(vs.Names) == len(vs.Values) {
			v, _ = c.info.Defs[vs.Names[idx]].(*types.Var)
		}
	case edge.KeyValueExpr_Value:
		if id, ok := parent.(*ast.KeyValueExpr).Key.(*ast.Ident); ok {
			v, _ = c.info.Uses[id].(*types.Var)
		}
	case edge.CompositeLit_Elts:
		lit := parent.(*ast.CompositeLit)
		if t := c.info.TypeOf(lit); t != nil {
			if s, ok := t.Underlying().(*types.Struct); ok && idx < s.NumFields() {
				v = s.Field(idx)
			}
		}
	}
	if v != nil && v.Pkg() == c.pass.Pkg && isFuncVar(v) {
		return v
	}
	return nil
}

// varOf returns the variable or field an assignment's left-hand side names.
func (c *checker) varOf(e ast.Expr) *types.Var {
	switch x := ast.Unparen(e).(type) {
	case *ast.Ident:
		v, _ := c.info.ObjectOf(x).(*types.Var)
		return v
	case *ast.SelectorExpr:
		if s := c.info.Selections[x]; s != nil {
			if s.Kind() == types.FieldVal {
				v, _ := s.Obj().(*types.Var)
				return v
			}
			return nil
		}
		v, _ := c.info.Uses[x.Sel].(*types.Var)
		return v
	}
	return nil
}

// methodReceiver returns x in x.M when it selects a method value, or nil.
func (c *checker) methodReceiver(fun ast.Expr) ast.Expr {
	if sel, ok := unparenIndex(fun).(*ast.SelectorExpr); ok {
		if s := c.info.Selections[sel]; s != nil && s.Kind() == types.MethodVal {
			return sel.X
		}
	}
	return nil
}

func (c *checker) visitIdent(cur inspector.Cursor, id *ast.Ident, st walkState) {
	switch obj := c.info.Uses[id].(type) {
	case *types.Func:
		value := cur
		if cur.ParentEdgeKind() == edge.SelectorExpr_Sel {
			value = cur.Parent()
		}
		for {
			k := value.ParentEdgeKind()
			if k != edge.ParenExpr_X && k != edge.IndexExpr_X && k != edge.IndexListExpr_X {
				break
			}
			value = value.Parent()
		}
		if value.ParentEdgeKind() == edge.CallExpr_Fun {
			return // a call, handled by visitCall
		}
		recv := c.methodReceiver(value.Node().(ast.Expr))
		if v := c.storedVar(value); v != nil {
			c.use(obj, recv, value.Node(), walkState{decl: st.decl, fn: v}, true)
			return
		}
		if !st.active() || c.classify(value) != reached {
			return
		}
		c.use(obj, recv, value.Node(), st, true)
	case *types.Var:
		if !st.active() {
			return
		}
		if h, ok := c.cat.lookupVar(obj); ok {
			c.events = append(c.events, event{node: id, st: st, direct: &h})
		}
	}
}

// use records a call to fn, or fn taken as a value, at n.
func (c *checker) use(fn *types.Func, recv ast.Expr, n ast.Node, st walkState, value bool) {
	fn = fn.Origin()
	if h, ok := c.cat.lookup(fn); ok {
		c.events = append(c.events, event{node: n, st: st, direct: &h, value: value})
		return
	}
	if isRandRandDraw(fn) {
		if seed := c.seededBy(recv, map[*types.Var]bool{}, 0); seed != "" {
			h := hazard{rule: RuleRandomness, callee: displayName(fn, true) + " on a source seeded from " + seed, remedy: remedyRandom}
			c.events = append(c.events, event{node: n, st: st, direct: &h, value: value})
		}
		return
	}
	if fn.Pkg() == nil {
		return
	}
	c.events = append(c.events, event{node: n, st: st, callee: fn, value: value})
}

// seededBy returns the clock read or random draw that e (a *rand.Rand or its source) was built
// from, following assignments to variables of this package, or "" when there is none.
// rand.New(workflow.GetRandomStream(ctx, name)) and fixed seeds are deterministic.
func (c *checker) seededBy(e ast.Expr, seen map[*types.Var]bool, depth int) string {
	return c.origin(e, func(fn *types.Func) string {
		if h, ok := c.cat.lookup(fn); ok && (h.rule == RuleRandomness || h.rule == RuleWallClock) {
			return h.callee
		}
		return ""
	}, seen, depth)
}

// origin returns what match names for the first call in e, or in the values assigned to the
// variables of this package e uses (transitively), or "" when there is none.
func (c *checker) origin(e ast.Expr, match func(*types.Func) string, seen map[*types.Var]bool, depth int) string {
	if e == nil || depth > 8 {
		return ""
	}
	found := ""
	ast.Inspect(e, func(n ast.Node) bool {
		if found != "" {
			return false
		}
		switch n := n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.CallExpr:
			if fn := typeutil.StaticCallee(c.info, n); fn != nil {
				if found = match(fn.Origin()); found != "" {
					return false
				}
			}
		case *ast.Ident:
			if v, ok := c.info.Uses[n].(*types.Var); ok && v.Pkg() == c.pass.Pkg && !seen[v] {
				seen[v] = true
				for _, rhs := range c.assigns[v] {
					if found = c.origin(rhs, match, seen, depth+1); found != "" {
						return false
					}
				}
			}
		}
		return true
	})
	return found
}

// classify decides whether the function value at cur (a literal, a function or method name, or
// a local function variable) is reached: called, or stored where it can be called.
func (c *checker) classify(cur inspector.Cursor) verdict {
	for cur.ParentEdgeKind() == edge.ParenExpr_X {
		cur = cur.Parent()
	}
	if c.storedVar(cur) != nil {
		return opaque // the variable carries it: reported where it is called
	}
	k, idx := cur.ParentEdge()
	parent := cur.Parent().Node()
	switch k {
	case edge.CallExpr_Fun:
		return reached
	case edge.CallExpr_Args:
		call := parent.(*ast.CallExpr)
		if fn := typeutil.StaticCallee(c.info, call); fn != nil && defersCallback(fn) {
			return deferred
		}
		return sink(c.argType(call, idx))
	case edge.AssignStmt_Lhs:
		return opaque
	case edge.AssignStmt_Rhs:
		as := parent.(*ast.AssignStmt)
		if len(as.Lhs) != len(as.Rhs) {
			return reached
		}
		return c.storeTo(as.Lhs[idx])
	case edge.ValueSpec_Values:
		vs := parent.(*ast.ValueSpec)
		if len(vs.Names) != len(vs.Values) {
			return reached
		}
		return c.storeTo(vs.Names[idx])
	case edge.KeyValueExpr_Value:
		if lit, ok := cur.Parent().Parent().Node().(*ast.CompositeLit); ok {
			return sink(c.elemType(lit, parent.(*ast.KeyValueExpr).Key, -1))
		}
	case edge.CompositeLit_Elts:
		return sink(c.elemType(parent.(*ast.CompositeLit), nil, idx))
	case edge.ReturnStmt_Results:
		return sink(c.resultType(cur.Parent(), idx))
	}
	return reached
}

// sink judges a destination by its type: only reflection calls a function stored in an
// interface (this is how activities reach workflow.ExecuteActivity).
func sink(t types.Type) verdict {
	if t == nil {
		return reached
	}
	if _, ok := types.Unalias(t).(*types.TypeParam); ok {
		return reached
	}
	if types.IsInterface(t) {
		return opaque
	}
	return reached
}

func (c *checker) storeTo(lhs ast.Expr) verdict {
	if id, ok := ast.Unparen(lhs).(*ast.Ident); ok {
		if id.Name == "_" {
			return opaque
		}
		if v, ok := c.info.ObjectOf(id).(*types.Var); ok && c.isLocal(v) && isFuncType(v.Type()) {
			return c.varVerdict(v)
		}
	}
	return sink(c.info.TypeOf(lhs))
}

// varVerdict judges a local function variable by all its uses.
func (c *checker) varVerdict(v *types.Var) verdict {
	if got, ok := c.varVerdicts[v]; ok {
		return got
	}
	c.varVerdicts[v] = opaque // breaks cycles such as f = g; g = f
	result := opaque
	for _, u := range c.funcVarUses[v] {
		switch c.classify(u) {
		case reached:
			result = reached
		case deferred:
			if result == opaque {
				result = deferred
			}
		}
		if result == reached {
			break
		}
	}
	c.varVerdicts[v] = result
	return result
}

func (c *checker) argType(call *ast.CallExpr, idx int) types.Type {
	tv, ok := c.info.Types[call.Fun]
	if !ok || tv.Type == nil {
		return nil
	}
	if tv.IsType() {
		return tv.Type // a conversion
	}
	sig, ok := tv.Type.Underlying().(*types.Signature)
	if !ok {
		return nil
	}
	params := sig.Params()
	if sig.Variadic() && idx >= params.Len()-1 {
		last := params.At(params.Len() - 1).Type()
		if call.Ellipsis.IsValid() {
			return last
		}
		if s, ok := last.Underlying().(*types.Slice); ok {
			return s.Elem()
		}
		return last
	}
	if idx < params.Len() {
		return params.At(idx).Type()
	}
	return nil
}

// elemType is the type of a composite literal element, by key or by position.
func (c *checker) elemType(lit *ast.CompositeLit, key ast.Expr, idx int) types.Type {
	t := c.info.TypeOf(lit)
	if t == nil {
		return nil
	}
	switch u := t.Underlying().(type) {
	case *types.Struct:
		if id, ok := key.(*ast.Ident); ok {
			for i := range u.NumFields() {
				if u.Field(i).Name() == id.Name {
					return u.Field(i).Type()
				}
			}
		} else if key == nil && idx >= 0 && idx < u.NumFields() {
			return u.Field(idx).Type()
		}
	case *types.Map:
		return u.Elem()
	case *types.Slice:
		return u.Elem()
	case *types.Array:
		return u.Elem()
	}
	return nil
}

// resultType is the declared type of result idx of the function enclosing ret.
func (c *checker) resultType(ret inspector.Cursor, idx int) types.Type {
	for enc := range ret.Enclosing((*ast.FuncLit)(nil), (*ast.FuncDecl)(nil)) {
		var sig *types.Signature
		switch n := enc.Node().(type) {
		case *ast.FuncLit:
			sig, _ = c.info.TypeOf(n).(*types.Signature)
		case *ast.FuncDecl:
			if fn, ok := c.info.Defs[n.Name].(*types.Func); ok {
				sig = fn.Signature()
			}
		}
		if sig != nil && idx < sig.Results().Len() && len(ret.Node().(*ast.ReturnStmt).Results) == sig.Results().Len() {
			return sig.Results().At(idx).Type()
		}
		return nil
	}
	return nil
}

// calleePaths returns what obj (a function, an interface method, a function variable or field)
// reaches: this package's summary, the fact another package's pass exported (the standard
// library and the SDK export none), or for an interface method the union over its
// implementations.
func (c *checker) calleePaths(obj types.Object) pathSet {
	if fn, ok := obj.(*types.Func); ok && isAbstract(fn) {
		return c.interfacePaths(fn)
	}
	if obj.Pkg() == c.pass.Pkg {
		return c.summaries[obj]
	}
	if ps, ok := c.facts[obj]; ok {
		return ps
	}
	var ps pathSet
	var f reachFact
	if c.pass.ImportObjectFact(obj, &f) {
		ps = pathSet{}
		for _, p := range f.Paths {
			if p.Rule == RuleConcurrency && f.Module != c.module {
				continue // a library's own goroutines and channels are its business
			}
			ps[p.Rule] = p
		}
	}
	c.facts[obj] = ps
	return ps
}

// isAbstract reports whether fn is an interface method.
func isAbstract(fn *types.Func) bool {
	recv := fn.Signature().Recv()
	return recv != nil && types.IsInterface(recv.Type())
}

// interfacePaths is what a call through the interface method fn reaches: for each rule, the
// shortest chain through any implementation among the named types the package sees.
func (c *checker) interfacePaths(fn *types.Func) pathSet {
	ps := pathSet{}
	for _, impl := range c.implementations(fn) {
		for _, p := range c.calleePaths(impl) {
			if cur, ok := ps[p.Rule]; ok && len(cur.Chain) <= len(p.Chain)+1 {
				continue
			}
			ps[p.Rule] = reachPath{Rule: p.Rule, Chain: append([]string{displayName(fn, false)}, p.Chain...), Remedy: p.Remedy}
		}
	}
	return ps
}

// implementations returns the concrete methods that a call of the interface method fn may run:
// class-hierarchy analysis over the named types declared in this package and the packages it
// imports, directly or not. Interfaces of the standard library and the SDK are not resolved
// (io.Writer has implementations everywhere; the SDK's are its own business).
func (c *checker) implementations(fn *types.Func) []*types.Func {
	if impls, ok := c.impls[fn]; ok {
		return impls
	}
	var impls []*types.Func
	iface, _ := fn.Signature().Recv().Type().Underlying().(*types.Interface)
	if iface != nil && fn.Pkg() != nil && !c.library(fn.Pkg()) {
		for _, t := range c.candidateTypes() {
			ptr := types.NewPointer(t)
			if !types.Implements(ptr, iface) {
				continue
			}
			if m, ok := types.NewMethodSet(ptr).Lookup(fn.Pkg(), fn.Name()).Obj().(*types.Func); ok && !isAbstract(m) {
				impls = append(impls, m.Origin())
			}
		}
	}
	c.impls[fn] = impls
	return impls
}

// candidateTypes lists the non-generic, non-interface named types declared in the package and
// its transitive imports, leaving out the standard library and the SDK.
func (c *checker) candidateTypes() []*types.Named {
	if c.candidatesDone {
		return c.candidates
	}
	c.candidatesDone = true
	seen := map[*types.Package]bool{}
	var visit func(p *types.Package)
	visit = func(p *types.Package) {
		if seen[p] || p != c.pass.Pkg && c.library(p) {
			return
		}
		seen[p] = true
		scope := p.Scope()
		for _, name := range scope.Names() {
			tn, ok := scope.Lookup(name).(*types.TypeName)
			if !ok || tn.IsAlias() {
				continue
			}
			if n, ok := tn.Type().(*types.Named); ok && n.TypeParams().Len() == 0 && !types.IsInterface(n) {
				c.candidates = append(c.candidates, n)
			}
		}
		for _, imp := range p.Imports() {
			visit(imp)
		}
	}
	visit(c.pass.Pkg)
	return c.candidates
}

// library reports whether p is the standard library or the SDK, whose interfaces and types the
// interface resolution leaves out: a path without a dot in its first element that is not under
// the module being analysed (a module may be named without a dot), or a trusted path.
func (c *checker) library(p *types.Package) bool {
	path := p.Path()
	return trustedPath(path) || stdLike(path) && (c.module == "" || !underPath(path, c.module))
}

// display names a summarised object at the head of a chain.
func (c *checker) display(obj types.Object) string {
	if fn, ok := obj.(*types.Func); ok {
		return displayName(fn, false)
	}
	if v, ok := obj.(*types.Var); ok {
		if name, ok := c.fieldNames[v]; ok {
			return name
		}
	}
	return obj.Pkg().Name() + "." + obj.Name()
}

// summarize computes, for every function and function variable declared in the package, the
// shortest chain to each kind of hazard it reaches (a fixpoint over same-package calls; other
// packages come from facts), and exports the result as facts.
func (c *checker) summarize() {
	offer := func(obj types.Object, p reachPath) bool {
		ps := c.summaries[obj]
		if ps == nil {
			ps = pathSet{}
			c.summaries[obj] = ps
		}
		if cur, ok := ps[p.Rule]; ok && len(cur.Chain) <= len(p.Chain) {
			return false
		}
		ps[p.Rule] = p
		return true
	}
	var calls []*event
	for i := range c.events {
		e := &c.events[i]
		if e.st.fn == nil {
			continue
		}
		if e.direct == nil {
			calls = append(calls, e)
			continue
		}
		if c.dirs.suppressed(e.node.Pos(), e.st.decl, e.direct.rule) {
			continue
		}
		offer(e.st.fn, reachPath{
			Rule:   e.direct.rule,
			Chain:  []string{c.display(e.st.fn), e.direct.callee},
			Remedy: e.direct.remedy,
		})
	}
	for changed := true; changed; {
		changed = false
		for _, e := range calls {
			for _, p := range sortedPaths(c.calleePaths(e.callee)) {
				if c.dirs.suppressed(e.node.Pos(), e.st.decl, RuleReach, p.Rule) {
					continue
				}
				chain := append([]string{c.display(e.st.fn)}, p.Chain...)
				if offer(e.st.fn, reachPath{Rule: p.Rule, Chain: chain, Remedy: p.Remedy}) {
					changed = true
				}
			}
		}
	}
	objs := make([]types.Object, 0, len(c.summaries))
	for obj := range c.summaries {
		objs = append(objs, obj)
	}
	sort.Slice(objs, func(i, j int) bool { return objs[i].Pos() < objs[j].Pos() })
	for _, obj := range objs {
		if paths := sortedPaths(c.summaries[obj]); len(paths) > 0 {
			c.pass.ExportObjectFact(obj, &reachFact{Paths: paths, Module: c.module})
		}
	}
}

func sortedPaths(ps pathSet) []reachPath {
	paths := make([]reachPath, 0, len(ps))
	for _, p := range ps {
		paths = append(paths, p)
	}
	slices.SortFunc(paths, func(a, b reachPath) int { return strings.Compare(a.Rule, b.Rule) })
	return paths
}

// report emits one diagnostic per hazard used in workflow code.
func (c *checker) report() {
	seen := map[string]bool{}
	emit := func(n ast.Node, rule, msg string, fixes []analysis.SuggestedFix) {
		key := c.pass.Fset.Position(n.Pos()).String() + msg
		if seen[key] {
			return
		}
		seen[key] = true
		c.pass.Report(analysis.Diagnostic{Pos: n.Pos(), End: n.End(), Category: rule, Message: msg, SuggestedFixes: fixes})
	}
	for i := range c.events {
		e := &c.events[i]
		if e.st.owner == nil {
			continue
		}
		how := ""
		if e.value {
			how = ", taken as a function value"
		}
		if e.direct != nil {
			if !c.dirs.suppressed(e.node.Pos(), e.st.decl, e.direct.rule) {
				emit(e.node, e.direct.rule, e.direct.rule+" "+ruleSummary(e.direct.rule)+
					" ("+e.direct.callee+how+"); "+e.direct.remedy, c.suggestedFixes(e))
			}
			continue
		}
		if e.callee.Pkg() == c.pass.Pkg && c.roots[e.callee] {
			continue // a workflow of this package: its own findings are reported where they are
		}
		for _, p := range sortedPaths(c.calleePaths(e.callee)) {
			if c.dirs.suppressed(e.node.Pos(), e.st.decl, RuleReach, p.Rule) {
				continue
			}
			emit(e.node, RuleReach, RuleReach+" helper reaches "+ruleNoun(p.Rule)+" ("+p.Rule+") on the workflow path ("+
				strings.Join(p.Chain, " → ")+how+"); "+p.Remedy, nil)
		}
	}
}
