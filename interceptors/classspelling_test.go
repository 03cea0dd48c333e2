package interceptors_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/workflow"

	"github.com/temporaladk/adk-go/interceptors"
	"github.com/temporaladk/adk-go/policies"
	"github.com/temporaladk/adk-go/temporaladk"
)

// classSpellings are names of classes in several letter cases and names of
// none.
var classSpellings = []string{
	"MODEL", "model", "Model", "mOdEl", "tool", "Tool", "retrieval", "RETRIEVAL", "Memory", "memory",
	"REASONING", "llm", " model", "model ", "model\x00", "MODELS", "TOOL_",
}

// reportClass runs a workflow that calls Report, on ctx tagged with tag
// when tag is not empty, on a worker with the kit built from opts, and
// returns the class the activity was served with and the workflow's error.
func reportClass(t *testing.T, opts interceptors.Options, tag temporaladk.Class) (CallReport, error) {
	t.Helper()
	env := newEnv(t, opts, &Activities{log: newAttemptLog()})
	env.ExecuteWorkflow(func(ctx workflow.Context) (CallReport, error) {
		if tag != "" {
			ctx = temporaladk.WithClass(ctx, tag)
		}
		var r CallReport
		err := workflow.ExecuteActivity(ctx, Report, "x").Get(ctx, &r)
		return r, err
	})
	if err := env.GetWorkflowError(); err != nil {
		return CallReport{}, err
	}
	var r CallReport
	require.NoError(t, env.GetWorkflowResult(&r))
	return r, nil
}

// TestUnitEveryClassEntryReadsTheSpellingsOfUnmarshalText holds that every
// place the kit takes a class accepts exactly the names
// temporaladk.Class.UnmarshalText accepts, and reads each as the class
// UnmarshalText gives: a tag, a declaration, the default class and a policy's
// key on the interceptor, and every class policies takes.
func TestUnitEveryClassEntryReadsTheSpellingsOfUnmarshalText(t *testing.T) {
	for _, name := range classSpellings {
		var want temporaladk.Class
		accepted := want.UnmarshalText([]byte(name)) == nil
		c := temporaladk.Class(name)
		entries := map[string]func(t *testing.T) (temporaladk.Class, error){
			"WithClass": func(t *testing.T) (temporaladk.Class, error) {
				r, err := reportClass(t, interceptors.Options{}, c)
				return r.Class, err
			},
			"Declaration.Validate": func(*testing.T) (temporaladk.Class, error) {
				d := temporaladk.Declaration{Class: c}
				return want, d.Validate("Report")
			},
			"Declaration.IsTool": func(*testing.T) (temporaladk.Class, error) {
				if (temporaladk.Declaration{Class: c}).IsTool() {
					return temporaladk.Tool, nil
				}
				return "", assert.AnError
			},
			"Options.Activities": func(t *testing.T) (temporaladk.Class, error) {
				opts := interceptors.Options{Activities: map[string]temporaladk.Declaration{"Report": {Class: c}}}
				if _, err := interceptors.NewPlugin(opts); err != nil {
					return "", err
				}
				r, err := reportClass(t, opts, "")
				return r.Class, err
			},
			"Options.DefaultClass": func(t *testing.T) (temporaladk.Class, error) {
				opts := interceptors.Options{DefaultClass: c}
				if _, err := interceptors.NewPlugin(opts); err != nil {
					return "", err
				}
				r, err := reportClass(t, opts, "")
				return r.Class, err
			},
			"Options.Policies key": func(t *testing.T) (temporaladk.Class, error) {
				if !accepted {
					_, err := interceptors.NewPlugin(interceptors.Options{Policies: map[temporaladk.Class]policies.ActivityPolicy{c: {}}})
					return "", err
				}
				p := mustPolicy(t, want)
				p.Class, p.StartToClose = "", 77*time.Second
				opts := interceptors.Options{Policies: map[temporaladk.Class]policies.ActivityPolicy{c: p}}
				if _, err := interceptors.NewPlugin(opts); err != nil {
					return "", err
				}
				r, err := reportClass(t, opts, want)
				if err == nil && r.StartToClose != 77*time.Second {
					t.Errorf("the policy under key %q was not applied: StartToClose %v", name, r.StartToClose)
				}
				return r.Class, err
			},
			"ActivityPolicy.Validate": func(t *testing.T) (temporaladk.Class, error) {
				base := temporaladk.Memory
				if accepted {
					base = want
				}
				p := mustPolicy(t, base)
				p.Class = c
				return want, p.Validate()
			},
			"policies.Default": func(*testing.T) (temporaladk.Class, error) {
				p, err := policies.Default(c)
				return p.Class, err
			},
			"policies.ActivityPolicyFor": func(*testing.T) (temporaladk.Class, error) {
				p, err := policies.ActivityPolicyFor(c, 20*time.Second, nil)
				return p.Class, err
			},
			"policies.PlanCall Tag": func(*testing.T) (temporaladk.Class, error) {
				pl, _, err := policies.PlanCall(policies.Call{ActivityType: "Report", Tag: c})
				return pl.Class, err
			},
			"policies.PlanCall Declaration": func(*testing.T) (temporaladk.Class, error) {
				pl, _, err := policies.PlanCall(policies.Call{ActivityType: "Report", Declaration: &temporaladk.Declaration{Class: c}})
				return pl.Class, err
			},
			"policies.PlanCall DefaultClass": func(*testing.T) (temporaladk.Class, error) {
				pl, _, err := policies.PlanCall(policies.Call{ActivityType: "Report", DefaultClass: c})
				return pl.Class, err
			},
		}
		for entry, read := range entries {
			t.Run(entry+"/"+name, func(t *testing.T) {
				got, err := read(t)
				if entry == "Declaration.IsTool" {
					assert.Equal(t, want == temporaladk.Tool, err == nil, "IsTool of a declaration of class %q", name)
					return
				}
				if !accepted {
					assert.Error(t, err, "UnmarshalText refuses %q", name)
					return
				}
				require.NoError(t, err, "UnmarshalText reads %q as %s", name, want)
				assert.Equal(t, want, got)
			})
		}
	}
}
