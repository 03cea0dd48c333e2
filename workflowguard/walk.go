package workflowguard

import (
	"go/ast"
	"go/token"
	"go/types"

	"golang.org/x/tools/go/ast/edge"
	"golang.org/x/tools/go/ast/inspector"
	"golang.org/x/tools/go/types/typeutil"
)

// walker is the phase that walks the call graph of the package: every function declaration and
// the closures it reaches, recording each hazard and each call of something that may reach one
// as an event, with the function whose summary and the workflow whose report it belongs to.
type walker struct {
	*unit
	cat     *catalog
	scope   *scope
	values  *funcValues
	assigns map[*types.Var][]ast.Expr // values assigned to each variable, for provenance
	events  []event
}

func newWalker(u *unit, cat *catalog, sc *scope, values *funcValues) *walker {
	return &walker{unit: u, cat: cat, scope: sc, values: values, assigns: map[*types.Var][]ast.Expr{}}
}

// recordAssign remembers rhs as a value of the variable lhs names, if it names one.
func (w *walker) recordAssign(lhs, rhs ast.Expr) {
	if id, ok := ast.Unparen(lhs).(*ast.Ident); ok {
		if v, ok := w.info.ObjectOf(id).(*types.Var); ok {
			w.assigns[v] = append(w.assigns[v], rhs)
		}
	}
}

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

// walkPackage walks every function declaration (workflows are report roots, every function is
// summarised for facts) and package-level variables (for workflow function literals).
func (w *walker) walkPackage(root inspector.Cursor) {
	for cur := range root.Preorder((*ast.FuncDecl)(nil), (*ast.GenDecl)(nil)) {
		if cur.ParentEdgeKind() != edge.File_Decls {
			continue
		}
		switch n := cur.Node().(type) {
		case *ast.FuncDecl:
			fn, _ := w.info.Defs[n.Name].(*types.Func)
			if n.Body == nil || fn == nil {
				continue
			}
			st := walkState{decl: n, fn: fn}
			if w.scope.workflowDecl(fn) {
				st.owner = n
			}
			w.walk(cur.Child(n.Body), st)
		case *ast.GenDecl:
			w.walk(cur, walkState{})
		}
	}
}

// walk visits the code under cur with the given state.
func (w *walker) walk(cur inspector.Cursor, st walkState) {
	cur.Inspect(nil, func(cc inspector.Cursor) bool {
		switch n := cc.Node().(type) {
		case *ast.FuncLit:
			if v := w.values.storedVar(cc); v != nil {
				// A literal kept in a package variable or a struct field: what it reaches is
				// the variable's, reported where the variable is called.
				w.walk(cc.Child(n.Body), walkState{decl: st.decl, fn: v})
			}
			w.visitLit(cc, n, st)
			return false
		case *ast.CallExpr:
			if st.active() {
				w.visitCall(n, st)
			}
		case *ast.Ident:
			w.visitIdent(cc, n, st)
		case *ast.GoStmt, *ast.SendStmt, *ast.UnaryExpr, *ast.RangeStmt:
			if st.active() && !isSelectComm(cc) {
				w.visitConcurrency(n, st)
			}
		case *ast.SelectStmt:
			if st.active() {
				// The select is the finding; its communications are not reported again.
				w.direct(n, st, hazard{rule: RuleConcurrency, callee: "select statement", remedy: remedySelect})
			}
		}
		return true
	})
}

// direct records a hazard at n.
func (w *walker) direct(n ast.Node, st walkState, h hazard) {
	w.events = append(w.events, event{node: n, st: st, direct: &h})
}

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
func (w *walker) visitConcurrency(n ast.Node, st walkState) {
	isChan := func(e ast.Expr) bool {
		t := w.info.TypeOf(e)
		if t == nil {
			return false
		}
		_, ok := t.Underlying().(*types.Chan)
		return ok
	}
	conc := func(n ast.Node, what string, remedy remedyID, fix fixKind) {
		w.direct(n, st, hazard{rule: RuleConcurrency, callee: what, remedy: remedy, fix: fix})
	}
	switch n := n.(type) {
	case *ast.GoStmt:
		conc(n, "go statement", remedyGo, fixGo)
	case *ast.SendStmt:
		if isChan(n.Chan) {
			conc(n, "send on a Go channel", remedyChan, noFix)
		}
	case *ast.UnaryExpr:
		if n.Op == token.ARROW && isChan(n.X) && !w.isHazardCall(n.X) { // <-time.After(d) is ADK-W003
			conc(n, "receive from a Go channel", remedyChan, noFix)
		}
	case *ast.RangeStmt:
		if isChan(n.X) {
			conc(n.X, "range over a Go channel", remedyChan, noFix)
		} else if w.mapOrder(n.X) && w.issuesCommand(n.Body) {
			conc(n.X, "range over a map whose order decides commands", remedyMapOrder, noFix)
		}
	}
}

// isHazardCall reports whether e is a call of a catalogued hazard.
func (w *walker) isHazardCall(e ast.Expr) bool {
	if call, ok := ast.Unparen(e).(*ast.CallExpr); ok {
		if fn := typeutil.StaticCallee(w.info, call); fn != nil {
			_, hazard := w.cat.lookup(fn.Origin())
			return hazard
		}
	}
	return false
}

