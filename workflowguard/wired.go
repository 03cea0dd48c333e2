package workflowguard

import (
	"go/ast"
	"go/token"
	"go/types"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/types/typeutil"
)

// This file follows interface calls of workflow code to the implementations that the rest of
// the program wires in: a package whose workflows call an interface method exports the calls as
// a package fact, and a package that imports it (a main package, the worker's setup) reports
// each of its own types that implements the interface and whose method reaches a hazard. The
// workflow's package cannot see those types; the package that declares them sees both, so the
// command, go vet and golangci-lint, which all hand each package its dependencies' facts, report
// the same finding there.

// wiredCallsFact lists the interface methods the workflow code of a package calls, and the
// functions of the package that store a parameter into a field those calls read.
type wiredCallsFact struct {
	Calls   []wiredCall
	Setters []fieldSetter
}

// fieldSetter is a function whose parameter ends up in a struct field: a constructor
// (New(d Doer) *Agent { return &Agent{HTTP: d} }), a setter, or a functional option
// (WithHTTP(d) returns func(a *Agent) { a.HTTP = d }). A value handed to that parameter where
// the program is wired fills the field.
type fieldSetter struct {
	Func                       string // the function's types.Func FullName
	Param                      int    // index of the parameter
	FieldPkg, FieldType, Field string
}

// wiredCall is one interface method called by workflow code.
type wiredCall struct {
	IfacePkg  string // import path of the package declaring the interface
	IfaceType string // the interface's type name
	Method    string
	Workflow  string // the workflow that calls it, as pkg.Name
	At        string // where, as file:line:col with the file's base name
	// Field is the struct field the interface value is read from (a.Deps.Index.Nearest reads
	// the field Index of wiredlib.Deps), as import path, type name and field name; empty when
	// the value is not read from a field (a parameter, a local).
	FieldPkg, FieldType, Field string
}

// AFact marks wiredCallsFact as an analysis fact.
func (*wiredCallsFact) AFact() {}

func (f *wiredCallsFact) String() string {
	parts := make([]string, len(f.Calls))
	for i, c := range f.Calls {
		parts[i] = c.Workflow + " calls (" + c.IfacePkg + "." + c.IfaceType + ")." + c.Method
	}
	return "interface calls(" + strings.Join(parts, "; ") + ")"
}

// exportWiredCalls records the interface methods of user interfaces (not of the standard
// library or the SDK) that the package's workflow code calls.
func (r *reporter) exportWiredCalls(events []event) {
	var calls []wiredCall
	for i := range events {
		e := &events[i]
		fn, ok := e.callee.(*types.Func)
		if e.st.owner == nil || e.direct != nil || e.tparam > 0 || !ok || !isAbstract(fn) || e.st.decl == nil {
			continue
		}
		named, ok := types.Unalias(fn.Signature().Recv().Type()).(*types.Named)
		if !ok || named.Obj().Pkg() == nil || r.facts.values.library(named.Obj().Pkg()) {
			continue
		}
		wf, _ := r.info.Defs[e.st.decl.Name].(*types.Func)
		if wf == nil {
			continue
		}
		pos := r.pass.Fset.Position(e.node.Pos())
		c := wiredCall{
			IfacePkg: named.Obj().Pkg().Path(), IfaceType: named.Obj().Name(), Method: fn.Name(),
			Workflow: displayName(wf, false),
			At:       filepath.Base(pos.Filename) + ":" + strconv.Itoa(pos.Line) + ":" + strconv.Itoa(pos.Column),
		}
		if call, ok := e.node.(*ast.CallExpr); ok {
			c.FieldPkg, c.FieldType, c.Field = r.fieldRead(call)
		}
		if !slices.Contains(calls, c) {
			calls = append(calls, c)
		}
	}
	if len(calls) > 0 {
		r.pass.ExportPackageFact(&wiredCallsFact{Calls: calls, Setters: r.fieldSetters(calls)})
	}
}

