package workflowguard

import (
	"go/ast"
	"go/types"

	"golang.org/x/tools/go/ast/edge"
	"golang.org/x/tools/go/ast/inspector"
	"golang.org/x/tools/go/types/typeutil"
)

// funcValues is the phase that tracks function values: where a function, method or literal
// taken as a value ends up (called, stored where it can be called, kept in an interface, or
// handed to SideEffect), which package variable or struct field of function type carries it,
// and which implementations a call through an interface method may run.
type funcValues struct {
	*unit
	uses           map[*types.Var][]inspector.Cursor // uses of each local function variable
	verdicts       map[*types.Var]verdict            // local function variables judged so far
	impls          map[*types.Func][]*types.Func     // implementations of interface methods, by method
	candidates     []*types.Named                    // named types visible to the package, once computed
	candidatesDone bool
	// reflected holds, per function of the package, the indexes of its parameters whose value it
	// calls through reflection (reflect.ValueOf(f).Call): an invoker of tools kept as any.
	reflected map[*types.Func]map[int]bool
	// reflectedTables holds the package-level maps and slices of any whose elements are called
	// through reflection (reflect.ValueOf(tools[name]).Call): they are function tables too.
	reflectedTables map[*types.Var]bool
	// reflectedFields holds the struct fields of interface type (Tool.Fn any) whose value is
	// called through reflection (reflect.ValueOf(t.Fn).Call): a function stored into one is
	// followed to that call, as one stored into a field of function type.
	reflectedFields map[*types.Var]bool
	// tableParams holds, per function of the package, the parameters it stores into a function
	// table (func Register(name string, f func()) { handlers[name] = f }): a function handed to
	// one is an element of that table.
	tableParams map[*types.Func]map[int]*types.Var
}

func newFuncValues(u *unit) *funcValues {
	return &funcValues{
		unit:     u,
		uses:     map[*types.Var][]inspector.Cursor{},
		verdicts: map[*types.Var]verdict{},
		impls:    map[*types.Func][]*types.Func{},

		reflected:       map[*types.Func]map[int]bool{},
		reflectedTables: map[*types.Var]bool{},
		reflectedFields: map[*types.Var]bool{},
		tableParams:     map[*types.Func]map[int]*types.Var{},
	}
}

// recordUse remembers id when it uses a local function variable, which varVerdict judges by all
// its uses.
func (fv *funcValues) recordUse(cur inspector.Cursor, id *ast.Ident) {
	if v, ok := fv.info.Uses[id].(*types.Var); ok && fv.isLocal(v) && isFuncType(v.Type()) {
		fv.uses[v] = append(fv.uses[v], cur)
	}
}

// verdict says whether a function value reaches a call on the path that holds it.
type verdict int

const (
	opaque   verdict = iota // stored where only reflection can call it (any, interfaces): activities
	deferred                // handed to workflow.SideEffect or MutableSideEffect: recorded, not replayed
	reached                 // called, or stored where it can be called
)

func isFuncType(t types.Type) bool {
	_, ok := t.Underlying().(*types.Signature)
	return ok
}

func (fv *funcValues) isLocal(v *types.Var) bool {
	return v.Pkg() == fv.pass.Pkg && !v.IsField() && v.Parent() != nil && v.Parent() != fv.pass.Pkg.Scope()
}

