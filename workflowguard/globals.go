package workflowguard

import (
	"go/ast"
	"go/token"
	"go/types"
	"strings"

	"golang.org/x/tools/go/ast/edge"
	"golang.org/x/tools/go/ast/inspector"
	"golang.org/x/tools/go/types/typeutil"
)

// This file holds ADK-W007: process-global state on the workflow path. A package-level variable
// lives as long as the worker process and is shared by every run on it; a replay on another
// worker, or after a restart, sees another value.

// packageVar returns the package-level variable that the storage e denotes belongs to (v, v.f,
// v[k], v.f[k], &v, pkg.V), or nil when e is local or reached through a pointer of its own.
func (w *walker) packageVar(e ast.Expr) *types.Var {
	for {
		switch x := ast.Unparen(e).(type) {
		case *ast.Ident:
			v, _ := w.info.Uses[x].(*types.Var)
			if v == nil || v.Pkg() == nil || v.Parent() != v.Pkg().Scope() || isFuncType(v.Type()) {
				return nil
			}
			return v
		case *ast.SelectorExpr:
			if s := w.info.Selections[x]; s != nil {
				if s.Kind() != types.FieldVal {
					return nil
				}
				e = x.X
				continue
			}
			e = x.Sel // a qualified identifier, pkg.V
		case *ast.IndexExpr:
			e = x.X
		case *ast.UnaryExpr:
			if x.Op != token.AND {
				return nil
			}
			e = x.X
		default:
			return nil
		}
	}
}

// varName names a package-level variable in a finding: its import path and name.
func varName(v *types.Var) string { return v.Pkg().Path() + "." + v.Name() }

// visitWrites records the package-level variables an assignment or ++/-- writes.
func (w *walker) visitWrites(n ast.Node, lhs []ast.Expr, st walkState) {
	for _, e := range lhs {
		if v := w.packageVar(e); v != nil {
			if ix, ok := ast.Unparen(e).(*ast.IndexExpr); ok && w.packageVar(ix.X) == v && w.isMapExpr(ix.X) {
				w.mapWriters[v] = append(w.mapWriters[v], st)
			}
			w.write(n, st, v, "write to "+varName(v))
			return
		}
	}
}

// isMapType reports whether t is a map.
func isMapType(t types.Type) bool {
	_, ok := t.Underlying().(*types.Map)
	return ok
}

// isMapExpr reports whether e is a map: the package-level map itself, or a map field of a
// package-level struct (var memo struct{ sync.Mutex; m map[string]string }).
func (w *walker) isMapExpr(e ast.Expr) bool {
	t := w.info.TypeOf(e)
	return t != nil && isMapType(t)
}

// globalWrite is a write to a package-level variable, reported once the package is walked if
// the variable is read where it decides something: in workflow code, or in the function that
// writes it (a cache's check and set). A variable only written on the workflow path (a sink a
// test reads, a counter for metrics) decides nothing on replay.
type globalWrite struct {
	event
	v *types.Var
}

// write records a pure write of v at n.
func (w *walker) write(n ast.Node, st walkState, v *types.Var, what string) {
	h := hazard{rule: RuleGlobalState, callee: what, remedy: remedyGlobal}
	w.writes = append(w.writes, globalWrite{event{node: n, st: st, direct: &h}, v})
}

// globalReads is where a package-level variable is read.
type globalReads struct {
	inWorkflow bool                  // in workflow code (a workflow or a closure it runs)
	funcs      map[types.Object]bool // in these functions
}