// fieldSetters returns the functions of the package that store one of their parameters into a
// field that one of calls reads, as a composite literal's field or an assignment to the field,
// anywhere in their body (closures included, as in functional options).
func (r *reporter) fieldSetters(calls []wiredCall) []fieldSetter {
	read := map[[3]string]bool{}
	for _, c := range calls {
		if c.Field != "" {
			read[[3]string{c.FieldPkg, c.FieldType, c.Field}] = true
		}
	}
	if len(read) == 0 {
		return nil
	}
	var setters []fieldSetter
	for _, f := range r.pass.Files {
		for _, d := range f.Decls {
			decl, ok := d.(*ast.FuncDecl)
			if !ok || decl.Body == nil {
				continue
			}
			fn, _ := r.info.Defs[decl.Name].(*types.Func)
			if fn == nil {
				continue
			}
			params := fn.Signature().Params()
			paramIndex := func(e ast.Expr) int {
				id, ok := ast.Unparen(e).(*ast.Ident)
				if !ok {
					return -1
				}
				for i := range params.Len() {
					if r.info.Uses[id] == params.At(i) {
						return i
					}
				}
				return -1
			}
			ast.Inspect(decl.Body, func(n ast.Node) bool {
				for _, w := range r.wirings(n) {
					if w.field == nil || w.owner == nil || w.owner.Obj().Pkg() == nil {
						continue
					}
					key := [3]string{w.owner.Obj().Pkg().Path(), w.owner.Obj().Name(), w.field.Name()}
					if i := paramIndex(w.value); i >= 0 && read[key] {
						s := fieldSetter{Func: fn.FullName(), Param: i, FieldPkg: key[0], FieldType: key[1], Field: key[2]}
						if !slices.Contains(setters, s) {
							setters = append(setters, s)
						}
					}
				}
				return true
			})
		}
	}
	return setters
}

// fieldRead names the struct field that the receiver of the interface method call reads
// (x.F.M() reads F of x's struct type), or returns empty strings.
func (r *reporter) fieldRead(call *ast.CallExpr) (pkg, typ, field string) {
	sel, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr)
	if !ok {
		return "", "", ""
	}
	recv, ok := ast.Unparen(sel.X).(*ast.SelectorExpr)
	if !ok {
		return "", "", ""
	}
	s := r.info.Selections[recv]
	if s == nil || s.Kind() != types.FieldVal || len(s.Index()) != 1 {
		return "", "", ""
	}
	owner, ok := types.Unalias(derefType(s.Recv())).(*types.Named)
	if !ok || owner.Obj().Pkg() == nil {
		return "", "", ""
	}
	return owner.Obj().Pkg().Path(), owner.Obj().Name(), s.Obj().Name()
}

// reportWired reports, at the method's declaration, each method of a type of this package that
// implements an interface a workflow of an imported package calls, and reaches a hazard.
func (r *reporter) reportWired() {
	var calls []wiredCall
	var setters []fieldSetter
	workflowPkgs := map[string]bool{} // the packages whose workflows make the calls
	for _, pf := range r.pass.AllPackageFacts() {
		if f, ok := pf.Fact.(*wiredCallsFact); ok && pf.Package != r.pass.Pkg {
			calls = append(calls, f.Calls...)
			setters = append(setters, f.Setters...)
			workflowPkgs[pf.Package.Path()] = true
		}
	}
	if len(calls) == 0 {
		return
	}
	defer r.reportWiredFrom(calls, setters, workflowPkgs)
	deps := map[string]*types.Package{}
	var visit func(p *types.Package)
	visit = func(p *types.Package) {
		if deps[p.Path()] != nil {
			return
		}
		deps[p.Path()] = p
		for _, imp := range p.Imports() {
			visit(imp)
		}
	}
	visit(r.pass.Pkg)
	scope := r.pass.Pkg.Scope()
	// A method is reported once per rule, for the first workflow call that reaches it.
	done := map[[2]string]bool{}
	for _, c := range calls {
		p := deps[c.IfacePkg]
		if p == nil {
			continue
		}
		tn, ok := p.Scope().Lookup(c.IfaceType).(*types.TypeName)
		if !ok {
			continue
		}
		iface, ok := tn.Type().Underlying().(*types.Interface)
		if !ok {
			continue
		}
		for _, name := range scope.Names() {
			t, ok := scope.Lookup(name).(*types.TypeName)
			if !ok || t.IsAlias() || types.IsInterface(t.Type()) {
				continue
			}
			named, ok := t.Type().(*types.Named)
			if !ok || named.TypeParams().Len() > 0 || !types.Implements(types.NewPointer(named), iface) {
				continue
			}
			obj, _, _ := types.LookupFieldOrMethod(types.NewPointer(named), false, p, c.Method)
			m, ok := obj.(*types.Func)
			if !ok || m.Pkg() != r.pass.Pkg {
				continue
			}
			for _, path := range shortestPerRule(r.facts.calleePaths(m)) {
				if r.dirs.suppressed(m.Pos(), nil, RuleReach, path.Rule) || done[[2]string{m.FullName(), path.Rule}] {
					continue
				}
				done[[2]string{m.FullName(), path.Rule}] = true
				chain := wiredChain(c, path)
				r.emitAt(m.Pos(), m.Pos()+token.Pos(len(m.Name())), RuleReach, RuleReach+" helper reaches "+ruleNoun(path.Rule)+
					" ("+path.Rule+") on the workflow path ("+chain+"); "+remedyText(path.Remedy))
			}
		}
	}
}

