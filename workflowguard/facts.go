package workflowguard

import (
	"fmt"
	"go/types"
	"slices"
	"sort"
	"strings"
)

// facts is the phase that computes what every function of the package reaches, per rule the
// shortest chain to a hazard, exports it as an object fact, and reads the facts of the
// functions of other packages.
type facts struct {
	*unit
	values     *funcValues
	fieldNames map[*types.Var]string        // (pkg.T).f for fields of the package's struct types
	summaries  map[types.Object]pathSet     // what the package's functions and function variables reach
	imported   map[types.Object]pathSet     // facts of other packages' functions, read once each
	params     map[types.Object][]paramCall // type-parameter method calls, of this package's and imported functions
}

// newFacts names the fields of the package's struct types, for the heads of chains.
func newFacts(u *unit, values *funcValues) *facts {
	ft := &facts{
		unit:       u,
		values:     values,
		fieldNames: map[*types.Var]string{},
		summaries:  map[types.Object]pathSet{},
		imported:   map[types.Object]pathSet{},
		params:     map[types.Object][]paramCall{},
	}
	pkgScope := u.pass.Pkg.Scope()
	for _, name := range pkgScope.Names() {
		tn, ok := pkgScope.Lookup(name).(*types.TypeName)
		if !ok || tn.IsAlias() {
			continue
		}
		if st, ok := tn.Type().Underlying().(*types.Struct); ok {
			for f := range st.Fields() {
				ft.fieldNames[f] = "(" + u.pass.Pkg.Name() + "." + tn.Name() + ")." + f.Name()
			}
		}
	}
	return ft
}

// reachFact is exported on every function that reaches a hazard, directly or through callees,
// so that workflows in other packages see it without re-reading its body.
type reachFact struct {
	Paths  []reachPath // at most one per rule, the shortest chain, sorted by rule
	Module string      // module of the exporting package: ADK-W006 stays within one module
	Params []paramCall // methods of the function's type parameters it calls, resolved per instantiation
}

// paramCall is a call of a method of a generic function's type parameter (b.Next() with b of type
// B): what it reaches depends on the type argument, so it is resolved at each instantiation rather
// than to every implementation of the constraint.
type paramCall struct {
	Index  int      // of the type parameter
	Method string   // the method's name
	Chain  []string // the generic function, the head of the chain
}

// reachPath is the shortest known call chain from a function to one hazard.
type reachPath struct {
	Rule   string   // ADK-W001..ADK-W004, ADK-W006
	Chain  []string // the function (or function variable) itself first, the hazard last
	Remedy remedyID // of the hazard at the end of the chain; its text is in the rule table
}

// AFact marks reachFact as an analysis fact.
func (*reachFact) AFact() {}

func (f *reachFact) String() string {
	parts := make([]string, 0, len(f.Paths)+len(f.Params))
	for _, p := range f.Paths {
		parts = append(parts, p.Rule+" "+strings.Join(p.Chain, " → "))
	}
	for _, p := range f.Params {
		parts = append(parts, fmt.Sprintf("per instantiation: type parameter %d's %s", p.Index, p.Method))
	}
	return "reaches(" + strings.Join(parts, "; ") + ")"
}

// pathSet holds the shortest chain per pathKey.
type pathSet map[string]reachPath

// pathKey keys a chain in a pathSet: its rule, except that ADK-W006 keeps a goroutine started
// (a go statement, errgroup's Go) apart from channels, selects and map order, because only the
// first is followed into another module: a library's fan-out runs on the workflow path, while
// its channels are its own business.
func pathKey(p reachPath) string {
	if p.Rule == RuleConcurrency && p.Remedy == remedyGo {
		return p.Rule + " go"
	}
	return p.Rule
}

// crossesModules reports whether a chain is followed from a function of another module: every
// rule but ADK-W006 and ADK-W007, and of ADK-W006 the goroutines started.
func crossesModules(p reachPath) bool {
	switch p.Rule {
	case RuleConcurrency:
		return p.Remedy == remedyGo
	case RuleGlobalState:
		return false
	}
	return true
}

// shortestPerRule keeps, per rule, the shortest of the chains of ps, sorted by rule: what a
// report prints, one finding per call site and rule.
func shortestPerRule(ps pathSet) []reachPath {
	var out []reachPath
	for _, p := range sortedPaths(ps) {
		if n := len(out); n > 0 && out[n-1].Rule == p.Rule {
			// Of two chains as short, the goroutine started says more than the channel it feeds.
			if len(p.Chain) < len(out[n-1].Chain) || len(p.Chain) == len(out[n-1].Chain) && p.Remedy == remedyGo {
				out[n-1] = p
			}
			continue
		}
		out = append(out, p)
	}
	return out
}

// calleePaths returns what obj (a function, an interface method, a function variable or field)
// reaches: this package's summary, the fact another package's pass exported (the standard
// library and the SDK export none), or for an interface method the union over its
// implementations.
func (ft *facts) calleePaths(obj types.Object) pathSet {
	if fn, ok := obj.(*types.Func); ok && isAbstract(fn) {
		return ft.interfacePaths(fn)
	}
	if obj.Pkg() == ft.pass.Pkg {
		return ft.summaries[obj]
	}
	if ps, ok := ft.imported[obj]; ok {
		return ps
	}
	var ps pathSet
	var f reachFact
	if ft.pass.ImportObjectFact(obj, &f) {
		ft.params[obj] = f.Params
		ps = pathSet{}
		for _, p := range f.Paths {
			if !crossesModules(p) && f.Module != ft.module {
				continue // a library's own channels and state are its business
			}
			ps[pathKey(p)] = p
		}
	}
	ft.imported[obj] = ps
	return ps
}