// visitRead records id as a read of a package-level variable of this package unless it is
// the target of a write (v = x, v[k] = x, v.f = x, v++, delete(v, k), &v in sync/atomic, or the
// receiver of a sync.Map or atomic method: those are judged as writes or as state read).
func (w *walker) visitRead(cur inspector.Cursor, v *types.Var, st walkState) {
	if v.Pkg() != w.pass.Pkg || v.Parent() != v.Pkg().Scope() || isFuncType(v.Type()) {
		return
	}
	// A map read is of the map itself or of a map field of the variable's struct (memo.m[k]).
	readsMap := isMapType(v.Type())
	for {
		k := cur.ParentEdgeKind()
		if k == edge.IndexExpr_X || k == edge.SelectorExpr_X && w.isFieldSel(cur.Parent().Node()) ||
			k == edge.ParenExpr_X || k == edge.StarExpr_X || k == edge.UnaryExpr_X {
			if k == edge.IndexExpr_X {
				readsMap = readsMap || w.isMapExpr(cur.Node().(ast.Expr))
			}
			cur = cur.Parent()
			continue
		}
		switch k {
		case edge.AssignStmt_Lhs, edge.IncDecStmt_X:
			return
		case edge.SelectorExpr_X: // a method: sync.Map and sync/atomic are judged at the call
			if fn, ok := w.info.Uses[cur.Parent().Node().(*ast.SelectorExpr).Sel].(*types.Func); ok && oneOf(pkgPath(fn), "sync", "sync/atomic") {
				return
			}
		case edge.CallExpr_Args:
			switch fn := typeutil.Callee(w.info, cur.Parent().Node().(*ast.CallExpr)).(type) {
			case *types.Builtin:
				if fn.Name() == "delete" || fn.Name() == "clear" {
					return
				}
			case *types.Func:
				if pkgPath(fn) == "sync/atomic" {
					return
				}
			}
		}
		break
	}
	if readsMap {
		h := hazard{rule: RuleGlobalState, callee: "read of " + varName(v), remedy: remedyGlobal}
		w.mapReads = append(w.mapReads, globalWrite{event{node: cur.Node(), st: st, direct: &h}, v})
	}
	r := w.reads[v]
	if r.funcs == nil {
		r.funcs = map[types.Object]bool{}
	}
	r.inWorkflow = r.inWorkflow || st.owner != nil
	r.funcs[st.fn] = true
	w.reads[v] = r
}

// isFieldSel reports whether n is a selector of a struct field.
func (w *walker) isFieldSel(n ast.Node) bool {
	s := w.info.Selections[n.(*ast.SelectorExpr)]
	return s != nil && s.Kind() == types.FieldVal
}

// flushWrites keeps, of the writes recorded, those of variables read in workflow code or in the
// writing function.
func (w *walker) flushWrites() {
	for _, gw := range w.writes {
		if r := w.reads[gw.v]; r.inWorkflow || r.funcs[gw.st.fn] {
			w.events = append(w.events, gw.event)
		}
	}
	w.writes = nil
}

// flushMapReads keeps, of the reads of package-level maps recorded, those of caches: maps whose
// entries are set, deleted or cleared while the worker serves runs, in workflow code, in a
// function that takes a context (an activity, a workflow, a handler), or in a function this
// package's workflows and activities call. Such a map holds what earlier runs on the same worker
// left in it, so a read decides differently on replay elsewhere. A table filled at init, in a
// package-level initialiser, or by a registration function called at start-up is left alone.
func (w *walker) flushMapReads() {
	served := w.servedFuncs()
	writer := map[*types.Var]string{}
	for v, sts := range w.mapWriters {
		for _, st := range sts {
			if st.owner != nil || served[st.fn] {
				if st.fn != nil {
					writer[v] = w.display(st.fn)
				} else {
					writer[v] = "workflow code"
				}
				break
			}
		}
	}
	for _, r := range w.mapReads {
		if by, ok := writer[r.v]; ok {
			r.direct.callee += ", a cache written by " + by
			w.events = append(w.events, r.event)
		}
	}
	w.mapReads = nil
}

// servedFuncs returns the functions of the package that run while the worker serves runs: those
// that take a context.Context or a workflow context first, and what they call in the package.
func (w *walker) servedFuncs() map[types.Object]bool {
	calls := map[types.Object][]types.Object{}
	served := map[types.Object]bool{}
	var queue []types.Object
	for _, e := range w.events {
		if e.st.fn == nil {
			continue
		}
		if fn, ok := e.st.fn.(*types.Func); ok && !served[fn] && servesRuns(fn) {
			served[fn] = true
			queue = append(queue, fn)
		}
		if e.callee != nil && e.callee.Pkg() == w.pass.Pkg {
			calls[e.st.fn] = append(calls[e.st.fn], e.callee)
		}
	}
	for _, sts := range w.mapWriters {
		for _, st := range sts {
			if fn, ok := st.fn.(*types.Func); ok && !served[fn] && servesRuns(fn) {
				served[fn] = true
				queue = append(queue, fn)
			}
		}
	}
	for len(queue) > 0 {
		fn := queue[0]
		queue = queue[1:]
		for _, c := range calls[fn] {
			if obj := origin(c); !served[obj] {
				served[obj] = true
				queue = append(queue, obj)
			}
		}
	}
	return served
}

// origin returns the generic origin of a function, or obj.
func origin(obj types.Object) types.Object {
	if fn, ok := obj.(*types.Func); ok {
		return fn.Origin()
	}
	return obj
}

// servesRuns reports whether fn runs per request: its first parameter is a context.Context or a
// workflow context.
func servesRuns(fn *types.Func) bool {
	sig := fn.Signature()
	if isWorkflowSig(sig) {
		return true
	}
	return sig.Params().Len() > 0 && isNamed(sig.Params().At(0).Type(), "context", "Context")
}