// wiredChain is the chain of a finding on an implementation wired into the interface call c.
func wiredChain(c wiredCall, path reachPath) string {
	return "(" + c.IfacePkg[strings.LastIndex(c.IfacePkg, "/")+1:] + "." + c.IfaceType + ")." + c.Method +
		", called by workflow " + c.Workflow + " at " + c.At + " → " + strings.Join(path.Chain, " → ")
}

// reportWiredFrom reports, where this package wires it in, a value of a type of a third package
// that implements an interface a workflow of an imported package calls, and whose method
// reaches a hazard: main hands a store of package pg, which imports neither, to the workflow's
// struct. The type's own package cannot see the workflow's calls, so the finding is made here,
// at the value handed over (a composite literal's field, an assignment, an argument, a
// variable's initialiser). A type whose package imports a workflow's package is reported there,
// at its method (reportWired), and is left alone here.
func (r *reporter) reportWiredFrom(calls []wiredCall, setters []fieldSetter, workflowPkgs map[string]bool) {
	seesWorkflows := func(p *types.Package) bool {
		seen := map[*types.Package]bool{}
		var visit func(p *types.Package) bool
		visit = func(p *types.Package) bool {
			if seen[p] {
				return false
			}
			seen[p] = true
			if workflowPkgs[p.Path()] {
				return true
			}
			return slices.ContainsFunc(p.Imports(), visit)
		}
		return visit(p)
	}
	for _, f := range r.pass.Files {
		ast.Inspect(f, func(n ast.Node) bool {
			for _, w := range append(r.wirings(n), r.setterWirings(n, setters)...) {
				named, ok := types.Unalias(w.iface).(*types.Named)
				if !ok {
					continue
				}
				t := r.info.TypeOf(w.value)
				if t == nil || types.IsInterface(t) {
					continue
				}
				impl, ok := types.Unalias(derefType(t)).(*types.Named)
				if !ok || impl.Obj().Pkg() == nil || impl.Obj().Pkg() == r.pass.Pkg {
					continue
				}
				// A type of the standard library (an *http.Client behind a Doer) is judged by the
				// catalog; another type whose package sees the workflows is reported there.
				library := r.facts.values.library(impl.Obj().Pkg())
				if !library && seesWorkflows(impl.Obj().Pkg()) {
					continue
				}
				for _, c := range calls {
					if named.Obj().Pkg() == nil || named.Obj().Pkg().Path() != c.IfacePkg || named.Obj().Name() != c.IfaceType ||
						!w.fills(c) {
						continue
					}
					obj, _, _ := types.LookupFieldOrMethod(t, true, named.Obj().Pkg(), c.Method)
					m, ok := obj.(*types.Func)
					if !ok || isAbstract(m) {
						continue
					}
					paths := r.facts.calleePaths(m.Origin())
					if library {
						paths = pathSet{}
						if h, ok := r.cat.lookup(m.Origin()); ok {
							p := reachPath{Rule: h.rule, Chain: []string{h.callee}, Remedy: h.remedy}
							paths[pathKey(p)] = p
						}
					}
					for _, path := range shortestPerRule(paths) {
						if r.dirs.suppressed(w.value.Pos(), nil, RuleReach, path.Rule) {
							continue
						}
						r.emitAt(w.value.Pos(), w.value.End(), RuleReach, RuleReach+" helper reaches "+ruleNoun(path.Rule)+
							" ("+path.Rule+") on the workflow path ("+wiredChain(c, path)+"); "+remedyText(path.Remedy))
					}
				}
			}
			return true
		})
	}
}

// wiring is a value handed to a place of interface type.
type wiring struct {
	iface types.Type
	value ast.Expr
	field *types.Var   // the struct field it fills, if it fills one
	owner *types.Named // the struct type of that field
	// set is the field a setter of the workflow's package stores the value into, when it is
	// handed to one (wiredlib.New(client, index)).
	set *fieldSetter
}

