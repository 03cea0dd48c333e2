package workflowguard

import (
	"go/ast"
	"go/types"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/analysis/passes/inspect"
	"golang.org/x/tools/go/ast/edge"
	"golang.org/x/tools/go/ast/inspector"
	"golang.org/x/tools/go/types/typeutil"
)

const analyzerDoc = `workflowguard: report replay hazards on the Temporal workflow path

workflowguard checks every function whose first parameter is a
go.temporal.io/sdk/workflow.Context (through aliases), the closures inside
it, and everything it calls across packages, for model provider calls
(ADK-W001), random draws (ADK-W002), the wall clock (ADK-W003), network and
process I/O (ADK-W004), and helpers that reach any of them (ADK-W005).
Code inside workflow.SideEffect and MutableSideEffect callbacks and in
activities is out of scope unless a workflow calls it directly.

A finding is silenced by a directive that names the rule and a reason, on
the line, on the line above, or in the function's doc comment:

	//workflowguard:ignore ADK-W003 the timestamp only feeds a log line`

// Analyzer reports replay hazards (ADK-W001..ADK-W005) on the Temporal workflow path.
var Analyzer = &analysis.Analyzer{
	Name:      "workflowguard",
	Doc:       analyzerDoc,
	URL:       "https://pkg.go.dev/github.com/temporaladk/adk-go/workflowguard",
	Requires:  []*analysis.Analyzer{inspect.Analyzer},
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
	Paths []reachPath // at most one per rule, the shortest chain, sorted by rule
}

