package workflowguard

import (
	"go/ast"
	"go/token"
	"go/types"
	"strconv"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/types/typeutil"
)

// workflowPath is the import path the suggested fixes call into.
const workflowPath = "go.temporal.io/sdk/workflow"

// suggestedFixes returns the mechanical rewrite of a direct hazard in workflow code, when there
// is one and the workflow's context and the workflow package are both in scope at the hazard
// under the names the rewrite would use. A hazard taken as a function value is left alone.
func (r *reporter) suggestedFixes(e *event) []analysis.SuggestedFix {
	if e.direct.fix == noFix || e.value {
		return nil
	}
	pos := e.node.Pos()
	edit := func(message string, edits ...analysis.TextEdit) []analysis.SuggestedFix {
		return []analysis.SuggestedFix{{Message: message, TextEdits: edits}}
	}
	if e.direct.fix == fixSortedKeys {
		if edits := r.sortedKeysEdits(e.direct.loop); edits != nil {
			return edit("Range over the map's sorted keys", edits...)
		}
		return nil
	}
	ctx := r.contextName(e.st.owner, pos)
	wf := r.workflowName(pos)
	if ctx == "" || wf == "" {
		return nil
	}
	replace := func(n ast.Node, text string) analysis.TextEdit {
		return analysis.TextEdit{Pos: n.Pos(), End: n.End(), NewText: []byte(text)}
	}
	switch e.direct.fix {
	case fixNow:
		if call, ok := e.node.(*ast.CallExpr); ok {
			return edit("Replace time.Now() with "+wf+".Now("+ctx+")", replace(call, wf+".Now("+ctx+")"))
		}
	case fixSince:
		if call, ok := e.node.(*ast.CallExpr); ok && len(call.Args) == 1 {
			return edit("Replace time.Since with "+wf+".Now("+ctx+").Sub",
				replace(call, wf+".Now("+ctx+").Sub("+r.source(call.Args[0])+")"))
		}
	case fixSleep:
		if call, ok := e.node.(*ast.CallExpr); ok && len(call.Args) == 1 {
			return edit("Replace time.Sleep with "+wf+".Sleep",
				replace(call, wf+".Sleep("+ctx+", "+r.source(call.Args[0])+")"))
		}
	case fixGo:
		g, ok := e.node.(*ast.GoStmt)
		if !ok {
			return nil
		}
		open := wf + ".Go(" + ctx + ", func(" + ctx + " " + wf + ".Context) "
		if lit, ok := g.Call.Fun.(*ast.FuncLit); ok && len(g.Call.Args) == 0 && lit.Type.Params.NumFields() == 0 &&
			lit.Type.Results.NumFields() == 0 {
			// go func() { body }() → workflow.Go(ctx, func(ctx workflow.Context) { body })
			return edit("Start the goroutine with "+wf+".Go",
				analysis.TextEdit{Pos: g.Pos(), End: lit.Body.Lbrace, NewText: []byte(open)},
				analysis.TextEdit{Pos: lit.Body.Rbrace + 1, End: g.Call.End(), NewText: []byte(")")})
		}
		// go f(x) → workflow.Go(ctx, func(ctx workflow.Context) { f(x) }): x is now evaluated
		// in the coroutine, which starts before the workflow code goes on.
		return edit("Start the goroutine with "+wf+".Go",
			analysis.TextEdit{Pos: g.Pos(), End: g.Call.Pos(), NewText: []byte(open + "{ ")},
			analysis.TextEdit{Pos: g.Call.End(), End: g.Call.End(), NewText: []byte(" })")})
	}
	return nil
}

// contextName returns the name of the workflow context parameter of owner when that parameter
// is what the name denotes at pos, or "".
func (r *reporter) contextName(owner ast.Node, pos token.Pos) string {
	var ftype *ast.FuncType
	switch n := owner.(type) {
	case *ast.FuncDecl:
		ftype = n.Type
	case *ast.FuncLit:
		ftype = n.Type
	}
	if ftype == nil || ftype.Params.NumFields() == 0 || len(ftype.Params.List[0].Names) == 0 {
		return ""
	}
	id := ftype.Params.List[0].Names[0]
	param := r.info.Defs[id]
	if param == nil || id.Name == "_" || r.lookup(id.Name, pos) != param {
		return ""
	}
	return id.Name
}

// workflowName returns the name under which the file at pos imports the SDK's workflow package,
// when that name denotes it at pos, or "".
func (r *reporter) workflowName(pos token.Pos) string {
	for _, f := range r.pass.Files {
		if pos < f.FileStart || pos > f.FileEnd {
			continue
		}
		for _, spec := range f.Imports {
			if path, err := strconv.Unquote(spec.Path.Value); err != nil || path != workflowPath {
				continue
			}
			var pkgName types.Object
			if spec.Name != nil {
				pkgName = r.info.Defs[spec.Name]
			} else {
				pkgName = r.info.Implicits[spec]
			}
			if pkgName != nil && pkgName.Name() != "_" && pkgName.Name() != "." && r.lookup(pkgName.Name(), pos) == pkgName {
				return pkgName.Name()
			}
		}
	}
	return ""
}

