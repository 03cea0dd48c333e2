package golangci_test

import (
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/golangci/plugin-module-register/register"
	"github.com/temporaladk/adk-go/workflowguard"
	"github.com/temporaladk/adk-go/workflowguard/golangci"
	"golang.org/x/tools/go/analysis/analysistest"
)

// TestRegistered checks that importing the package registers the plugin under its name, as the
// custom golangci-lint binary looks it up, and that settings reach it through golangci-lint's
// decoding.
func TestRegistered(t *testing.T) {
	newPlugin, err := register.GetPlugin(golangci.Name)
	if err != nil {
		t.Fatal(err)
	}
	p, err := newPlugin(map[string]any{"rules": []any{"ADK-W003"}, "workflow-packages": []any{"example.com/app/..."}})
	if err != nil {
		t.Fatal(err)
	}
	if p.GetLoadMode() != register.LoadModeTypesInfo {
		t.Errorf("load mode %q, want %q", p.GetLoadMode(), register.LoadModeTypesInfo)
	}
	as, err := p.BuildAnalyzers()
	if err != nil {
		t.Fatal(err)
	}
	if len(as) != 1 || as[0].Name != golangci.Name || as[0].Doc != workflowguard.Analyzer.Doc ||
		!slices.Equal(as[0].FactTypes, workflowguard.Analyzer.FactTypes) {
		t.Errorf("BuildAnalyzers = %v, want one analyzer named %q with workflowguard's doc and facts", as, golangci.Name)
	}
}

// TestSettingsFilter runs the plugin's analyzer over a workflow package, a helper package and a
// package outside the patterns: only the chosen rules are reported, only in the workflow package,
// with the helper's hazard still reaching the workflow through its fact.
func TestSettingsFilter(t *testing.T) {
	p, err := golangci.NewPlugin(golangci.Settings{
		Rules:            []string{"ADK-W002", "ADK-W005"},
		WorkflowPackages: []string{"example.com/flows/..."},
	})
	if err != nil {
		t.Fatal(err)
	}
	as, err := p.BuildAnalyzers()
	if err != nil {
		t.Fatal(err)
	}
	analysistest.Run(t, analysistest.TestData(), as[0], "example.com/helpers", "example.com/flows", "example.com/other")
}

// TestProvidersSetting extends ADK-W001 with a provider of the providers setting. It sets the
// analyzer's process-wide -providers flag, so no test of this package runs in parallel.
func TestProvidersSetting(t *testing.T) {
	p, err := golangci.NewPlugin(golangci.Settings{Providers: []string{"example.com/llm"}})
	if err != nil {
		t.Fatal(err)
	}
	if got := workflowguard.Analyzer.Flags.Lookup("providers").Value.String(); !strings.Contains(got, "example.com/llm") {
		t.Errorf("-providers = %q, want it to hold example.com/llm", got)
	}
	as, err := p.BuildAnalyzers()
	if err != nil {
		t.Fatal(err)
	}
	analysistest.Run(t, analysistest.TestData(), as[0], "example.com/llmflows")
}

// TestLikelySetting turns the likely findings off: the package's one finding is likely, so the
// run reports nothing (analysistest fails on a diagnostic or fact that has no want). It sets the
// analyzer's process-wide -likely flag and sets it back.
func TestLikelySetting(t *testing.T) {
	off := false
	p, err := golangci.NewPlugin(golangci.Settings{Likely: &off})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := workflowguard.Analyzer.Flags.Set("likely", "true"); err != nil {
			t.Fatal(err)
		}
	})
	if got := workflowguard.Analyzer.Flags.Lookup("likely").Value.String(); got != "false" {
		t.Fatalf("-likely = %q after the setting false", got)
	}
	as, err := p.BuildAnalyzers()
	if err != nil {
		t.Fatal(err)
	}
	analysistest.Run(t, analysistest.TestData(), as[0], "example.com/likely")
}