// funcRef returns the function e names (pkg.F, F, T.M, x.M, F[int]), or nil.
func funcRef(info *types.Info, e ast.Expr) *types.Func {
	e = unparenIndex(e)
	if sel, ok := e.(*ast.SelectorExpr); ok {
		e = sel.Sel
	}
	if id, ok := e.(*ast.Ident); ok {
		if fn, ok := info.Uses[id].(*types.Func); ok {
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

// isFuncVar reports whether v is a package-level variable or a struct field of function type:
// the function values the analyzer follows from where they are stored to where they are called.
func isFuncVar(v *types.Var) bool {
	return v.Pkg() != nil && isFuncType(v.Type()) && (v.IsField() || v.Parent() == v.Pkg().Scope())
}

// isFuncTable reports whether v is a package-level map, slice or array of functions (a table of
// handlers): a function stored in it is followed, like one stored in a function variable, to where
// an element is called.
func isFuncTable(v *types.Var) bool {
	if v.Pkg() == nil || v.IsField() || v.Parent() != v.Pkg().Scope() {
		return false
	}
	return isFuncSeq(v.Type())
}

// tableOf returns the function table of this package that e indexes (table[k], pkg.Table[k]), or
// nil.
func (fv *funcValues) tableOf(e ast.Expr) *types.Var {
	ix, ok := ast.Unparen(e).(*ast.IndexExpr)
	if !ok {
		return nil
	}
	var id *ast.Ident
	switch x := ast.Unparen(ix.X).(type) {
	case *ast.Ident:
		id = x
	case *ast.SelectorExpr:
		id = x.Sel
	default:
		return nil
	}
	if v, ok := fv.info.Uses[id].(*types.Var); ok && fv.isTable(v) {
		return v
	}
	return nil
}

// storedVar returns the package variable or struct field of this package that the value at cur
// is stored into (var v = f, v = f, T{F: f}, T{f}, x.F = f), or the function table it is an element
// of (var table = map[string]func(){"k": f}, table[k] = f), or nil.
func (fv *funcValues) storedVar(cur inspector.Cursor) *types.Var {
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
			v = fv.varOf(as.Lhs[idx])
			if t := fv.tableOf(as.Lhs[idx]); t != nil {
				v = t
			}
		}
	case edge.ValueSpec_Values:
		if vs := parent.(*ast.ValueSpec); len(vs.Names) == len(vs.Values) {
			v, _ = fv.info.Defs[vs.Names[idx]].(*types.Var)
		}
	case edge.KeyValueExpr_Value:
		if id, ok := parent.(*ast.KeyValueExpr).Key.(*ast.Ident); ok {
			v, _ = fv.info.Uses[id].(*types.Var)
		}
		if lit, ok := cur.Parent().Parent().Node().(*ast.CompositeLit); ok && isTableSeq(fv.info.TypeOf(lit)) {
			v = fv.tableInitialised(cur.Parent().Parent())
		}
	case edge.CompositeLit_Elts:
		lit := parent.(*ast.CompositeLit)
		if t := fv.info.TypeOf(lit); t != nil {
			if s, ok := t.Underlying().(*types.Struct); ok && idx < s.NumFields() {
				v = s.Field(idx)
			} else if isTableSeq(t) {
				v = fv.tableInitialised(cur.Parent())
			}
		}
	case edge.CallExpr_Args:
		if fn := typeutil.StaticCallee(fv.info, parent.(*ast.CallExpr)); fn != nil {
			v = fv.tableParams[fn.Origin()][idx]
		}
	}
	if v != nil && v.Pkg() == fv.pass.Pkg && (isFuncVar(v) || fv.isTable(v) || fv.reflectedFields[v]) {
		return v
	}
	return nil
}

// recordTableParam remembers, when the assignment as in a declared function stores one of its
// parameters into a function table of the package (table[k] = f), that the function does.
func (fv *funcValues) recordTableParam(cur inspector.Cursor, as *ast.AssignStmt) {
	if len(as.Lhs) != len(as.Rhs) {
		return
	}
	for i, lhs := range as.Lhs {
		table := fv.tableOf(lhs)
		id, ok := ast.Unparen(as.Rhs[i]).(*ast.Ident)
		if table == nil || !ok {
			continue
		}
		p, ok := fv.info.Uses[id].(*types.Var)
		if !ok {
			continue
		}
		for enc := range cur.Enclosing((*ast.FuncDecl)(nil)) {
			fn, ok := fv.info.Defs[enc.Node().(*ast.FuncDecl).Name].(*types.Func)
			if !ok {
				break
			}
			params := fn.Signature().Params()
			for j := range params.Len() {
				if params.At(j) == p && !(fn.Signature().Variadic() && j == params.Len()-1) {
					if fv.tableParams[fn] == nil {
						fv.tableParams[fn] = map[int]*types.Var{}
					}
					fv.tableParams[fn][j] = table
				}
			}
		}
	}
}

// reflectedField returns the field of interface type that the argument at cur of a
// reflect.ValueOf whose Value is called selects (reflect.ValueOf(t.Fn).Call), or nil.
func (fv *funcValues) reflectedField(cur inspector.Cursor) *types.Var {
	sel, ok := cur.Node().(*ast.SelectorExpr)
	if !ok || cur.ParentEdgeKind() != edge.CallExpr_Args {
		return nil
	}
	s := fv.info.Selections[sel]
	if s == nil || s.Kind() != types.FieldVal {
		return nil
	}
	f, ok := s.Obj().(*types.Var)
	if !ok || !fv.reflectedFields[f] || !fv.reflectedCall(cur.Parent()) {
		return nil
	}
	return f
}

// isFuncSeq reports whether t is a map, slice or array of functions.
func isFuncSeq(t types.Type) bool {
	if t == nil {
		return false
	}
	elem := elemType(t)
	return elem != nil && isFuncType(elem)
}

// isTableSeq reports whether t is a map, slice or array of functions or of interfaces.
func isTableSeq(t types.Type) bool {
	if t == nil {
		return false
	}
	elem := elemType(t)
	return elem != nil && (isFuncType(elem) || types.IsInterface(elem))
}

// tableInitialised returns the function table that the composite literal at lit initialises or
// is assigned to (var table = map[string]func(){...}, table = ...), or nil.
func (fv *funcValues) tableInitialised(lit inspector.Cursor) *types.Var {
	for lit.ParentEdgeKind() == edge.ParenExpr_X {
		lit = lit.Parent()
	}
	var v *types.Var
	switch k, idx := lit.ParentEdge(); k {
	case edge.ValueSpec_Values:
		if vs := lit.Parent().Node().(*ast.ValueSpec); len(vs.Names) == len(vs.Values) {
			v, _ = fv.info.Defs[vs.Names[idx]].(*types.Var)
		}
	case edge.AssignStmt_Rhs:
		if as := lit.Parent().Node().(*ast.AssignStmt); len(as.Lhs) == len(as.Rhs) {
			v = fv.varOf(as.Lhs[idx])
		}
	}
	if v != nil && fv.isTable(v) {
		return v
	}
	return nil
}

// varOf returns the variable or field an assignment's left-hand side names.
func (fv *funcValues) varOf(e ast.Expr) *types.Var {
	switch x := ast.Unparen(e).(type) {
	case *ast.Ident:
		v, _ := fv.info.ObjectOf(x).(*types.Var)
		return v
	case *ast.SelectorExpr:
		if s := fv.info.Selections[x]; s != nil {
			if s.Kind() == types.FieldVal {
				v, _ := s.Obj().(*types.Var)
				return v
			}
			return nil
		}
		v, _ := fv.info.Uses[x.Sel].(*types.Var)
		return v
	}
	return nil
}

// methodReceiver returns x in x.M when it selects a method value, or nil.
func (fv *funcValues) methodReceiver(fun ast.Expr) ast.Expr {
	if sel, ok := unparenIndex(fun).(*ast.SelectorExpr); ok {
		if s := fv.info.Selections[sel]; s != nil && s.Kind() == types.MethodVal {
			return sel.X
		}
	}
	return nil
}

// classify decides whether the function value at cur (a literal, a function or method name, or
// a local function variable) is reached: called, or stored where it can be called.
func (fv *funcValues) classify(cur inspector.Cursor) verdict {
	for cur.ParentEdgeKind() == edge.ParenExpr_X {
		cur = cur.Parent()
	}
	if fv.storedVar(cur) != nil {
		return opaque // the variable carries it: reported where it is called
	}
	k, idx := cur.ParentEdge()
	parent := cur.Parent().Node()
	switch k {
	case edge.CallExpr_Fun:
		return reached
	case edge.CallExpr_Args:
		call := parent.(*ast.CallExpr)
		if fn := typeutil.StaticCallee(fv.info, call); fn != nil && defersCallback(fn) {
			return deferred
		}
		if fv.reflectedCall(cur.Parent()) {
			return reached
		}
		if fn := typeutil.StaticCallee(fv.info, call); fn != nil && fv.reflectedParam(fn.Origin(), call, idx) {
			return reached
		}
		return sink(fv.argType(call, idx))
	case edge.AssignStmt_Lhs:
		return opaque
	case edge.AssignStmt_Rhs:
		as := parent.(*ast.AssignStmt)
		if commaOK(as.Lhs, as.Rhs) {
			return fv.storeTo(as.Lhs[0]) // v, ok := table[k]: the value goes to v
		}
		if len(as.Lhs) != len(as.Rhs) {
			return reached
		}
		return fv.storeTo(as.Lhs[idx])
	case edge.ValueSpec_Values:
		vs := parent.(*ast.ValueSpec)
		if len(vs.Names) != len(vs.Values) {
			return reached
		}
		return fv.storeTo(vs.Names[idx])
	case edge.KeyValueExpr_Value:
		if lit, ok := cur.Parent().Parent().Node().(*ast.CompositeLit); ok {
			return sink(fv.elemType(lit, parent.(*ast.KeyValueExpr).Key, -1))
		}
	case edge.CompositeLit_Elts:
		return sink(fv.elemType(parent.(*ast.CompositeLit), nil, idx))
	case edge.ReturnStmt_Results:
		return sink(fv.resultType(cur.Parent(), idx))
	}
	return reached
}

// commaOK reports whether lhs, rhs is the comma-ok form of an index or a type assertion.
func commaOK(lhs, rhs []ast.Expr) bool {
	if len(lhs) != 2 || len(rhs) != 1 {
		return false
	}
	switch ast.Unparen(rhs[0]).(type) {
	case *ast.IndexExpr, *ast.TypeAssertExpr:
		return true
	}
	return false
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

func (fv *funcValues) storeTo(lhs ast.Expr) verdict {
	if id, ok := ast.Unparen(lhs).(*ast.Ident); ok {
		if id.Name == "_" {
			return opaque
		}
		if v, ok := fv.info.ObjectOf(id).(*types.Var); ok && fv.isLocal(v) && isFuncType(v.Type()) {
			return fv.varVerdict(v)
		}
	}
	return sink(fv.info.TypeOf(lhs))
}

// varVerdict judges a local function variable by all its uses.
func (fv *funcValues) varVerdict(v *types.Var) verdict {
	if got, ok := fv.verdicts[v]; ok {
		return got
	}
	fv.verdicts[v] = opaque // breaks cycles such as f = g; g = f
	result := opaque
	for _, u := range fv.uses[v] {
		switch fv.classify(u) {
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
	fv.verdicts[v] = result
	return result
}

func (fv *funcValues) argType(call *ast.CallExpr, idx int) types.Type {
	tv, ok := fv.info.Types[call.Fun]
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
func (fv *funcValues) elemType(lit *ast.CompositeLit, key ast.Expr, idx int) types.Type {
	t := fv.info.TypeOf(lit)
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
func (fv *funcValues) resultType(ret inspector.Cursor, idx int) types.Type {
	for enc := range ret.Enclosing((*ast.FuncLit)(nil), (*ast.FuncDecl)(nil)) {
		var sig *types.Signature
		switch n := enc.Node().(type) {
		case *ast.FuncLit:
			sig, _ = fv.info.TypeOf(n).(*types.Signature)
		case *ast.FuncDecl:
			if fn, ok := fv.info.Defs[n.Name].(*types.Func); ok {
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

// isAbstract reports whether fn is an interface method.
func isAbstract(fn *types.Func) bool {
	recv := fn.Signature().Recv()
	return recv != nil && types.IsInterface(recv.Type())
}

// implementations returns the concrete methods that a call of the interface method fn may run:
// class-hierarchy analysis over the named types declared in this package and the packages it
// imports, directly or not. Interfaces of the standard library and the SDK are not resolved
// (io.Writer has implementations everywhere; the SDK's are its own business).
func (fv *funcValues) implementations(fn *types.Func) []*types.Func {
	if impls, ok := fv.impls[fn]; ok {
		return impls
	}
	var impls []*types.Func
	iface, _ := fn.Signature().Recv().Type().Underlying().(*types.Interface)
	if iface != nil && fn.Pkg() != nil && !fv.library(fn.Pkg()) {
		for _, t := range fv.candidateTypes() {
			ptr := types.NewPointer(t)
			if !types.Implements(ptr, iface) {
				continue
			}
			if m, ok := types.NewMethodSet(ptr).Lookup(fn.Pkg(), fn.Name()).Obj().(*types.Func); ok && !isAbstract(m) {
				impls = append(impls, m.Origin())
			}
		}
	}
	fv.impls[fn] = impls
	return impls
}

// candidateTypes lists the non-generic, non-interface named types declared in the package and
// its transitive imports, leaving out the standard library and the SDK.
func (fv *funcValues) candidateTypes() []*types.Named {
	if fv.candidatesDone {
		return fv.candidates
	}
	fv.candidatesDone = true
	seen := map[*types.Package]bool{}
	var visit func(p *types.Package)
	visit = func(p *types.Package) {
		if seen[p] || p != fv.pass.Pkg && fv.library(p) {
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
				fv.candidates = append(fv.candidates, n)
			}
		}
		for _, imp := range p.Imports() {
			visit(imp)
		}
	}
	visit(fv.pass.Pkg)
	return fv.candidates
}

// library reports whether p is the standard library or the SDK, whose interfaces and types the
// interface resolution leaves out: a path without a dot in its first element that is not under
// the module being analysed (a module may be named without a dot), or a trusted path.
func (fv *funcValues) library(p *types.Package) bool {
	path := p.Path()
	return trustedPath(path) || stdLike(path) && (fv.module == "" || !underPath(path, fv.module))
}

// recordReflected remembers, when the call at cur is reflect.ValueOf(p) of a parameter p of the
// enclosing declared function and the Value is called, that the function calls what p holds.
func (fv *funcValues) recordReflected(cur inspector.Cursor) {
	call := cur.Node().(*ast.CallExpr)
	if len(call.Args) != 1 || !fv.reflectedCall(cur) {
		return
	}
	if ix, ok := ast.Unparen(call.Args[0]).(*ast.IndexExpr); ok {
		if v := fv.packageSeq(ix.X); v != nil {
			fv.reflectedTables[v] = true
		}
		return
	}
	if sel, ok := ast.Unparen(call.Args[0]).(*ast.SelectorExpr); ok {
		if s := fv.info.Selections[sel]; s != nil && s.Kind() == types.FieldVal {
			if f, ok := s.Obj().(*types.Var); ok && f.Pkg() == fv.pass.Pkg && types.IsInterface(f.Type()) {
				fv.reflectedFields[f] = true
			}
		}
		return
	}
	id, ok := ast.Unparen(call.Args[0]).(*ast.Ident)
	if !ok {
		return
	}
	p, ok := fv.info.Uses[id].(*types.Var)
	if !ok {
		return
	}
	for enc := range cur.Enclosing((*ast.FuncDecl)(nil)) {
		fn, ok := fv.info.Defs[enc.Node().(*ast.FuncDecl).Name].(*types.Func)
		if !ok {
			return
		}
		params := fn.Signature().Params()
		for i := range params.Len() {
			if params.At(i) == p {
				if fv.reflected[fn] == nil {
					fv.reflected[fn] = map[int]bool{}
				}
				fv.reflected[fn][i] = true
			}
		}
	}
}

// packageSeq returns the package-level map, slice or array of this package that e names, or nil.
func (fv *funcValues) packageSeq(e ast.Expr) *types.Var {
	e = ast.Unparen(e)
	if sel, ok := e.(*ast.SelectorExpr); ok {
		e = sel.Sel
	}
	id, ok := e.(*ast.Ident)
	if !ok {
		return nil
	}
	v, ok := fv.info.Uses[id].(*types.Var)
	if !ok || v.Pkg() != fv.pass.Pkg || v.Parent() != v.Pkg().Scope() || elemType(v.Type()) == nil {
		return nil
	}
	return v
}

// elemType returns the element type of a map, slice or array, or nil.
func elemType(t types.Type) types.Type {
	switch u := t.Underlying().(type) {
	case *types.Map:
		return u.Elem()
	case *types.Slice:
		return u.Elem()
	case *types.Array:
		return u.Elem()
	}
	return nil
}

// isTable reports whether v is a function table (isFuncTable) or a table of any whose elements
// are called through reflection.
func (fv *funcValues) isTable(v *types.Var) bool { return isFuncTable(v) || fv.reflectedTables[v] }

// reflectedParam reports whether argument idx of call goes to a parameter of fn that fn calls
// through reflection (recordReflected). A variadic parameter takes every argument from its index.
func (fv *funcValues) reflectedParam(fn *types.Func, call *ast.CallExpr, idx int) bool {
	marked := fv.reflected[fn]
	if marked == nil {
		return false
	}
	params := fn.Signature().Params()
	if fn.Signature().Variadic() && idx >= params.Len()-1 {
		return marked[params.Len()-1] && !call.Ellipsis.IsValid()
	}
	return marked[idx]
}

// reflectedCall reports whether the call at cur is reflect.ValueOf(f) whose Value is called:
// reflect.ValueOf(f).Call(args), or v := reflect.ValueOf(f) and v.Call or v.CallSlice in the
// same function. The function value is then called, through reflection.
func (fv *funcValues) reflectedCall(cur inspector.Cursor) bool {
	fn := typeutil.StaticCallee(fv.info, cur.Node().(*ast.CallExpr))
	if fn == nil || fn.Pkg() == nil || fn.Pkg().Path() != "reflect" || fn.Name() != "ValueOf" {
		return false
	}
	isCall := func(name string) bool { return name == "Call" || name == "CallSlice" }
	switch k, idx := cur.ParentEdge(); k {
	case edge.SelectorExpr_X:
		return isCall(cur.Parent().Node().(*ast.SelectorExpr).Sel.Name)
	case edge.AssignStmt_Rhs, edge.ValueSpec_Values:
		var v *types.Var
		if as, ok := cur.Parent().Node().(*ast.AssignStmt); ok && len(as.Lhs) == len(as.Rhs) {
			v = fv.varOf(as.Lhs[idx])
		} else if vs, ok := cur.Parent().Node().(*ast.ValueSpec); ok && len(vs.Names) == len(vs.Values) {
			v, _ = fv.info.Defs[vs.Names[idx]].(*types.Var)
		}
		if v == nil {
			return false
		}
		for enc := range cur.Enclosing((*ast.FuncDecl)(nil), (*ast.FuncLit)(nil)) {
			called := false
			ast.Inspect(enc.Node(), func(n ast.Node) bool {
				if sel, ok := n.(*ast.SelectorExpr); ok && isCall(sel.Sel.Name) {
					if id, ok := ast.Unparen(sel.X).(*ast.Ident); ok && fv.info.Uses[id] == v {
						called = true
					}
				}
				return !called
			})
			return called
		}
	}
	return false
}
