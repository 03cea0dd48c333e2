package workflowguard

import (
	"go/ast"
	"strings"

	"golang.org/x/tools/go/analysis"
)

// reporter is the phase that turns the events of workflow code into diagnostics: the rule's
// summary from the rule table, the callee or the chain, the remedy, and the suggested fixes.
type reporter struct {
	*unit
	dirs    *directives
	scope   *scope
	facts   *facts
	cat     *catalog          // for the standard library's methods wired in (an *http.Client)
	seen    map[string]bool   // position and message of each diagnostic emitted
	sources map[string][]byte // file contents read for suggested fixes
}

func newReporter(u *unit, dirs *directives, sc *scope, ft *facts, cat *catalog) *reporter {
	return &reporter{unit: u, dirs: dirs, scope: sc, facts: ft, cat: cat, seen: map[string]bool{}, sources: map[string][]byte{}}
}

// report emits one diagnostic per hazard used in workflow code.
func (r *reporter) report(events []event) {
	for i := range events {
		e := &events[i]
		if e.st.owner == nil {
			continue
		}
		how := ""
		if e.value {
			how = ", taken as a function value"
		}
		if e.direct != nil {
			if !r.dirs.suppressed(e.node.Pos(), e.st.decl, e.direct.rule) {
				r.emit(e.node, e.direct.rule, e.direct.rule+" "+ruleSummary(e.direct.rule)+
					" ("+e.direct.callee+how+"); "+remedyText(e.direct.remedy), r.suggestedFixes(e))
			}
			continue
		}
		if e.tparam > 0 {
			continue // a method of a type parameter: reported where the function is instantiated
		}
		// A workflow of this package has its own findings reported where they are; what its type
		// arguments bring is reported here.
		base := e.callee.Pkg() != r.pass.Pkg || !r.scope.isWorkflow(e.callee)
		for _, p := range shortestPerRule(r.facts.eventPaths(e, base)) {
			if r.dirs.suppressed(e.node.Pos(), e.st.decl, RuleReach, p.Rule) {
				continue
			}
			r.emit(e.node, RuleReach, RuleReach+" helper reaches "+ruleNoun(p.Rule)+" ("+p.Rule+") on the workflow path ("+
				strings.Join(p.Chain, " → ")+how+"); "+remedyText(p.Remedy), nil)
		}
	}
}

// emit reports msg at n once, however many events lead to it.
func (r *reporter) emit(n ast.Node, rule, msg string, fixes []analysis.SuggestedFix) {
	key := r.pass.Fset.Position(n.Pos()).String() + msg
	if r.seen[key] {
		return
	}
	r.seen[key] = true
	r.pass.Report(analysis.Diagnostic{Pos: n.Pos(), End: n.End(), Category: rule, Message: msg, SuggestedFixes: fixes})
}