// eventPaths is what the call or use e reaches: its callee's chains (unless base is false), and
// for a call of a generic function, what the methods of its type arguments that the function
// calls reach (a type argument that is itself a type parameter is resolved through its
// constraint, to every implementation).
func (ft *facts) eventPaths(e *event, base bool) pathSet {
	var ps pathSet
	if base {
		ps = ft.calleePaths(e.callee)
	}
	if e.targs == nil {
		return ps
	}
	if e.callee.Pkg() != ft.pass.Pkg {
		ft.calleePaths(e.callee) // reads the fact, and with it the params
	}
	merged := pathSet{}
	for k, p := range ps {
		merged[k] = p
	}
	for _, pc := range ft.params[e.callee] {
		if pc.Index >= e.targs.Len() {
			continue
		}
		obj, _, _ := types.LookupFieldOrMethod(e.targs.At(pc.Index), true, e.callee.Pkg(), pc.Method)
		m, ok := obj.(*types.Func)
		if !ok {
			continue
		}
		for _, p := range ft.calleePaths(m.Origin()) {
			chain := append(slices.Clone(pc.Chain), p.Chain...)
			if cur, ok := merged[pathKey(p)]; ok && len(cur.Chain) <= len(chain) {
				continue
			}
			merged[pathKey(p)] = reachPath{Rule: p.Rule, Chain: chain, Remedy: p.Remedy}
		}
	}
	return merged
}

// interfacePaths is what a call through the interface method fn reaches: for each rule, the
// shortest chain through any implementation among the named types the package sees.
func (ft *facts) interfacePaths(fn *types.Func) pathSet {
	ps := pathSet{}
	for _, impl := range ft.values.implementations(fn) {
		for _, p := range ft.calleePaths(impl) {
			if cur, ok := ps[pathKey(p)]; ok && len(cur.Chain) <= len(p.Chain)+1 {
				continue
			}
			ps[pathKey(p)] = reachPath{Rule: p.Rule, Chain: append([]string{displayName(fn, false)}, p.Chain...), Remedy: p.Remedy}
		}
	}
	return ps
}

// display names a summarised object at the head of a chain.
func (ft *facts) display(obj types.Object) string {
	if fn, ok := obj.(*types.Func); ok {
		return displayName(fn, false)
	}
	if v, ok := obj.(*types.Var); ok {
		if name, ok := ft.fieldNames[v]; ok {
			return name
		}
	}
	return obj.Pkg().Name() + "." + obj.Name()
}

// summarize computes, for every function and function variable declared in the package, the
// shortest chain to each kind of hazard it reaches (a fixpoint over same-package calls; other
// packages come from facts), and exports the result as facts.
func (ft *facts) summarize(events []event, dirs *directives) {
	offer := func(obj types.Object, p reachPath) bool {
		ps := ft.summaries[obj]
		if ps == nil {
			ps = pathSet{}
			ft.summaries[obj] = ps
		}
		if cur, ok := ps[pathKey(p)]; ok && len(cur.Chain) <= len(p.Chain) {
			return false
		}
		ps[pathKey(p)] = p
		return true
	}
	var calls []*event
	for i := range events {
		e := &events[i]
		if e.st.fn == nil {
			continue
		}
		if e.tparam > 0 {
			pc := paramCall{Index: e.tparam - 1, Method: e.callee.Name(), Chain: []string{ft.display(e.st.fn)}}
			if !slices.ContainsFunc(ft.params[e.st.fn], func(p paramCall) bool { return p.Index == pc.Index && p.Method == pc.Method }) {
				ft.params[e.st.fn] = append(ft.params[e.st.fn], pc)
			}
			continue
		}
		if e.direct == nil {
			calls = append(calls, e)
			continue
		}
		if dirs.suppressed(e.node.Pos(), e.st.decl, e.direct.rule) {
			continue
		}
		offer(e.st.fn, reachPath{
			Rule:   e.direct.rule,
			Chain:  []string{ft.display(e.st.fn), e.direct.callee},
			Remedy: e.direct.remedy,
		})
	}
	for changed := true; changed; {
		changed = false
		for _, e := range calls {
			for _, p := range sortedPaths(ft.eventPaths(e, true)) {
				if dirs.suppressed(e.node.Pos(), e.st.decl, RuleReach, p.Rule) {
					continue
				}
				chain := append([]string{ft.display(e.st.fn)}, p.Chain...)
				if offer(e.st.fn, reachPath{Rule: p.Rule, Chain: chain, Remedy: p.Remedy}) {
					changed = true
				}
			}
		}
	}
	objs := make([]types.Object, 0, len(ft.summaries))
	for obj := range ft.summaries {
		objs = append(objs, obj)
	}
	for obj := range ft.params {
		if _, ok := ft.summaries[obj]; !ok && obj.Pkg() == ft.pass.Pkg {
			objs = append(objs, obj)
		}
	}
	sort.Slice(objs, func(i, j int) bool { return objs[i].Pos() < objs[j].Pos() })
	for _, obj := range objs {
		paths := sortedPaths(ft.summaries[obj])
		if len(paths) > 0 || len(ft.params[obj]) > 0 {
			ft.pass.ExportObjectFact(obj, &reachFact{Paths: paths, Module: ft.module, Params: ft.params[obj]})
		}
	}
}

func sortedPaths(ps pathSet) []reachPath {
	paths := make([]reachPath, 0, len(ps))
	for _, p := range ps {
		paths = append(paths, p)
	}
	slices.SortFunc(paths, func(a, b reachPath) int { return strings.Compare(pathKey(a), pathKey(b)) })
	return paths
}
