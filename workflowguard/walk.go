package workflowguard

import (
	"go/ast"
	"go/constant"
	"go/token"
	"go/types"
	"strconv"
	"strings"

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
	assigns map[*types.Var][]ast.Expr            // values assigned to each variable, for provenance
	fields  map[*types.Var]map[string][]ast.Expr // values assigned to v.F, by variable and field name
	// fieldValues are the values stored into each struct field of the package's code, in
	// composite literals and assignments, for the provenance of a backoff kept in a field.
	fieldValues map[*types.Var][]ast.Expr
	// returns are the results each function declared in the package returns, by index.
	returns map[*types.Func][][]ast.Expr
	// initValues caches likelyInitValue per package-level variable.
	initValues map[*types.Var]string
	sorted     map[*types.Var]bool        // local slices passed to sort.* or slices.Sort*
	rangeOf    map[*types.Var]ast.Expr    // what the key or value variable of a range statement ranges over
	mapSeqs    map[*types.Func]bool       // functions of the package that return an iterator over a map
	writes     []globalWrite              // writes to package-level variables, kept if the variable is read (flushWrites)
	reads      map[*types.Var]globalReads // where package-level variables of the package are read
	mapReads   []globalWrite              // reads of package-level maps, kept if the map is a cache (flushMapReads)
	mapWriters map[*types.Var][]walkState // where elements of package-level maps are set, deleted or cleared
	events     []event
}

func newWalker(u *unit, cat *catalog, sc *scope, values *funcValues) *walker {
	return &walker{unit: u, cat: cat, scope: sc, values: values, assigns: map[*types.Var][]ast.Expr{},
		fields: map[*types.Var]map[string][]ast.Expr{}, fieldValues: map[*types.Var][]ast.Expr{},
		returns: map[*types.Func][][]ast.Expr{}, initValues: map[*types.Var]string{},
		sorted: map[*types.Var]bool{}, rangeOf: map[*types.Var]ast.Expr{}, mapSeqs: map[*types.Func]bool{},
		reads: map[*types.Var]globalReads{}, mapWriters: map[*types.Var][]walkState{}}
}

// recordFields remembers the values a composite literal of a struct type gives its fields.
func (w *walker) recordFields(lit *ast.CompositeLit) {
	t := w.info.TypeOf(lit)
	if t == nil {
		return
	}
	st, ok := t.Underlying().(*types.Struct)
	if !ok {
		return
	}
	for i, elt := range lit.Elts {
		if kv, ok := elt.(*ast.KeyValueExpr); ok {
			if key, ok := kv.Key.(*ast.Ident); ok {
				if f, ok := w.info.Uses[key].(*types.Var); ok {
					w.fieldValues[f] = append(w.fieldValues[f], kv.Value)
				}
			}
		} else if i < st.NumFields() {
			w.fieldValues[st.Field(i)] = append(w.fieldValues[st.Field(i)], elt)
		}
	}
}

// recordReturns remembers the results of a return statement of the declared function fn.
func (w *walker) recordReturns(fn *types.Func, ret *ast.ReturnStmt) {
	if len(ret.Results) != fn.Signature().Results().Len() {
		return
	}
	if w.returns[fn] == nil {
		w.returns[fn] = make([][]ast.Expr, len(ret.Results))
	}
	for i, r := range ret.Results {
		w.returns[fn][i] = append(w.returns[fn][i], r)
	}
}

// builtBy returns what match names for a call that built the value of e: in e itself, in the
// values assigned to the variables it uses, in the results returned by the functions of this
// package it calls, and in the values stored into the struct fields it reads (a backoff made by
// a constructor and kept in a field of the workflow's struct). It returns "" when there is none.
func (w *walker) builtBy(e ast.Expr, match func(*types.Func) string) string {
	seen := map[types.Object]bool{}
	var visit func(e ast.Expr, depth int) string
	visit = func(e ast.Expr, depth int) string {
		if e == nil || depth > 8 {
			return ""
		}
		found := ""
		follow := func(obj types.Object, values []ast.Expr) {
			if seen[obj] {
				return
			}
			seen[obj] = true
			for _, v := range values {
				if found = visit(v, depth+1); found != "" {
					return
				}
			}
		}
		ast.Inspect(e, func(n ast.Node) bool {
			if found != "" {
				return false
			}
			switch n := n.(type) {
			case *ast.FuncLit:
				return false
			case *ast.CallExpr:
				if fn := typeutil.StaticCallee(w.info, n); fn != nil {
					if found = match(fn.Origin()); found == "" && fn.Pkg() == w.pass.Pkg {
						if results := w.returns[fn.Origin()]; len(results) > 0 {
							follow(fn.Origin(), results[0]) // the first result: a constructor's value
						}
					}
				}
			case *ast.SelectorExpr:
				if sel := w.info.Selections[n]; sel != nil && sel.Kind() == types.FieldVal {
					follow(sel.Obj(), w.fieldValues[sel.Obj().(*types.Var)])
				}
			case *ast.Ident:
				if v, ok := w.info.Uses[n].(*types.Var); ok && v.Pkg() == w.pass.Pkg {
					follow(v, w.assigns[v])
				}
			}
			return found == ""
		})
		return found
	}
	return visit(e, 0)
}

