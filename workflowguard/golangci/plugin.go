// Package golangci registers workflowguard as a golangci-lint v2 module plugin named
// "workflowguard". A custom golangci-lint binary built with `golangci-lint custom` from a
// .custom-gcl.yml that names this package runs the guard beside the other linters; the
// settings of linters.settings.custom.workflowguard in .golangci.yml choose the rules to
// report and the packages to treat as workflow code:
//
//	linters:
//	  default: none
//	  enable:
//	    - workflowguard
//	  settings:
//	    custom:
//	      workflowguard:
//	        type: module
//	        settings:
//	          rules: [ADK-W002, ADK-W003, ADK-W005]        # empty or absent: every rule
//	          workflow-packages: [example.com/app/flows/...] # empty or absent: every package
//	          providers: [example.com/llm]                   # the analyzer's -providers flag
//	          likely: false                                  # the analyzer's -likely flag (default true)
//
// The examples .custom-gcl.yml and .golangci.yml in this directory are complete; the README's
// section "The guard in golangci-lint" says how to add them to an existing setup.
//
// The plugin runs workflowguard's analyzer unchanged over every package golangci-lint loads, so
// helpers in any package still carry their facts to the workflows that call them; the settings
// only filter what is reported. A rule is matched by the finding's code (an ADK-W005 finding is
// an ADK-W005 finding, whichever rule its helper reaches). A malformed //workflowguard:ignore
// directive has no rule code and is reported in every workflow package whatever rules says.
package golangci

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/golangci/plugin-module-register/register"
	"github.com/temporaladk/adk-go/workflowguard"
	"golang.org/x/tools/go/analysis"
)

// Name is the plugin's name: the key under linters.settings.custom in .golangci.yml and the
// linter name golangci-lint prints after each finding.
const Name = "workflowguard"

func init() {
	register.Plugin(Name, New)
}

// Settings are the plugin's settings, decoded from linters.settings.custom.workflowguard.settings.
// An unknown key is an error.
type Settings struct {
	// Rules are the rule codes to report (ADK-W001..ADK-W007). Empty reports every rule.
	Rules []string `json:"rules"`
	// WorkflowPackages are the import path patterns of the packages whose findings are reported,
	// in the go command's syntax: a path, or a pattern with "..." matching any string (a trailing
	// "/..." also matches the path before it). A package's tests belong to it. Empty reports in
	// every package.
	WorkflowPackages []string `json:"workflow-packages"`
	// Providers are more import path prefixes of model provider SDKs for ADK-W001, added to the
	// analyzer's -providers flag. The flag is one list per process, as under go vet.
	Providers []string `json:"providers"`
	// Likely, set to false, turns off the findings that are likely rather than proved (the
	// analyzer's -likely flag). If not set, they are reported.
	Likely *bool `json:"likely"`
}

// Plugin is the golangci-lint module plugin built from one set of settings.
type Plugin struct {
	rules    map[string]bool // nil: every rule
	packages []*regexp.Regexp
}

// New decodes and validates the settings golangci-lint passes (nil when the configuration has no
// settings key) and returns the plugin. A setting that names an unknown rule, holds an empty or
// malformed pattern or an empty provider is an error naming it.
func New(conf any) (register.LinterPlugin, error) {
	s, err := register.DecodeSettings[Settings](conf)
	if err != nil {
		return nil, fmt.Errorf("workflowguard settings: %w", err)
	}
	return NewPlugin(s)
}