// lookup returns the object name denotes at pos.
func (r *reporter) lookup(name string, pos token.Pos) types.Object {
	scope := r.pass.Pkg.Scope().Innermost(pos)
	if scope == nil {
		return nil
	}
	_, obj := scope.LookupParent(name, pos)
	return obj
}

// source returns the source text of n as written.
func (r *reporter) source(n ast.Node) string {
	tf := r.pass.Fset.File(n.Pos())
	if tf == nil {
		return ""
	}
	src, ok := r.sources[tf.Name()]
	if !ok {
		src, _ = r.pass.ReadFile(tf.Name())
		r.sources[tf.Name()] = src
	}
	start, end := tf.Offset(n.Pos()), tf.Offset(n.End())
	if src == nil || end > len(src) {
		return types.ExprString(n.(ast.Expr))
	}
	return string(src[start:end])
}

// sortedKeysEdits rewrites a range over a map, or over maps.Keys of one, into a range over the
// sorted keys:
//
//	for k, v := range m {        → for _, k := range slices.Sorted(maps.Keys(m)) {
//	                                   v := m[k]
//	for k := range maps.Keys(m) { → for _, k := range slices.Sorted(maps.Keys(m)) {
//
// It offers nothing when the key is not declared by the loop under a name, the key type is not
// ordered, the map is not a variable or a field (it is read again for each value), or the names
// slices and maps do not denote those packages at the loop; a missing import of either is added.
func (r *reporter) sortedKeysEdits(loop *ast.RangeStmt) []analysis.TextEdit {
	if loop == nil || loop.Tok != token.DEFINE {
		return nil
	}
	key, ok := loop.Key.(*ast.Ident)
	if !ok || key.Name == "_" {
		return nil
	}
	if b, ok := r.info.TypeOf(key).Underlying().(*types.Basic); !ok || b.Info()&types.IsOrdered == 0 {
		return nil
	}
	m := loop.X
	keysCall := false
	if call, ok := ast.Unparen(m).(*ast.CallExpr); ok {
		fn, _ := typeutil.Callee(r.info, call).(*types.Func)
		if fn == nil || pkgPath(fn) != "maps" || fn.Name() != "Keys" || len(call.Args) != 1 || loop.Value != nil {
			return nil
		}
		m, keysCall = call.Args[0], true
	}
	if _, isMap := r.info.TypeOf(m).Underlying().(*types.Map); !isMap || !sideEffectFree(m) {
		return nil
	}
	imports, ok := r.importEdits(loop.Pos(), "maps", "slices")
	if !ok {
		return nil
	}
	mapText := r.source(m)
	edits := []analysis.TextEdit{{Pos: loop.Key.Pos(), End: loop.X.End(),
		NewText: []byte("_, " + key.Name + " := range slices.Sorted(maps.Keys(" + mapText + "))")}}
	if v, ok := loop.Value.(*ast.Ident); ok && v.Name != "_" && !keysCall {
		at := loop.Body.Rbrace // before the first statement, after a comment on the line of the brace
		if len(loop.Body.List) > 0 {
			at = loop.Body.List[0].Pos()
		}
		edits = append(edits, analysis.TextEdit{Pos: at, End: at, NewText: []byte(v.Name + " := " + mapText + "[" + key.Name + "]\n")})
	}
	return append(edits, imports...)
}

// sideEffectFree reports whether e is a variable or a chain of field selections.
func sideEffectFree(e ast.Expr) bool {
	switch x := ast.Unparen(e).(type) {
	case *ast.Ident:
		return true
	case *ast.SelectorExpr:
		return sideEffectFree(x.X)
	}
	return false
}

// importEdits returns the edits that import the packages the file at pos lacks, and false when
// one of the names denotes something else at pos.
func (r *reporter) importEdits(pos token.Pos, paths ...string) ([]analysis.TextEdit, bool) {
	var file *ast.File
	for _, f := range r.pass.Files {
		if f.FileStart <= pos && pos <= f.FileEnd {
			file = f
		}
	}
	if file == nil {
		return nil, false
	}
	var edits []analysis.TextEdit
	for _, path := range paths {
		obj := r.lookup(path, pos)
		if pkg, ok := obj.(*types.PkgName); ok && pkg.Imported().Path() == path {
			continue
		}
		if obj != nil {
			return nil, false
		}
		var decl *ast.GenDecl
		for _, d := range file.Decls {
			if gd, ok := d.(*ast.GenDecl); ok && gd.Tok == token.IMPORT && gd.Lparen.IsValid() {
				decl = gd
				break
			}
		}
		if decl == nil {
			return nil, false
		}
		edits = append(edits, analysis.TextEdit{Pos: decl.Lparen + 1, End: decl.Lparen + 1, NewText: []byte("\n\t" + strconv.Quote(path))})
	}
	return edits, true
}