// mapOrder reports whether ranging over x visits a map in Go's randomised order: a map, or
// maps.Keys, maps.Values or maps.All of one (slices.Sorted(maps.Keys(m)) is a slice).
func (w *walker) mapOrder(x ast.Expr) bool {
	if t := w.info.TypeOf(x); t != nil {
		if _, ok := t.Underlying().(*types.Map); ok {
			return true
		}
	}
	if call, ok := ast.Unparen(x).(*ast.CallExpr); ok {
		if fn := typeutil.StaticCallee(w.info, call); fn != nil && fn.Pkg() != nil && fn.Pkg().Path() == "maps" {
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
func (w *walker) issuesCommand(body ast.Node) bool {
	found := false
	ast.Inspect(body, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if found || !ok {
			return !found
		}
		fn, ok := typeutil.Callee(w.info, call).(*types.Func)
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
func (w *walker) visitLit(cur inspector.Cursor, lit *ast.FuncLit, st walkState) {
	v := w.values.classify(cur)
	if v == deferred {
		return
	}
	next := walkState{decl: st.decl}
	if v == reached {
		next.fn, next.owner = st.fn, st.owner
	}
	if sig, ok := w.info.TypeOf(lit).(*types.Signature); ok && isWorkflowSig(sig) {
		next.owner = lit
	}
	w.walk(cur.Child(lit.Body), next)
}

func (w *walker) visitCall(call *ast.CallExpr, st walkState) {
	switch obj := typeutil.Callee(w.info, call).(type) {
	case *types.Func:
		if isFSRead(obj) && len(call.Args) > 0 {
			if src := w.origin(call.Args[0], isDirFS, map[*types.Var]bool{}, 0); src != "" {
				w.direct(call, st, hazard{rule: RuleIO, callee: "io/fs." + obj.Name() + " on " + src, remedy: remedyLocal})
			}
			return
		}
		w.use(obj, w.values.methodReceiver(call.Fun), call, st, false)
	case *types.Var:
		if isFuncVar(obj) {
			w.events = append(w.events, event{node: call, st: st, callee: obj})
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

func (w *walker) visitIdent(cur inspector.Cursor, id *ast.Ident, st walkState) {
	switch obj := w.info.Uses[id].(type) {
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
		recv := w.values.methodReceiver(value.Node().(ast.Expr))
		if v := w.values.storedVar(value); v != nil {
			w.use(obj, recv, value.Node(), walkState{decl: st.decl, fn: v}, true)
			return
		}
		if !st.active() || w.values.classify(value) != reached {
			return
		}
		w.use(obj, recv, value.Node(), st, true)
	case *types.Var:
		if !st.active() {
			return
		}
		if h, ok := w.cat.lookupVar(obj); ok {
			w.events = append(w.events, event{node: id, st: st, direct: &h})
		}
	}
}

// use records a call to fn, or fn taken as a value, at n.
func (w *walker) use(fn *types.Func, recv ast.Expr, n ast.Node, st walkState, value bool) {
	fn = fn.Origin()
	if h, ok := w.cat.lookup(fn); ok {
		w.events = append(w.events, event{node: n, st: st, direct: &h, value: value})
		return
	}
	if isRandRandDraw(fn) {
		if seed := w.seededBy(recv, map[*types.Var]bool{}, 0); seed != "" {
			h := hazard{rule: RuleRandomness, callee: displayName(fn, true) + " on a source seeded from " + seed, remedy: remedyRandom}
			w.events = append(w.events, event{node: n, st: st, direct: &h, value: value})
		}
		return
	}
	if fn.Pkg() == nil {
		return
	}
	w.events = append(w.events, event{node: n, st: st, callee: fn, value: value})
}

// seededBy returns the clock read or random draw that e (a *rand.Rand or its source) was built
// from, following assignments to variables of this package, or "" when there is none.
// rand.New(workflow.GetRandomStream(ctx, name)) and fixed seeds are deterministic.
func (w *walker) seededBy(e ast.Expr, seen map[*types.Var]bool, depth int) string {
	return w.origin(e, func(fn *types.Func) string {
		if h, ok := w.cat.lookup(fn); ok && (h.rule == RuleRandomness || h.rule == RuleWallClock) {
			return h.callee
		}
		return ""
	}, seen, depth)
}

// origin returns what match names for the first call in e, or in the values assigned to the
// variables of this package e uses (transitively), or "" when there is none.
func (w *walker) origin(e ast.Expr, match func(*types.Func) string, seen map[*types.Var]bool, depth int) string {
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
			if fn := typeutil.StaticCallee(w.info, n); fn != nil {
				if found = match(fn.Origin()); found != "" {
					return false
				}
			}
		case *ast.Ident:
			if v, ok := w.info.Uses[n].(*types.Var); ok && v.Pkg() == w.pass.Pkg && !seen[v] {
				seen[v] = true
				for _, rhs := range w.assigns[v] {
					if found = w.origin(rhs, match, seen, depth+1); found != "" {
						return false
					}
				}
			}
		}
		return true
	})
	return found
}