// display names a function of the package in a finding, as chains do (pkg.f, (*pkg.T).m).
func (w *walker) display(obj types.Object) string {
	if fn, ok := obj.(*types.Func); ok {
		return displayName(fn, false)
	}
	return obj.Name()
}

// isPureWrite reports whether call is a statement of its own that only stores (its result, if
// any, is dropped): atomic Store and Add, sync.Map Store, Delete and Clear.
func isPureWrite(cur inspector.Cursor, name string) bool {
	return cur.ParentEdgeKind() == edge.ExprStmt_X &&
		(strings.HasPrefix(name, "Store") || strings.HasPrefix(name, "Add") || oneOf(name, "Delete", "Clear", "And", "Or"))
}

// visitGlobalCall records the calls that use process-global state: delete or clear of a
// package-level map, sync/atomic on a package-level value, sync.Once.Do on a package-level
// Once, and a sync mutex locked across a blocking workflow call.
func (w *walker) visitGlobalCall(cur inspector.Cursor, call *ast.CallExpr, st walkState) {
	switch obj := typeutil.Callee(w.info, call).(type) {
	case *types.Builtin:
		if (obj.Name() == "delete" || obj.Name() == "clear") && len(call.Args) > 0 {
			if v := w.packageVar(call.Args[0]); v != nil {
				if w.isMapExpr(call.Args[0]) {
					w.mapWriters[v] = append(w.mapWriters[v], st)
				}
				w.write(call, st, v, obj.Name()+" on "+varName(v))
			}
		}
	case *types.Var:
		// A package-level function made by sync.OnceFunc, OnceValue or OnceValues runs once per
		// process, not once per run.
		if isFuncVar(obj) && obj.Parent() == obj.Pkg().Scope() {
			for _, rhs := range w.assigns[obj] {
				if c, ok := ast.Unparen(rhs).(*ast.CallExpr); ok {
					if fn := typeutil.StaticCallee(w.info, c); fn != nil && pkgPath(fn) == "sync" &&
						oneOf(fn.Name(), "OnceFunc", "OnceValue", "OnceValues") {
						w.direct(call, st, hazard{rule: RuleGlobalState, callee: varName(obj) + ", made by sync." + fn.Name(), remedy: remedyOnce})
						return
					}
				}
			}
		}
	case *types.Func:
		if obj.Pkg() == nil {
			return
		}
		recv := w.values.methodReceiver(call.Fun)
		switch path, name := obj.Pkg().Path(), obj.Name(); {
		case path == "sync/atomic":
			target := recv
			if target == nil && len(call.Args) > 0 {
				target = call.Args[0]
			}
			if v := w.packageVar(target); v != nil {
				if what := "sync/atomic." + name + " on " + varName(v); isPureWrite(cur, name) {
					w.write(call, st, v, what)
				} else {
					w.direct(call, st, hazard{rule: RuleGlobalState, callee: what, remedy: remedyGlobal})
				}
			}
		case path == "sync" && receiverName(obj) == "Once" && name == "Do":
			if v := w.packageVar(recv); v != nil {
				w.direct(call, st, hazard{rule: RuleGlobalState, callee: "(*sync.Once).Do on " + varName(v), remedy: remedyOnce})
			}
		case path == "sync" && receiverName(obj) == "Map":
			// A package-level sync.Map is a cache shared by every run on the worker.
			if v := w.packageVar(recv); v != nil {
				if what := "(*sync.Map)." + name + " on " + varName(v); isPureWrite(cur, name) {
					w.write(call, st, v, what)
				} else {
					w.direct(call, st, hazard{rule: RuleGlobalState, callee: what, remedy: remedyGlobal})
				}
			}
		case path == "sync" && oneOf(receiverName(obj), "Mutex", "RWMutex") && oneOf(name, "Lock", "RLock"):
			if blocking := w.blockedWhileLocked(cur, recv, name); blocking != "" {
				w.direct(call, st, hazard{rule: RuleGlobalState,
					callee: "(*sync." + receiverName(obj) + ")." + name + " held across " + blocking, remedy: remedyMutex})
			}
		}
	}
}