// promotedFrom returns the embedded field a method call's selector reaches its method through
// (x.NextBackOff() with NextBackOff promoted from the BackOff x's struct embeds), or nil.
func (w *walker) promotedFrom(n ast.Node) *types.Var {
	if call, ok := n.(*ast.CallExpr); ok {
		n = call.Fun
	}
	sel, ok := n.(*ast.SelectorExpr)
	if !ok {
		return nil
	}
	s := w.info.Selections[sel]
	if s == nil || s.Kind() != types.MethodVal || len(s.Index()) < 2 {
		return nil
	}
	t := s.Recv()
	var field *types.Var
	for _, i := range s.Index()[:len(s.Index())-1] {
		st, ok := derefType(t).Underlying().(*types.Struct)
		if !ok || i >= st.NumFields() {
			return nil
		}
		field = st.Field(i)
		t = field.Type()
	}
	return field
}

// recordAssign remembers rhs as a value of the variable lhs names, if it names one.
func (w *walker) recordAssign(lhs, rhs ast.Expr) {
	switch x := ast.Unparen(lhs).(type) {
	case *ast.Ident:
		if v, ok := w.info.ObjectOf(x).(*types.Var); ok {
			w.assigns[v] = append(w.assigns[v], rhs)
		}
	case *ast.SelectorExpr:
		if sel := w.info.Selections[x]; sel != nil && sel.Kind() == types.FieldVal {
			if f, ok := sel.Obj().(*types.Var); ok {
				w.fieldValues[f] = append(w.fieldValues[f], rhs)
			}
		}
		// v.F = rhs: how a value built elsewhere was then set up (bo.RandomizationFactor = 0).
		if id, ok := ast.Unparen(x.X).(*ast.Ident); ok {
			if v, ok := w.info.Uses[id].(*types.Var); ok {
				if w.fields[v] == nil {
					w.fields[v] = map[string][]ast.Expr{}
				}
				w.fields[v][x.Sel.Name] = append(w.fields[v][x.Sel.Name], rhs)
			}
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
	// tparam is 1 + the index of the type parameter of the enclosing generic function whose
	// method callee is (b.Next() with b of type B): resolved per instantiation, at the callers.
	tparam int
	targs  *types.TypeList // the type arguments of a call of a generic function, or nil
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
				w.visitGlobalCall(cc, n, st)
			}
		case *ast.AssignStmt:
			if st.active() && n.Tok != token.DEFINE {
				w.visitWrites(n, n.Lhs, st)
			}
		case *ast.IncDecStmt:
			if st.active() {
				w.visitWrites(n, []ast.Expr{n.X}, st)
			}
		case *ast.Ident:
			w.visitIdent(cc, n, st)
		case *ast.SelectorExpr:
			if f := w.values.reflectedField(cc); f != nil && st.active() {
				// A field of interface type whose value is called through reflection.
				w.events = append(w.events, event{node: n, st: st, callee: f, value: true})
			}
		case *ast.IndexExpr:
			if t := w.values.tableOf(n); t != nil && st.active() && cc.ParentEdgeKind() != edge.AssignStmt_Lhs &&
				w.values.classify(cc) == reached {
				// An element of a function table, called here or kept where it is called.
				w.events = append(w.events, event{node: n, st: st, callee: t, value: cc.ParentEdgeKind() != edge.CallExpr_Fun})
			}
		case *ast.GoStmt, *ast.SendStmt, *ast.UnaryExpr, *ast.RangeStmt, *ast.ForStmt:
			if r, ok := n.(*ast.RangeStmt); ok && st.active() {
				w.visitTableRange(r, st)
			}
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

// visitTableRange records a range over a function table whose elements the loop calls (for _, f
// := range steps { f() }) as a use of the table.
func (w *walker) visitTableRange(r *ast.RangeStmt, st walkState) {
	id, ok := r.Value.(*ast.Ident)
	if !ok || r.Tok != token.DEFINE {
		return
	}
	x := ast.Unparen(r.X)
	if sel, ok := x.(*ast.SelectorExpr); ok {
		x = sel.Sel
	}
	xid, ok := x.(*ast.Ident)
	if !ok {
		return
	}
	table, ok := w.info.Uses[xid].(*types.Var)
	if !ok || !isFuncTable(table) {
		return
	}
	if v, ok := w.info.Defs[id].(*types.Var); ok && w.values.varVerdict(v) == reached {
		w.events = append(w.events, event{node: r.X, st: st, callee: table, value: true})
	}
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
			if at := w.mapOrderAt(n.X); at != n.X && within(st, at) {
				// A slice filled in map order: the order was frozen where it was filled, and that is
				// the line to change (sort it there, or build it with slices.Sorted).
				w.direct(at, st, hazard{rule: RuleConcurrency,
					callee: "slice filled in map order, ranged at line " + w.line(n.X) + " where its order decides commands",
					remedy: remedyMapOrder})
				return
			}
			w.direct(n.X, st, hazard{rule: RuleConcurrency, callee: "range over a map whose order decides commands",
				remedy: remedyMapOrder, fix: fixSortedKeys, loop: n})
		} else if w.mapOrder(n.X) && firstEntryOnly(n.Body) {
			conc(n.X, "first entry of a map, an arbitrary one", remedyMapOrder, noFix)
		}
	case *ast.ForStmt:
		w.visitIndexLoop(n, st)
	}
}