// reachPath is the shortest known call chain from a function to one hazard.
type reachPath struct {
	Rule   string   // ADK-W001..ADK-W004
	Chain  []string // the function itself first, the hazard last
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

// ruleNoun names a hazard in an ADK-W005 message.
var ruleNoun = map[string]string{
	RuleModelCall:  "a model provider call",
	RuleRandomness: "a random draw",
	RuleWallClock:  "the wall clock",
	RuleIO:         "network or process I/O",
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
	fn    *types.Func   // function whose summary collects hazards, or nil
	owner ast.Node      // workflow (FuncDecl or FuncLit) whose report collects hazards, or nil
}

func (s walkState) active() bool { return s.fn != nil || s.owner != nil }

// event is one use of a hazard or of a function that may reach one.
type event struct {
	node   ast.Node
	st     walkState
	direct *hazard     // a hazard itself
	callee *types.Func // or a function whose reach is looked up
	value  bool        // taken as a function value rather than called
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
	roots           map[*types.Func]bool
	events          []event
	summaries       map[*types.Func]pathSet
	facts           map[*types.Func]pathSet
}

func run(pass *analysis.Pass) (any, error) {
	if skipPackage(pass) {
		return nil, nil
	}
	in, ok := pass.ResultOf[inspect.Analyzer].(*inspector.Inspector)
	if !ok || pass.TypesInfo == nil {
		return nil, nil
	}
	c := &checker{
		pass:            pass,
		info:            pass.TypesInfo,
		cat:             newCatalog(extraProviders),
		dirs:            collectDirectives(pass),
		assigns:         map[*types.Var][]ast.Expr{},
		funcVarUses:     map[*types.Var][]inspector.Cursor{},
		varVerdicts:     map[*types.Var]verdict{},
		sideEffectFuncs: map[*types.Func]bool{},
		roots:           map[*types.Func]bool{},
		summaries:       map[*types.Func]pathSet{},
		facts:           map[*types.Func]pathSet{},
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
	for _, p := range []string{"go.temporal.io", "google.golang.org/grpc", "google.golang.org/protobuf"} {
		if underPath(path, p) {
			return true
		}
	}
	first, _, _ := strings.Cut(path, "/")
	if strings.Contains(first, ".") {
		return false
	}
	for _, f := range pass.Files {
		if tf := pass.Fset.File(f.Pos()); tf != nil && inGOROOT(filepath.Dir(tf.Name()), path) {
			return true
		}
	}
	return false
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
			c.visitLit(cc, n, st)
			return false
		case *ast.CallExpr:
			if st.active() {
				c.visitCall(n, st)
			}
		case *ast.Ident:
			if st.active() {
				c.visitIdent(cc, n, st)
			}
		}
		return true
	})
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
	fn, ok := typeutil.Callee(c.info, call).(*types.Func)
	if !ok {
		return // a builtin, a conversion, or a call through a variable (judged where the value was taken)
	}
	c.use(fn, c.methodReceiver(call.Fun), call, st, false)
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
		if c.classify(value) != reached {
			return
		}
		c.use(obj, c.methodReceiver(value.Node().(ast.Expr)), value.Node(), st, true)
	case *types.Var:
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
				if h, ok := c.cat.lookup(fn.Origin()); ok && (h.rule == RuleRandomness || h.rule == RuleWallClock) {
					found = h.callee
					return false
				}
			}
		case *ast.Ident:
			if v, ok := c.info.Uses[n].(*types.Var); ok && v.Pkg() == c.pass.Pkg && !seen[v] {
				seen[v] = true
				for _, rhs := range c.assigns[v] {
					if found = c.seededBy(rhs, seen, depth+1); found != "" {
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

// calleePaths returns what fn reaches: this package's summary, or the fact another package's
// pass exported (the standard library and the SDK export none).
func (c *checker) calleePaths(fn *types.Func) pathSet {
	if fn.Pkg() == c.pass.Pkg {
		return c.summaries[fn]
	}
	if ps, ok := c.facts[fn]; ok {
		return ps
	}
	var ps pathSet
	var f reachFact
	if c.pass.ImportObjectFact(fn, &f) {
		ps = pathSet{}
		for _, p := range f.Paths {
			ps[p.Rule] = p
		}
	}
	c.facts[fn] = ps
	return ps
}

// summarize computes, for every function declared in the package, the shortest chain to each
// kind of hazard it reaches (a fixpoint over same-package calls; other packages come from
// facts), and exports the result as facts.
func (c *checker) summarize() {
	offer := func(fn *types.Func, p reachPath) bool {
		ps := c.summaries[fn]
		if ps == nil {
			ps = pathSet{}
			c.summaries[fn] = ps
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
			Chain:  []string{displayName(e.st.fn, false), e.direct.callee},
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
				chain := append([]string{displayName(e.st.fn, false)}, p.Chain...)
				if offer(e.st.fn, reachPath{Rule: p.Rule, Chain: chain, Remedy: p.Remedy}) {
					changed = true
				}
			}
		}
	}
	fns := make([]*types.Func, 0, len(c.summaries))
	for fn := range c.summaries {
		fns = append(fns, fn)
	}
	sort.Slice(fns, func(i, j int) bool { return fns[i].Pos() < fns[j].Pos() })
	for _, fn := range fns {
		if paths := sortedPaths(c.summaries[fn]); len(paths) > 0 {
			c.pass.ExportObjectFact(fn, &reachFact{Paths: paths})
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
	emit := func(n ast.Node, rule, msg string) {
		key := c.pass.Fset.Position(n.Pos()).String() + msg
		if seen[key] {
			return
		}
		seen[key] = true
		c.pass.Report(analysis.Diagnostic{Pos: n.Pos(), End: n.End(), Category: rule, Message: msg})
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
				emit(e.node, e.direct.rule, e.direct.rule+" "+ruleSummary[e.direct.rule]+
					" ("+e.direct.callee+how+"); "+e.direct.remedy)
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
			emit(e.node, RuleReach, RuleReach+" helper reaches "+ruleNoun[p.Rule]+" ("+p.Rule+") on the workflow path ("+
				strings.Join(p.Chain, " → ")+how+"); "+p.Remedy)
		}
	}
}
