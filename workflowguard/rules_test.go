package workflowguard

import (
	"os"
	"strings"
	"testing"

	"golang.org/x/tools/go/analysis/analysistest"
)

// TestRuleTableInDocs checks that doc.go and README.md carry the rule table as rules.go has it,
// so that a new or changed rule is one row there and the documentation cannot drift.
func TestRuleTableInDocs(t *testing.T) {
	t.Parallel()
	var doc strings.Builder
	for line := range strings.SplitSeq(strings.TrimSuffix(docRules(), "\n"), "\n") {
		doc.WriteString("//" + line + "\n")
	}
	docGo, err := os.ReadFile("doc.go")
	if err != nil {
		t.Fatal(err)
	}
	_, section, _ := strings.Cut(string(docGo), "// # Rules\n")
	if !strings.Contains(section, "//\n"+doc.String()+"//\n") {
		t.Errorf("doc.go's # Rules section is not the rule table; want it to read:\n%s", doc.String())
	}
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(readme), readmeRules()) {
		t.Errorf("README.md's guard section lacks the rule table; want:\n%s", readmeRules())
	}
}

// TestRuleTable checks each row: a known code accepted by directives, and every field filled.
func TestRuleTable(t *testing.T) {
	t.Parallel()
	seen := map[string]bool{}
	for _, r := range rules {
		if seen[r.Code] {
			t.Errorf("%s appears twice", r.Code)
		}
		seen[r.Code] = true
		if r.Summary == "" || r.Noun == "" || r.Remedy == "" || len(r.Doc) == 0 {
			t.Errorf("%s has an empty field: %+v", r.Code, r)
		}
		if _, ok, problem := parseDirective(directivePrefix + " " + r.Code + " a reason"); !ok || problem != "" {
			t.Errorf("directive naming %s is rejected: %s", r.Code, problem)
		}
	}
	for _, code := range []string{RuleModelCall, RuleRandomness, RuleWallClock, RuleIO, RuleReach, RuleConcurrency} {
		if !seen[code] {
			t.Errorf("%s has no row", code)
		}
	}
}

// TestRemediesInTable checks that each form of remedy has exactly one entry, in one row, with
// text, and that every row but ADK-W005 (which prints the remedy of the rule it reaches) has one.
func TestRemediesInTable(t *testing.T) {
	t.Parallel()
	owner := map[remedyID]string{}
	for _, r := range rules {
		if r.Code != RuleReach && len(r.Remedies) == 0 {
			t.Errorf("%s has no remedy to print", r.Code)
		}
		for id, text := range r.Remedies {
			if prev, ok := owner[id]; ok {
				t.Errorf("remedy %d is in %s and %s", id, prev, r.Code)
			}
			owner[id] = r.Code
			if text == "" || remedyText(id) != text {
				t.Errorf("%s: remedy %d prints %q, want %q", r.Code, id, remedyText(id), text)
			}
		}
	}
	for id := noRemedy + 1; id < numRemedies; id++ {
		if _, ok := owner[id]; !ok {
			t.Errorf("remedy %d is in no row", id)
		}
	}
	if _, ok := owner[noRemedy]; ok {
		t.Error("noRemedy has a text")
	}
}

// TestFindingsPrintTheTable runs the analyzer over the testdata workflows and checks that every
// finding is worded from the rule table: the code and Summary (for ADK-W005, the Noun of the
// rule reached), then the callee or chain, then an entry of the Remedies of the rule found or
// reached; and that the testdata print every entry at least once.
func TestFindingsPrintTheTable(t *testing.T) {
	type printed struct {
		rule string
		text string
	}
	seen := map[printed]bool{}
	results := analysistest.Run(t, analysistest.TestData(), Analyzer,
		"example.com/a", "example.com/conc", "example.com/osfs", "example.com/funcvars", "example.com/iface",
		"example.com/globals", "example.com/queries", "example.com/deadlines", "example.com/backoffs", "example.com/fanout",
		"example.com/iters")
	for _, res := range results {
		for _, d := range res.Diagnostics {
			if d.Category == "" {
				continue // a malformed directive
			}
			row, ok := ruleFor(d.Category)
			if !ok {
				t.Errorf("%s: unknown category %q", res.Pass.Fset.Position(d.Pos), d.Category)
				continue
			}
			want := row.Code + " " + row.Summary + " ("
			if row.Code == RuleReach {
				reached, _, _ := strings.Cut(strings.TrimPrefix(d.Message, RuleReach+" helper reaches "), ") on the workflow path (")
				noun, code, _ := strings.Cut(reached, " (ADK-")
				if row, ok = ruleFor("ADK-" + code); !ok || row.Noun != noun {
					t.Errorf("%s: %q names no rule by its noun", res.Pass.Fset.Position(d.Pos), d.Message)
					continue
				}
				want = RuleReach + " helper reaches " + row.Noun + " (" + row.Code + ") on the workflow path ("
			}
			if !strings.HasPrefix(d.Message, want) {
				t.Errorf("%s: %q does not start with %q", res.Pass.Fset.Position(d.Pos), d.Message, want)
			}
			found := false
			for _, text := range row.Remedies {
				if strings.HasSuffix(d.Message, "); "+text) {
					found = true
					seen[printed{row.Code, text}] = true
				}
			}
			if !found {
				t.Errorf("%s: %q ends with no remedy of %s", res.Pass.Fset.Position(d.Pos), d.Message, row.Code)
			}
		}
	}
	for _, r := range rules {
		for id, text := range r.Remedies {
			if !seen[printed{r.Code, text}] {
				t.Errorf("no finding of the testdata prints %s's remedy %d", r.Code, id)
			}
		}
	}
}

// TestPackageDoc checks the extractor behind Analyzer.Doc: the package comment's text, and a
// panic, not empty documentation, for a source without one or that does not parse.
func TestPackageDoc(t *testing.T) {
	t.Parallel()
	if got, want := packageDoc("// Package p does one thing.\n//\n//\tp.Do()\npackage p\n"), "Package p does one thing.\n\n\tp.Do()\n"; got != want {
		t.Errorf("packageDoc = %q, want %q", got, want)
	}
	for name, src := range map[string]string{"no comment": "package p\n", "no package clause": "// Package p.\n"} {
		t.Run(name, func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Errorf("packageDoc(%q) does not panic", src)
				}
			}()
			packageDoc(src)
		})
	}
}
