package workflowguard

import (
	"go/types"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"golang.org/x/tools/go/analysis"
)

// scope is the phase that decides which functions are workflow code: a declared function whose
// first parameter is a workflow.Context is a workflow, unless it is handed to SideEffect.
type scope struct {
	callbacks map[*types.Func]bool  // functions handed to SideEffect or MutableSideEffect
	roots     map[types.Object]bool // workflows declared in the package
}

func newScope() *scope {
	return &scope{callbacks: map[*types.Func]bool{}, roots: map[types.Object]bool{}}
}

// workflowDecl reports whether the declared function fn is a workflow, and remembers it as one
// of the package's workflows. A function handed to SideEffect is a callback, not a workflow,
// even though its first parameter is a workflow.Context; a workflow that calls it directly
// still reaches it.
func (s *scope) workflowDecl(fn *types.Func) bool {
	if !isWorkflowSig(fn.Signature()) || s.callbacks[fn] {
		return false
	}
	s.roots[fn] = true
	return true
}

// isWorkflow reports whether obj is a workflow declared in the package: its findings are
// reported where they are, not again at a call from another workflow.
func (s *scope) isWorkflow(obj types.Object) bool { return s.roots[obj] }

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