// visitIndexLoop reports a counting loop (for i := 0; i < len(s); i++) that indexes, with its
// counter, a slice filled in map order and issues commands: the order was frozen where the
// slice was filled, and the finding is made there, as for a range over the slice.
func (w *walker) visitIndexLoop(n *ast.ForStmt, st walkState) {
	init, ok := n.Init.(*ast.AssignStmt)
	if !ok || init.Tok != token.DEFINE || n.Body == nil || !w.issuesCommand(n.Body) {
		return
	}
	counters := map[types.Object]bool{}
	for _, lhs := range init.Lhs {
		if id, ok := lhs.(*ast.Ident); ok && w.info.Defs[id] != nil {
			counters[w.info.Defs[id]] = true
		}
	}
	done := false
	ast.Inspect(n.Body, func(x ast.Node) bool {
		ix, ok := x.(*ast.IndexExpr)
		if done || !ok {
			return !done
		}
		id, ok := ast.Unparen(ix.Index).(*ast.Ident)
		if !ok || !counters[w.info.Uses[id]] {
			return true
		}
		at, frozen := w.mapOrderAtDepth(ix.X, 0)
		if at == nil || !frozen {
			return true
		}
		done = true
		if !within(st, at) {
			at = ix.X
		}
		w.direct(at, st, hazard{rule: RuleConcurrency,
			callee: "slice filled in map order, indexed in a loop at line " + w.line(ix) + " where its order decides commands",
			remedy: remedyMapOrder})
		return false
	})
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

// mapOrder reports whether ranging over x visits a map in Go's randomised order: see
// mapOrderAt.
func (w *walker) mapOrder(x ast.Expr) bool { return w.mapOrderAt(x) != nil }

// mapOrderAt returns where the values of x got a map's order, or nil when they did not: x itself
// for a map; maps.Keys, Values or All of one; a call of a function that returns an iterator over a
// map (iterSeqOverMap, in this package or by fact); and, for a slice that holds them, the
// statement that froze the order: the slices.Collect or slices.AppendSeq that filled it, or the
// range over the map whose body appended to it. A local variable counts through its assignments
// unless it is sorted (sort.*, slices.Sort*); a variable holding an iterator yields in a fresh
// order at each range, so it is x again.
func (w *walker) mapOrderAt(x ast.Expr) ast.Node {
	at, _ := w.mapOrderAtDepth(x, 0)
	return at
}

// mapOrderAtDepth is mapOrderAt, and whether the order was frozen into a slice there.
func (w *walker) mapOrderAtDepth(x ast.Expr, depth int) (at ast.Node, frozen bool) {
	if depth > 4 {
		return nil, false
	}
	x = ast.Unparen(x)
	if t := w.info.TypeOf(x); t != nil {
		if _, ok := t.Underlying().(*types.Map); ok {
			return x, false
		}
	}
	switch x := x.(type) {
	case *ast.CallExpr:
		fn := typeutil.StaticCallee(w.info, x)
		if fn == nil {
			return nil, false
		}
		fn = fn.Origin()
		switch path := pkgPath(fn); {
		case path == "maps":
			if oneOf(fn.Name(), "Keys", "Values", "All") {
				return x, false
			}
			return nil, false
		case path == "slices" && fn.Name() == "Collect" && len(x.Args) == 1:
			return w.frozenAt(x, x.Args[0], depth)
		case path == "slices" && fn.Name() == "AppendSeq" && len(x.Args) == 2:
			if at, frozen := w.mapOrderAtDepth(x.Args[0], depth+1); at != nil {
				return at, frozen
			}
			return w.frozenAt(x, x.Args[1], depth)
		case path == "slices" && fn.Name() == "Values" && len(x.Args) == 1:
			return w.mapOrderAtDepth(x.Args[0], depth+1)
		}
		if w.seqOverMap(fn) {
			return x, false
		}
		// A function of this package that returns a slice filled in map order: the workflow's
		// call is where it gets the frozen order.
		if fn.Pkg() == w.pass.Pkg && len(w.returns[fn]) > 0 {
			for _, r := range w.returns[fn][0] {
				if at, frozen := w.mapOrderAtDepth(r, depth+1); at != nil && frozen {
					return x, true
				}
			}
		}
	case *ast.SelectorExpr:
		// A field of the package's struct types, through the values stored into it.
		sel := w.info.Selections[x]
		if sel == nil || sel.Kind() != types.FieldVal {
			return nil, false
		}
		f := sel.Obj().(*types.Var)
		if f.Pkg() != w.pass.Pkg || w.sorted[f] {
			return nil, false
		}
		for _, rhs := range w.fieldValues[f] {
			if at, frozen := w.mapOrderAtDepth(rhs, depth+1); at != nil && frozen {
				return at, true
			}
		}
	case *ast.Ident:
		v, ok := w.info.Uses[x].(*types.Var)
		if !ok || v.Pkg() != w.pass.Pkg || w.sorted[v] {
			return nil, false
		}
		for _, rhs := range w.assigns[v] {
			at, frozen := w.mapOrderAtDepth(rhs, depth+1)
			if at == nil {
				at, frozen = w.appendsMapEntries(rhs, depth), true
			}
			if at != nil && !frozen {
				return x, false // an iterator: its order is drawn again where it is ranged
			}
			if at != nil {
				return at, true
			}
		}
	}
	return nil, false
}

// frozenAt returns where collect, a call that fills a slice from seq, froze a map's order: at
// collect when seq yields in map order itself, at the earlier freeze when seq walks a slice that
// already holds one, or nil.
func (w *walker) frozenAt(collect *ast.CallExpr, seq ast.Expr, depth int) (ast.Node, bool) {
	at, frozen := w.mapOrderAtDepth(seq, depth+1)
	switch {
	case at == nil:
		return nil, false
	case frozen:
		return at, true
	}
	return collect, true
}

// appendsMapEntries returns the range over a map whose key or value e, an append(s, k...),
// appends (the range expression): the slice collects a map's entries in its order. It returns nil
// otherwise.
func (w *walker) appendsMapEntries(e ast.Expr, depth int) ast.Node {
	call, ok := ast.Unparen(e).(*ast.CallExpr)
	if !ok {
		return nil
	}
	if b, ok := typeutil.Callee(w.info, call).(*types.Builtin); !ok || b.Name() != "append" {
		return nil
	}
	if call.Ellipsis.IsValid() && len(call.Args) == 2 {
		// append(s, keys...) of a slice already in map order carries the order over.
		if at, frozen := w.mapOrderAtDepth(call.Args[1], depth+1); at != nil && frozen {
			return at
		}
	}
	for _, arg := range call.Args[1:] {
		if id, ok := ast.Unparen(arg).(*ast.Ident); ok {
			if v, ok := w.info.Uses[id].(*types.Var); ok {
				if over, ok := w.rangeOf[v]; ok {
					if at, _ := w.mapOrderAtDepth(over, depth+1); at != nil {
						return at
					}
				}
			}
		}
	}
	return nil
}

// within reports whether n lies in the code st walks: the body of its declaration, or of the
// workflow literal it belongs to (var Flow = func(ctx workflow.Context) ..., which has no
// declaration). A freeze point elsewhere is reported where the slice is ranged, so that the
// finding and a directive stay with the workflow's code.
func within(st walkState, n ast.Node) bool {
	var body *ast.BlockStmt
	switch {
	case st.decl != nil:
		body = st.decl.Body
	case st.owner != nil:
		if lit, ok := st.owner.(*ast.FuncLit); ok {
			body = lit.Body
		}
	}
	return body != nil && body.Pos() <= n.Pos() && n.End() <= body.End()
}

// line returns the line of n, for messages that point from one finding to a related line.
func (w *walker) line(n ast.Node) string {
	return strconv.Itoa(w.pass.Fset.Position(n.Pos()).Line)
}

// pkgPath returns the import path of fn's package, or "".
func pkgPath(fn *types.Func) string {
	if fn.Pkg() == nil {
		return ""
	}
	return fn.Pkg().Path()
}

// seqOverMap reports whether fn returns an iterator that yields a map's entries in its order: a
// function of this package (iterSeqOverMap) or of another that exported a mapOrderFact.
func (w *walker) seqOverMap(fn *types.Func) bool {
	if fn.Pkg() == w.pass.Pkg {
		return w.mapSeqs[fn]
	}
	if fn.Pkg() == nil || trustedPath(fn.Pkg().Path()) || stdLike(fn.Pkg().Path()) {
		return false
	}
	return w.pass.ImportObjectFact(fn, new(mapOrderFact))
}

// firstEntryOnly reports whether a loop body leaves the loop, unconditionally, in its first
// iteration (its last statement is a break or a return): over a map, it takes an arbitrary entry.
func firstEntryOnly(body *ast.BlockStmt) bool {
	if body == nil || len(body.List) == 0 {
		return false
	}
	switch last := body.List[len(body.List)-1].(type) {
	case *ast.BranchStmt:
		return last.Tok == token.BREAK && last.Label == nil
	case *ast.ReturnStmt:
		return true
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
	if w.isQueryHandler(cur) {
		w.visitQueryHandler(lit, st)
		return
	}
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
		recv := w.values.methodReceiver(call.Fun)
		if i := w.ownTypeParam(recv, st); i >= 0 && isAbstract(obj) {
			w.events = append(w.events, event{node: call, st: st, callee: obj, tparam: i + 1})
			return
		}
		w.use(obj, recv, call, st, false)
		if n := len(w.events); n > 0 && w.events[n-1].node == call && w.events[n-1].direct == nil {
			w.events[n-1].targs = w.typeArgs(call.Fun)
		}
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
		w.visitRead(cur, obj, st)
		if h, ok := w.cat.lookupVar(obj); ok {
			w.events = append(w.events, event{node: id, st: st, direct: &h})
		} else if likelyFindings && cur.ParentEdgeKind() != edge.AssignStmt_Lhs {
			if src := w.likelyInitValue(obj); src != "" {
				w.direct(id, st, hazard{rule: RuleGlobalState, callee: "likely: " + varName(obj) + ", set from " + src,
					remedy: remedyInitValue})
			}
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
	if v4, ok := isBackoffNext(fn); ok {
		for _, h := range w.backoffDraw(fn, recv, v4) {
			w.events = append(w.events, event{node: n, st: st, direct: &h, value: value})
		}
		return
	}
	if hs := w.backoffInterfaceNext(fn, recv, n); len(hs) > 0 {
		for _, h := range hs {
			w.events = append(w.events, event{node: n, st: st, direct: &h, value: value})
		}
		return
	}
	if isRandRandDraw(fn) {
		if seed := w.seededBy(recv, map[*types.Var]bool{}, 0); seed != "" {
			h := hazard{rule: RuleRandomness, callee: displayName(fn, true) + " on a source seeded from " + seed, remedy: remedyRandom}
			w.events = append(w.events, event{node: n, st: st, direct: &h, value: value})
		} else if v := w.packageVar(recv); v != nil && recv != nil {
			// A fixed seed is deterministic per generator, but a package-level generator is
			// drawn from by every run on the worker: each run's draws depend on the others.
			h := hazard{rule: RuleGlobalState, callee: displayName(fn, true) + " on " + varName(v) + ", shared by every run",
				remedy: remedyGlobal}
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

// isBackoffNext reports whether fn is (*ExponentialBackOff).NextBackOff of cenkalti/backoff, and
// whether it is of a version before v5, whose NextBackOff stops at MaxElapsedTime on the clock.
func isBackoffNext(fn *types.Func) (beforeV5, ok bool) {
	if fn.Pkg() == nil || !underPath(fn.Pkg().Path(), "github.com/cenkalti/backoff") ||
		receiverName(fn) != "ExponentialBackOff" || fn.Name() != "NextBackOff" {
		return false, false
	}
	return !underPath(fn.Pkg().Path(), "github.com/cenkalti/backoff/v5"), true
}

// backoffInterfaceNext returns the hazards of a call through a backoff library's interface whose
// value is seen where it was built: cenkalti/backoff's BackOff.NextBackOff (also promoted from a
// BackOff embedded in a struct) holding an ExponentialBackOff, judged as backoffDraw judges one;
// and sethvargo/go-retry's Backoff.Next of a backoff wrapped by WithMaxDuration, whose stop
// decision reads the wall clock at each call, or by WithJitter, which draws at each call. A value
// not seen where it was built is left to the interface's resolution, as before.
func (w *walker) backoffInterfaceNext(fn *types.Func, recv ast.Expr, n ast.Node) []hazard {
	if recv == nil || !isAbstract(fn) || fn.Pkg() == nil {
		return nil
	}
	path := fn.Pkg().Path()
	switch {
	case underPath(path, "github.com/cenkalti/backoff") && fn.Name() == "NextBackOff":
		setup, ok := w.backoffSetup(recv)
		if !ok || !setup.exponential {
			// Built by NewExponentialBackOff where this call cannot see its setup (a constructor,
			// a field of the workflow's struct, an embedded BackOff): its jitter and (before v5)
			// its deadline are not proved off, so it is judged as one with the defaults.
			if w.backoffBuiltBy(recv, n, func(c *types.Func) string {
				if c.Name() == "NewExponentialBackOff" && underPath(pkgPath(c), "github.com/cenkalti/backoff") {
					return c.Name()
				}
				return ""
			}) == "" {
				return nil
			}
			setup = backoffSetup{exponential: true, info: w.info}
		}
		beforeV5 := !underPath(path, "github.com/cenkalti/backoff/v5")
		name := "(*" + path + ".ExponentialBackOff).NextBackOff, through " + displayName(fn, true)
		var hs []hazard
		if !setup.zero("RandomizationFactor") {
			hs = append(hs, hazard{rule: RuleRandomness, callee: name, remedy: remedyJitter})
		}
		if beforeV5 && !setup.zero("MaxElapsedTime") {
			hs = append(hs, hazard{rule: RuleWallClock, callee: name + ", which stops at MaxElapsedTime on the wall clock",
				remedy: remedyDeadline})
		}
		return hs
	case underPath(path, "github.com/sethvargo/go-retry") && fn.Name() == "Next":
		var hs []hazard
		built := func(names ...string) string {
			return w.backoffBuiltBy(recv, n, func(c *types.Func) string {
				if c.Pkg() == fn.Pkg() && oneOf(c.Name(), names...) {
					return c.Name()
				}
				return ""
			})
		}
		if by := built("WithJitter", "WithJitterPercent"); by != "" {
			hs = append(hs, hazard{rule: RuleRandomness, callee: displayName(fn, true) + " of a backoff made by " + by +
				", which draws at each call", remedy: remedyJitter})
		}
		if by := built("WithMaxDuration"); by != "" {
			hs = append(hs, hazard{rule: RuleWallClock, callee: displayName(fn, true) + " of a backoff made by " + by +
				", whose stop reads the wall clock at each call", remedy: remedyDeadline})
		}
		return hs
	}
	return nil
}

// backoffBuiltBy returns what match names for the call that built recv, the receiver of the
// backoff method call n (builtBy), or, when the method is promoted from a field recv's struct
// embeds, for a value stored into that field.
func (w *walker) backoffBuiltBy(recv ast.Expr, n ast.Node, match func(*types.Func) string) string {
	if by := w.builtBy(recv, match); by != "" {
		return by
	}
	if f := w.promotedFrom(n); f != nil {
		for _, v := range w.fieldValues[f] {
			if by := w.builtBy(v, match); by != "" {
				return by
			}
		}
	}
	return ""
}

// backoffDraw returns the hazards of a NextBackOff call on recv: a random draw unless the
// backoff's RandomizationFactor is proved 0, and (before v5) a wall-clock deadline, which its stop
// decision reads at each call, unless its MaxElapsedTime is proved 0. A backoff whose setup is
// not seen has neither proved off, and is reported for both.
func (w *walker) backoffDraw(fn *types.Func, recv ast.Expr, beforeV5 bool) []hazard {
	name := displayName(fn, true)
	draw := hazard{rule: RuleRandomness, callee: name, remedy: remedyJitter}
	setup, ok := w.backoffSetup(recv)
	if !ok {
		setup = backoffSetup{exponential: true, info: w.info}
	}
	var hs []hazard
	if !setup.zero("RandomizationFactor") {
		hs = append(hs, draw)
	}
	if beforeV5 && !setup.zero("MaxElapsedTime") {
		hs = append(hs, hazard{rule: RuleWallClock, callee: name + ", which stops at MaxElapsedTime on the wall clock",
			remedy: remedyDeadline})
	}
	return hs
}

// backoffSetup is what is known of how an ExponentialBackOff was built and set up.
type backoffSetup struct {
	exponential bool // the value is an ExponentialBackOff (and not another BackOff)
	info        *types.Info
	literal     bool                  // built by a composite literal: an unset field is zero
	fields      map[string][]ast.Expr // the values given to each field, in the literal, options or assignments
}

// zero reports whether every value the field is given is the constant 0, and it is given one
// (or, in a composite literal, none).
func (s backoffSetup) zero(field string) bool {
	values := s.fields[field]
	if len(values) == 0 {
		return s.literal
	}
	for _, v := range values {
		tv, ok := s.info.Types[v]
		if !ok || tv.Value == nil || constant.Sign(tv.Value) != 0 {
			return false
		}
	}
	return true
}

// backoffSetup follows recv, a variable, to the one value it was given (a composite literal or
// the constructor with its options, also as the embedded field of a struct of the user's, whose
// promoted NextBackOff is the backoff's) and to the fields set on it afterwards.
func (w *walker) backoffSetup(recv ast.Expr) (backoffSetup, bool) {
	return w.backoffSetupDepth(recv, 0)
}

func (w *walker) backoffSetupDepth(recv ast.Expr, depth int) (backoffSetup, bool) {
	id, ok := ast.Unparen(recv).(*ast.Ident)
	if !ok || depth > 3 {
		return backoffSetup{}, false
	}
	v, ok := w.info.Uses[id].(*types.Var)
	if !ok || len(w.assigns[v]) != 1 {
		return backoffSetup{}, false
	}
	s := backoffSetup{info: w.info, fields: map[string][]ast.Expr{}}
	value := ast.Unparen(w.assigns[v][0])
	if u, ok := value.(*ast.UnaryExpr); ok && u.Op == token.AND {
		value = ast.Unparen(u.X)
	}
	if lit, ok := value.(*ast.CompositeLit); ok && !w.isExponentialBackOff(w.info.TypeOf(lit)) {
		// A struct of the user's embedding the backoff: its embedded value is the one that runs.
		inner := w.embeddedBackoff(lit)
		if inner == nil {
			return backoffSetup{}, false
		}
		if id, ok := ast.Unparen(inner).(*ast.Ident); ok {
			s, ok := w.backoffSetupDepth(id, depth+1)
			if ok {
				for field, values := range w.fields[v] { // r.RandomizationFactor = 0, promoted
					s.fields[field] = append(s.fields[field], values...)
				}
			}
			return s, ok
		}
		value = ast.Unparen(inner)
		if u, ok := value.(*ast.UnaryExpr); ok && u.Op == token.AND {
			value = ast.Unparen(u.X)
		}
	}
	s.exponential = true
	switch x := value.(type) {
	case *ast.CompositeLit:
		if !w.isExponentialBackOff(w.info.TypeOf(x)) {
			return backoffSetup{}, false
		}
		s.literal = true
		for _, elt := range x.Elts {
			kv, ok := elt.(*ast.KeyValueExpr)
			if !ok {
				return backoffSetup{}, false
			}
			if key, ok := kv.Key.(*ast.Ident); ok {
				s.fields[key.Name] = append(s.fields[key.Name], kv.Value)
			}
		}
	case *ast.CallExpr:
		fn := typeutil.StaticCallee(w.info, x)
		if fn == nil || fn.Name() != "NewExponentialBackOff" || !underPath(fn.Pkg().Path(), "github.com/cenkalti/backoff") {
			return backoffSetup{}, false
		}
		for _, arg := range x.Args {
			opt, ok := ast.Unparen(arg).(*ast.CallExpr)
			if !ok {
				return backoffSetup{}, false
			}
			optFn := typeutil.StaticCallee(w.info, opt)
			if optFn == nil || optFn.Pkg() != fn.Pkg() || len(opt.Args) != 1 {
				return backoffSetup{}, false
			}
			field, _ := strings.CutPrefix(optFn.Name(), "With")
			s.fields[field] = append(s.fields[field], opt.Args[0])
		}
	default:
		return backoffSetup{}, false
	}
	for field, values := range w.fields[v] {
		s.fields[field] = append(s.fields[field], values...)
	}
	return s, true
}

// isExponentialBackOff reports whether t is cenkalti/backoff's ExponentialBackOff or a pointer
// to one.
func (w *walker) isExponentialBackOff(t types.Type) bool {
	if t == nil {
		return false
	}
	n, ok := types.Unalias(derefType(t)).(*types.Named)
	return ok && n.Obj().Pkg() != nil && underPath(n.Obj().Pkg().Path(), "github.com/cenkalti/backoff") &&
		n.Obj().Name() == "ExponentialBackOff"
}

// embeddedBackoff returns the value lit gives the embedded field of its struct type that is a
// cenkalti/backoff ExponentialBackOff or BackOff, or nil.
func (w *walker) embeddedBackoff(lit *ast.CompositeLit) ast.Expr {
	st, ok := w.info.TypeOf(lit).Underlying().(*types.Struct)
	if !ok {
		return nil
	}
	for i := range st.NumFields() {
		f := st.Field(i)
		if !f.Embedded() || f.Pkg() == nil {
			continue
		}
		n, ok := types.Unalias(derefType(f.Type())).(*types.Named)
		if !ok || n.Obj().Pkg() == nil || !underPath(n.Obj().Pkg().Path(), "github.com/cenkalti/backoff") ||
			!oneOf(n.Obj().Name(), "ExponentialBackOff", "BackOff") {
			continue
		}
		for j, elt := range lit.Elts {
			if kv, ok := elt.(*ast.KeyValueExpr); ok {
				if key, ok := kv.Key.(*ast.Ident); ok && key.Name == f.Name() {
					return kv.Value
				}
			} else if j == i {
				return elt
			}
		}
	}
	return nil
}

// sortsInPlace reports whether fn sorts the slice it is given first: sort.Strings, Ints,
// Float64s, Slice, SliceStable, Sort, Stable, and slices.Sort, SortFunc, SortStableFunc.
func sortsInPlace(fn *types.Func) bool {
	switch pkgPath(fn) {
	case "sort":
		return oneOf(fn.Name(), "Strings", "Ints", "Float64s", "Slice", "SliceStable", "Sort", "Stable")
	case "slices":
		return oneOf(fn.Name(), "Sort", "SortFunc", "SortStableFunc")
	}
	return false
}

// mapOrderFact marks a function that returns an iterator (iter.Seq, iter.Seq2) yielding a map's
// entries in the map's order, so that a range over its result in another package is judged as
// a range over the map.
type mapOrderFact struct{}

// AFact marks mapOrderFact as an analysis fact.
func (*mapOrderFact) AFact() {}

func (*mapOrderFact) String() string { return "yields in map order" }

// findMapSeqs finds the functions of the package whose result is an iter.Seq or iter.Seq2 and
// whose body ranges over a map, or returns maps.Keys, Values or All of one, and exports a
// mapOrderFact on each.
func (w *walker) findMapSeqs(root inspector.Cursor) {
	for cur := range root.Preorder((*ast.FuncDecl)(nil)) {
		decl := cur.Node().(*ast.FuncDecl)
		fn, _ := w.info.Defs[decl.Name].(*types.Func)
		if fn == nil || decl.Body == nil || !returnsSeq(fn.Signature()) {
			continue
		}
		found := false
		ast.Inspect(decl.Body, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.RangeStmt:
				found = found || w.mapOrder(n.X)
			case *ast.ReturnStmt:
				for _, r := range n.Results {
					if _, lit := r.(*ast.FuncLit); !lit {
						found = found || w.mapOrder(r)
					}
				}
			}
			return !found
		})
		if found {
			w.mapSeqs[fn] = true
			w.pass.ExportObjectFact(fn, &mapOrderFact{})
		}
	}
}

// returnsSeq reports whether sig's only result is an iter.Seq or iter.Seq2.
func returnsSeq(sig *types.Signature) bool {
	if sig.Results().Len() != 1 {
		return false
	}
	t := sig.Results().At(0).Type()
	return isNamed(t, "iter", "Seq") || isNamed(t, "iter", "Seq2")
}

// isQueryHandler reports whether the literal at cur is the handler given to
// workflow.SetQueryHandler or SetQueryHandlerWithOptions.
func (w *walker) isQueryHandler(cur inspector.Cursor) bool {
	if cur.ParentEdgeKind() != edge.CallExpr_Args {
		return false
	}
	fn := typeutil.StaticCallee(w.info, cur.Parent().Node().(*ast.CallExpr))
	return fn != nil && isSDKWorkflowPkg(pkgPath(fn)) && oneOf(fn.Name(), "SetQueryHandler", "SetQueryHandlerWithOptions")
}

// visitQueryHandler records the draws from the workflow's random stream in a query handler:
// a query runs in read-only mode, between workflow tasks and again on replay or not at all, so
// a draw there moves the stream the workflow's own draws come from. A draw is the stream taken
// in the handler, or a source built from a stream the workflow took (its Uint64 or Read, a
// *rand.Rand over it, a reader handed to uuid.NewRandomFromReader) used there. The handler's
// other calls decide no command and are not reported.
func (w *walker) visitQueryHandler(lit *ast.FuncLit, st walkState) {
	if !st.active() {
		return
	}
	// A handler that takes the stream itself is reported there, once, not again at its draws.
	takesStream := false
	ast.Inspect(lit.Body, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if !ok {
			return true
		}
		if fn := typeutil.StaticCallee(w.info, call); fn != nil && isSDKWorkflowPkg(pkgPath(fn)) && fn.Name() == "GetRandomStream" {
			w.direct(call, st, hazard{rule: RuleRandomness, callee: "workflow.GetRandomStream in a query handler", remedy: remedyQueryDraw})
			takesStream = true
		}
		return true
	})
	if takesStream {
		return
	}
	ast.Inspect(lit.Body, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if !ok {
			return true
		}
		fn, _ := typeutil.Callee(w.info, call).(*types.Func)
		if fn == nil {
			return true
		}
		if p := pkgPath(fn); (p == "math/rand" || p == "math/rand/v2") && strings.HasPrefix(fn.Name(), "New") {
			return true // building a generator over the stream draws nothing yet
		}
		// The receiver, and the arguments handed to a parameter that is itself a source (an
		// io.Reader, a *rand.Rand): fmt.Sprint(stream) takes an any, and draws nothing.
		var sources []ast.Expr
		if recv := w.values.methodReceiver(call.Fun); recv != nil {
			sources = append(sources, recv)
		}
		for i, arg := range call.Args {
			if t := w.values.argType(call, i); t != nil && isRandomSource(t) {
				sources = append(sources, arg)
			}
		}
		for _, e := range sources {
			if w.isWorkflowStream(e) {
				w.direct(call, st, hazard{rule: RuleRandomness,
					callee: displayName(fn, true) + " on the workflow's random stream in a query handler", remedy: remedyQueryDraw})
				break
			}
		}
		return true
	})
}

// isWorkflowStream reports whether e is a random source (a *rand.Rand, or a value with a Uint64
// or Read method) built from workflow.GetRandomStream, following the variables of this package.
// A value drawn from one earlier (an int) is not a source.
func (w *walker) isWorkflowStream(e ast.Expr) bool {
	t := w.info.TypeOf(e)
	return t != nil && isRandomSource(t) && w.origin(e, func(fn *types.Func) string {
		if isSDKWorkflowPkg(pkgPath(fn)) && fn.Name() == "GetRandomStream" {
			return "workflow.GetRandomStream"
		}
		return ""
	}, map[*types.Var]bool{}, 0) != ""
}

// isRandomSource reports whether t has a method that draws: Uint64 (rand.Source), Read
// (io.Reader), or IntN or Intn (a *rand.Rand).
func isRandomSource(t types.Type) bool {
	for _, m := range []string{"Uint64", "Read", "IntN", "Intn"} {
		if obj, _, _ := types.LookupFieldOrMethod(t, true, nil, m); obj != nil {
			if _, ok := obj.(*types.Func); ok {
				return true
			}
		}
	}
	return false
}

// ownTypeParam returns the index of the type parameter of the enclosing generic function that
// recv has as its type, or -1.
func (w *walker) ownTypeParam(recv ast.Expr, st walkState) int {
	if recv == nil {
		return -1
	}
	tp, ok := types.Unalias(w.info.TypeOf(recv)).(*types.TypeParam)
	fn, isFunc := st.fn.(*types.Func)
	if !ok || !isFunc {
		return -1
	}
	tps := fn.Signature().TypeParams()
	for i := range tps.Len() {
		if tps.At(i) == tp {
			return i
		}
	}
	return -1
}

// typeArgs returns the type arguments of the generic function fun names, or nil.
func (w *walker) typeArgs(fun ast.Expr) *types.TypeList {
	e := unparenIndex(fun)
	if sel, ok := e.(*ast.SelectorExpr); ok {
		e = sel.Sel
	}
	if id, ok := e.(*ast.Ident); ok {
		if inst, ok := w.info.Instances[id]; ok {
			return inst.TypeArgs
		}
	}
	return nil
}