// fills reports whether w can be what the interface call c reads: any place when c's receiver
// is not read from a field, else the same field of the same struct type.
func (w wiring) fills(c wiredCall) bool {
	if c.Field == "" {
		return true
	}
	if w.set != nil {
		return w.set.Field == c.Field && w.set.FieldType == c.FieldType && w.set.FieldPkg == c.FieldPkg
	}
	return w.field != nil && w.owner != nil && w.owner.Obj().Pkg() != nil && w.field.Name() == c.Field &&
		w.owner.Obj().Name() == c.FieldType && w.owner.Obj().Pkg().Path() == c.FieldPkg
}

// setterWirings returns the arguments n, a call of a setter, hands to a parameter that the
// setter stores into a field a workflow reads.
func (r *reporter) setterWirings(n ast.Node, setters []fieldSetter) []wiring {
	call, ok := n.(*ast.CallExpr)
	if !ok || len(setters) == 0 {
		return nil
	}
	fn := typeutil.StaticCallee(r.info, call)
	if fn == nil {
		return nil
	}
	var ws []wiring
	for i := range setters {
		s := &setters[i]
		if s.Func != fn.Origin().FullName() || s.Param >= len(call.Args) || s.Param >= fn.Signature().Params().Len() {
			continue
		}
		ws = append(ws, wiring{iface: fn.Signature().Params().At(s.Param).Type(), value: call.Args[s.Param], set: s})
	}
	return ws
}

// wirings returns the values n hands to places of interface type: the fields of a composite
// literal, the right-hand sides of an assignment or a variable's initialisers, the arguments of
// a call.
func (r *reporter) wirings(n ast.Node) []wiring {
	var ws []wiring
	add := func(t types.Type, v ast.Expr) {
		if t != nil && types.IsInterface(t) {
			ws = append(ws, wiring{iface: t, value: v})
		}
	}
	addField := func(owner types.Type, name string, v ast.Expr) {
		named, ok := types.Unalias(derefType(owner)).(*types.Named)
		if !ok {
			return
		}
		st, ok := named.Underlying().(*types.Struct)
		if !ok {
			return
		}
		for i := range st.NumFields() {
			if f := st.Field(i); f.Name() == name && types.IsInterface(f.Type()) {
				ws = append(ws, wiring{iface: f.Type(), value: v, field: f, owner: named})
			}
		}
	}
	switch n := n.(type) {
	case *ast.CompositeLit:
		t := r.info.TypeOf(n)
		_, isStruct := t.Underlying().(*types.Struct)
		for i, elt := range n.Elts {
			key, value := ast.Expr(nil), elt
			if kv, ok := elt.(*ast.KeyValueExpr); ok {
				key, value = kv.Key, kv.Value
			}
			if id, ok := key.(*ast.Ident); ok && isStruct {
				addField(t, id.Name, value)
			} else if st, ok := t.Underlying().(*types.Struct); ok && key == nil && i < st.NumFields() {
				addField(t, st.Field(i).Name(), value)
			} else {
				add(r.facts.values.elemType(n, key, i), value)
			}
		}
	case *ast.AssignStmt:
		if len(n.Lhs) == len(n.Rhs) && n.Tok == token.ASSIGN {
			for i := range n.Lhs {
				if sel, ok := ast.Unparen(n.Lhs[i]).(*ast.SelectorExpr); ok {
					if s := r.info.Selections[sel]; s != nil && s.Kind() == types.FieldVal && len(s.Index()) == 1 {
						addField(s.Recv(), sel.Sel.Name, n.Rhs[i])
						continue
					}
				}
				add(r.info.TypeOf(n.Lhs[i]), n.Rhs[i])
			}
		}
	case *ast.ValueSpec:
		if n.Type != nil && len(n.Names) == len(n.Values) {
			for i := range n.Names {
				add(r.info.TypeOf(n.Type), n.Values[i])
			}
		}
	case *ast.CallExpr:
		if tv, ok := r.info.Types[n.Fun]; ok && !tv.IsType() {
			for i, arg := range n.Args {
				add(r.facts.values.argType(n, i), arg)
			}
		}
	}
	return ws
}

// emitAt reports msg at [pos, end) once.
func (r *reporter) emitAt(pos, end token.Pos, rule, msg string) {
	key := r.pass.Fset.Position(pos).String() + msg
	if r.seen[key] {
		return
	}
	r.seen[key] = true
	r.pass.Report(analysis.Diagnostic{Pos: pos, End: end, Category: rule, Message: msg})
}