// blockedWhileLocked returns the blocking workflow call made, in the statements that follow the
// lock call at cur in its block, before the same mutex is unlocked (to the end of the block when
// the unlock is deferred), or "".
func (w *walker) blockedWhileLocked(cur inspector.Cursor, mu ast.Expr, lock string) string {
	if mu == nil {
		return ""
	}
	unlock := "Unlock"
	if lock == "RLock" {
		unlock = "RUnlock"
	}
	stmt := cur
	for stmt.ParentEdgeKind() != 0 {
		if _, ok := stmt.Parent().Node().(*ast.BlockStmt); ok {
			break
		}
		stmt = stmt.Parent()
	}
	block, ok := stmt.Parent().Node().(*ast.BlockStmt)
	if !ok {
		return ""
	}
	key := types.ExprString(mu)
	started := false
	for _, s := range block.List {
		if !started {
			started = s == stmt.Node()
			continue
		}
		if es, ok := s.(*ast.ExprStmt); ok && w.isMethodCallOn(es.X, key, unlock) {
			return ""
		}
		if blocking := w.blockingCall(s); blocking != "" {
			return blocking
		}
	}
	return ""
}

// isMethodCallOn reports whether e calls the method name of sync on the receiver written key.
func (w *walker) isMethodCallOn(e ast.Expr, key, name string) bool {
	call, ok := ast.Unparen(e).(*ast.CallExpr)
	if !ok {
		return false
	}
	fn, ok := typeutil.Callee(w.info, call).(*types.Func)
	recv := w.values.methodReceiver(call.Fun)
	return ok && fn.Pkg() != nil && fn.Pkg().Path() == "sync" && fn.Name() == name && recv != nil && types.ExprString(recv) == key
}

// blockingCall returns the first call under n that blocks the workflow coroutine until the
// workflow is woken by the server or another coroutine (Future.Get, workflow.Sleep, Await,
// Receive, Send, Select), or "". Closures under n are not entered: they run later.
func (w *walker) blockingCall(n ast.Node) string {
	found := ""
	ast.Inspect(n, func(n ast.Node) bool {
		if found != "" {
			return false
		}
		switch n := n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.CallExpr:
			fn, ok := typeutil.Callee(w.info, n).(*types.Func)
			if !ok || fn.Pkg() == nil || !isSDKWorkflowPkg(fn.Pkg().Path()) {
				return true
			}
			recv := receiverName(fn)
			if recv == "" && oneOf(fn.Name(), "Sleep", "Await", "AwaitWithTimeout", "AwaitWithOptions") ||
				recv != "" && oneOf(fn.Name(), "Get", "Receive", "ReceiveWithTimeout", "Send", "Select") {
				found = displayName(fn, false)
			}
		}
		return true
	})
	return found
}

// isSDKWorkflowPkg reports whether path is the SDK's workflow package or its internal one.
func isSDKWorkflowPkg(path string) bool {
	return path == workflowPath || path == "go.temporal.io/sdk/internal"
}

// likelyInitValue returns what a package-level variable of this package was set from when it
// was set, at init or elsewhere, from the clock, a draw or the environment (so each worker
// process holds its own value), or "".
func (w *walker) likelyInitValue(v *types.Var) string {
	if v.Pkg() != w.pass.Pkg || v.Parent() != v.Pkg().Scope() || isFuncType(v.Type()) ||
		isNamed(derefType(v.Type()), "math/rand", "Rand") || isNamed(derefType(v.Type()), "math/rand/v2", "Rand") {
		return ""
	}
	if got, ok := w.initValues[v]; ok {
		return got
	}
	w.initValues[v] = ""
	for _, rhs := range w.assigns[v] {
		src := w.origin(rhs, func(fn *types.Func) string {
			if h, ok := w.cat.lookup(fn); ok && (h.rule == RuleRandomness || h.rule == RuleWallClock || processEnv(fn)) {
				return h.callee
			}
			return ""
		}, map[*types.Var]bool{}, 0)
		if src != "" {
			w.initValues[v] = src
			break
		}
	}
	return w.initValues[v]
}

// derefType strips one pointer.
func derefType(t types.Type) types.Type {
	if p, ok := t.(*types.Pointer); ok {
		return p.Elem()
	}
	return t
}

// processEnv reports whether fn reads what differs between worker processes: the environment,
// the host, the process and the machine. Opening a file system (os.DirFS) is not a read.
func processEnv(fn *types.Func) bool {
	switch pkgPath(fn) {
	case "os":
		return receiverName(fn) == "" && oneOf(fn.Name(), "Getenv", "LookupEnv", "Environ", "ExpandEnv", "Hostname",
			"Getwd", "Executable", "UserHomeDir", "UserCacheDir", "UserConfigDir", "TempDir", "Getpid", "Getppid")
	case "syscall":
		return oneOf(fn.Name(), "Getenv", "Environ", "Getpid")
	case "runtime":
		return oneOf(fn.Name(), "NumCPU", "GOMAXPROCS")
	case "os/user":
		return true
	}
	return false
}