// TestBadSettings checks that every malformed setting is a clear error naming what is wrong.
func TestBadSettings(t *testing.T) {
	tests := []struct {
		name string
		conf any
		want string
	}{
		{"unknown key", map[string]any{"rule": []any{"ADK-W002"}}, `unknown field "rule"`},
		{"rules not a list", map[string]any{"rules": "ADK-W002"}, "workflowguard settings"},
		{"unknown rule", map[string]any{"rules": []any{"ADK-W008"}}, `unknown rule "ADK-W008"`},
		{"rule with a space", map[string]any{"rules": []any{" ADK-W005"}}, `unknown rule " ADK-W005"`},
		{"lower-case rule", map[string]any{"rules": []any{"adk-w002"}}, `unknown rule "adk-w002"`},
		{"empty pattern", map[string]any{"workflow-packages": []any{""}}, `workflow-packages: pattern ""`},
		{"file path pattern", map[string]any{"workflow-packages": []any{"./flows/..."}}, `pattern "./flows/..." is a file path`},
		{"empty provider", map[string]any{"providers": []any{" "}}, `providers: " " is not an import path prefix`},
		{"provider list in one string", map[string]any{"providers": []any{"a.com/x,b.com/y"}}, `providers: "a.com/x,b.com/y"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := golangci.New(tt.conf)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("New(%v) error = %v, want one containing %q", tt.conf, err, tt.want)
			}
		})
	}
}

// TestNoSettings checks that a configuration without settings, or with empty ones, gives the
// plugin that reports every rule in every package.
func TestNoSettings(t *testing.T) {
	for _, conf := range []any{nil, map[string]any{}, map[string]any{"rules": []any{}, "workflow-packages": []any{}}} {
		p, err := golangci.New(conf)
		if err != nil {
			t.Fatalf("New(%v): %v", conf, err)
		}
		as, err := p.BuildAnalyzers()
		if err != nil {
			t.Fatal(err)
		}
		analysistest.Run(t, analysistest.TestData(), as[0], "example.com/helpers", "example.com/all")
	}
}

// TestPatterns checks the workflow-packages syntax: the go command's, "..." matching any string
// and a trailing "/..." matching the path before it, an external test package belonging to the
// package it tests.
func TestPatterns(t *testing.T) {
	tests := []struct {
		pattern string
		path    string
		want    bool
	}{
		{"example.com/app/flows", "example.com/app/flows", true},
		{"example.com/app/flows", "example.com/app/flows/sub", false},
		{"example.com/app/flows", "example.com/app/flowsx", false},
		{"example.com/app/flows/...", "example.com/app/flows", true},
		{"example.com/app/flows/...", "example.com/app/flows/a/b", true},
		{"example.com/app/flows/...", "example.com/app/flowsx", false},
		{"example.com/app/...", "example.com/app/flows_test", true},
		{"example.com/app/flows", "example.com/app/flows_test", true},
		{"example.com/.../flows", "example.com/x/y/flows", true},
		{"example.com/.../flows", "example.com/x/y/flows/z", false},
		{"...", "anything/at/all", true},
		{"example.com/a.b", "example.com/aXb", false},
	}
	for _, tt := range tests {
		got, err := golangci.MatchesForTest(tt.pattern, tt.path)
		if err != nil {
			t.Fatalf("pattern %q: %v", tt.pattern, err)
		}
		if got != tt.want {
			t.Errorf("pattern %q on %q = %v, want %v", tt.pattern, tt.path, got, tt.want)
		}
	}
}

// TestRulesAreTheAnalyzers checks that the rules setting accepts exactly the rules of the
// analyzer's documentation, so that a new rule cannot be left out of the plugin.
func TestRulesAreTheAnalyzers(t *testing.T) {
	section, _, ok := strings.Cut(workflowguard.Analyzer.Doc, "\n# Scope")
	if !ok {
		t.Fatal("the analyzer's documentation has no Scope section after its rules")
	}
	var documented []string
	for _, m := range regexp.MustCompile(`(?m)^\s+(ADK-W\d{3})  `).FindAllStringSubmatch(section, -1) {
		documented = append(documented, m[1])
	}
	if len(documented) == 0 || !slices.Equal(documented, golangci.Rules) {
		t.Errorf("plugin rules %v, documented rules %v", golangci.Rules, documented)
	}
}
