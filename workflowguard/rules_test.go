package workflowguard

import (
	"os"
	"strings"
	"testing"
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