// NewPlugin validates s and returns the plugin it describes; New is NewPlugin on the decoded
// settings.
func NewPlugin(s Settings) (*Plugin, error) {
	p := &Plugin{}
	if len(s.Rules) > 0 {
		p.rules = map[string]bool{}
		for _, r := range s.Rules {
			if !knownRule(r) {
				return nil, fmt.Errorf("workflowguard settings: rules: unknown rule %q (known: %s)", r, strings.Join(Rules, ", "))
			}
			p.rules[r] = true
		}
	}
	for _, pat := range s.WorkflowPackages {
		re, err := compilePattern(pat)
		if err != nil {
			return nil, fmt.Errorf("workflowguard settings: workflow-packages: %w", err)
		}
		p.packages = append(p.packages, re)
	}
	for _, prov := range s.Providers {
		if strings.TrimSpace(prov) == "" || strings.Contains(prov, ",") {
			return nil, fmt.Errorf("workflowguard settings: providers: %q is not an import path prefix", prov)
		}
	}
	if len(s.Providers) > 0 {
		if err := workflowguard.Analyzer.Flags.Set("providers", strings.Join(s.Providers, ",")); err != nil {
			return nil, fmt.Errorf("workflowguard settings: providers: %w", err)
		}
	}
	if s.Likely != nil {
		if err := workflowguard.Analyzer.Flags.Set("likely", fmt.Sprint(*s.Likely)); err != nil {
			return nil, fmt.Errorf("workflowguard settings: likely: %w", err)
		}
	}
	return p, nil
}

// Rules are the rule codes the rules setting accepts: every rule of workflowguard.
var Rules = []string{
	workflowguard.RuleModelCall,
	workflowguard.RuleRandomness,
	workflowguard.RuleWallClock,
	workflowguard.RuleIO,
	workflowguard.RuleReach,
	workflowguard.RuleConcurrency,
	workflowguard.RuleGlobalState,
}

func knownRule(code string) bool {
	for _, r := range Rules {
		if r == code {
			return true
		}
	}
	return false
}

// compilePattern turns a go command package pattern into a regular expression over import paths.
func compilePattern(pat string) (*regexp.Regexp, error) {
	if strings.TrimSpace(pat) != pat || pat == "" {
		return nil, fmt.Errorf("pattern %q is empty or has surrounding spaces", pat)
	}
	if pat == "." || pat == ".." || strings.HasPrefix(pat, "./") || strings.HasPrefix(pat, "../") ||
		strings.HasPrefix(pat, "/") || strings.Contains(pat, "\\") {
		return nil, fmt.Errorf("pattern %q is a file path; want an import path pattern such as example.com/app/flows/...", pat)
	}
	expr := regexp.QuoteMeta(pat)
	if rest, ok := strings.CutSuffix(expr, `/\.\.\.`); ok {
		expr = rest + `(/\.\.\.)?` // foo/... matches foo too
	}
	expr = strings.ReplaceAll(expr, `\.\.\.`, `.*`)
	return regexp.Compile("^" + expr + "$")
}

// BuildAnalyzers returns the analyzer golangci-lint runs: workflowguard's, with the same name,
// documentation and facts, reporting only the chosen rules in the chosen packages.
func (p *Plugin) BuildAnalyzers() ([]*analysis.Analyzer, error) {
	inner := workflowguard.Analyzer
	a := *inner
	a.Run = func(pass *analysis.Pass) (any, error) {
		filtered := *pass
		report := pass.Report
		inScope := p.workflowPackage(pass.Pkg.Path())
		filtered.Report = func(d analysis.Diagnostic) {
			if inScope && p.reports(d.Category) {
				report(d)
			}
		}
		return inner.Run(&filtered)
	}
	return []*analysis.Analyzer{&a}, nil
}

// GetLoadMode tells golangci-lint that the analyzer needs type information.
func (p *Plugin) GetLoadMode() string { return register.LoadModeTypesInfo }

// reports says whether a finding of the given category (a rule code, or "" for a malformed
// directive) is reported.
func (p *Plugin) reports(category string) bool {
	return p.rules == nil || category == "" || p.rules[category]
}

// workflowPackage says whether the package at path (an external test package counts as the
// package it tests) is workflow code whose findings are reported.
func (p *Plugin) workflowPackage(path string) bool {
	if len(p.packages) == 0 {
		return true
	}
	path = strings.TrimSuffix(path, "_test")
	for _, re := range p.packages {
		if re.MatchString(path) {
			return true
		}
	}
	return false
}
