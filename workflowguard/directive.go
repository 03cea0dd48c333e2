package workflowguard

import (
	"go/ast"
	"go/token"
	"slices"
	"strings"

	"golang.org/x/tools/go/analysis"
)

// directivePrefix starts a suppression comment. Like //go: and //nolint directives it has no space
// after the slashes, so gofmt keeps it and go/doc hides it from documentation.
const directivePrefix = "//workflowguard:ignore"

// directive is one well-formed //workflowguard:ignore comment.
type directive struct {
	rules  []string
	reason string
}

// parseDirective parses the text of one comment. ok is false when the comment is not a
// workflowguard directive at all; problem is non-empty when it is one but malformed.
func parseDirective(text string) (d directive, ok bool, problem string) {
	rest, found := strings.CutPrefix(text, directivePrefix)
	if !found || rest != "" && rest[0] != ' ' && rest[0] != '\t' {
		return directive{}, false, ""
	}
	rules, reason, _ := strings.Cut(strings.TrimSpace(rest), " ")
	reason = strings.TrimSpace(reason)
	if rules == "" {
		return directive{}, true, "names no rule"
	}
	for r := range strings.SplitSeq(rules, ",") {
		if _, known := ruleFor(r); !known {
			return directive{}, true, "names unknown rule " + r
		}
		d.rules = append(d.rules, r)
	}
	if reason == "" {
		return directive{}, true, "has no reason"
	}
	d.reason = reason
	return d, true, ""
}

// lineKey identifies one source line.
type lineKey struct {
	file *token.File
	line int
}

// directives indexes the well-formed directives of one package by the lines they cover.
type directives struct {
	fset   *token.FileSet
	byLine map[lineKey][]directive
}

// collectDirectives indexes every directive in the package and reports malformed ones: a
// directive that does not say which rule it silences and why is itself a finding.
func collectDirectives(pass *analysis.Pass) *directives {
	ds := &directives{fset: pass.Fset, byLine: map[lineKey][]directive{}}
	for _, file := range pass.Files {
		for _, group := range file.Comments {
			for _, c := range group.List {
				d, ok, problem := parseDirective(c.Text)
				if !ok {
					continue
				}
				if problem != "" {
					pass.Report(analysis.Diagnostic{
						Pos:     c.Pos(),
						End:     c.End(),
						Message: "malformed workflowguard directive: " + problem + "; want " + directivePrefix + " ADK-W00N[,ADK-W00N] reason",
					})
					continue
				}
				tf := pass.Fset.File(c.Pos())
				if tf == nil {
					continue
				}
				// A trailing directive covers its own line; one on a line of its own covers the
				// line below it.
				line := tf.Line(c.Pos())
				switch standalone(pass, tf, c.Pos()) {
				case yes:
					line++
				case unknown:
					k := lineKey{tf, line + 1}
					ds.byLine[k] = append(ds.byLine[k], d)
				}
				k := lineKey{tf, line}
				ds.byLine[k] = append(ds.byLine[k], d)
			}
		}
	}
	return ds
}

type tristate int

const (
	no tristate = iota
	yes
	unknown
)

// standalone reports whether only blanks precede pos on its line.
func standalone(pass *analysis.Pass, tf *token.File, pos token.Pos) tristate {
	src, err := pass.ReadFile(tf.Name())
	if err != nil {
		return unknown
	}
	start, end := tf.Offset(tf.LineStart(tf.Line(pos))), tf.Offset(pos)
	if start < 0 || end > len(src) || start > end {
		return unknown
	}
	if strings.TrimSpace(string(src[start:end])) == "" {
		return yes
	}
	return no
}

// suppressed reports whether a finding at pos for any of rules is silenced by a directive on its
// line, on the line above, or in the doc comment of decl (the enclosing function declaration).
func (ds *directives) suppressed(pos token.Pos, decl *ast.FuncDecl, rules ...string) bool {
	covers := func(d directive) bool {
		for _, r := range rules {
			if slices.Contains(d.rules, r) {
				return true
			}
		}
		return false
	}
	if tf := ds.fset.File(pos); tf != nil {
		if slices.ContainsFunc(ds.byLine[lineKey{tf, tf.Line(pos)}], covers) {
			return true
		}
	}
	if decl != nil && decl.Doc != nil {
		for _, c := range decl.Doc.List {
			if d, ok, problem := parseDirective(c.Text); ok && problem == "" && covers(d) {
				return true
			}
		}
	}
	return false
}
