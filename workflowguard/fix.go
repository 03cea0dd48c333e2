package workflowguard

import (
	"go/ast"
	"go/token"
	"go/types"
	"strconv"

	"golang.org/x/tools/go/analysis"
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
	ctx := r.contextName(e.st.owner, pos)
	wf := r.workflowName(pos)
	if ctx == "" || wf == "" {
		return nil
	}
	edit := func(message string, edits ...analysis.TextEdit) []analysis.SuggestedFix {
		return []analysis.SuggestedFix{{Message: message, TextEdits: edits}}
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
