package policies_test

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/temporaladk/adk-go/policies"
	"github.com/temporaladk/adk-go/temporaladk"
)

func TestPriorityValidation(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("k", policies.MaxFairnessKeyBytes+1)
	tests := []struct {
		name     string
		priority temporal.Priority
		field    string // "" for valid
		reason   string
	}{
		{"none", temporal.Priority{}, "", ""},
		{"first", temporal.Priority{PriorityKey: 1}, "", ""},
		{"last", temporal.Priority{PriorityKey: policies.MaxPriorityKey}, "", ""},
		{"fairness key at the limit", temporal.Priority{FairnessKey: strings.Repeat("k", policies.MaxFairnessKeyBytes)}, "", ""},
		{"weights at the bounds", temporal.Priority{FairnessWeight: policies.MinFairnessWeight}, "", ""},
		{"heaviest", temporal.Priority{FairnessWeight: policies.MaxFairnessWeight}, "", ""},
		{"negative key", temporal.Priority{PriorityKey: -1}, "Priority.PriorityKey", "of class TOOL is -1: it must be from 1 (first) to 5 (last), or 0 for none"},
		{"key past the last", temporal.Priority{PriorityKey: 6}, "Priority.PriorityKey", "of class TOOL is 6"},
		{"fairness key too long", temporal.Priority{FairnessKey: long}, "Priority.FairnessKey", "of class TOOL is 65 bytes long: the server accepts at most 64"},
		{"negative weight", temporal.Priority{FairnessWeight: -1}, "Priority.FairnessWeight", "of class TOOL is -1"},
		{"weight below the clamp", temporal.Priority{FairnessWeight: 0.0001}, "Priority.FairnessWeight", "must be from 0.001 to 1000"},
		{"weight above the clamp", temporal.Priority{FairnessWeight: 1001}, "Priority.FairnessWeight", "must be from 0.001 to 1000"},
		{"NaN weight", temporal.Priority{FairnessWeight: float32(math.NaN())}, "Priority.FairnessWeight", "must be a finite number"},
		{"infinite weight", temporal.Priority{FairnessWeight: float32(math.Inf(1))}, "Priority.FairnessWeight", "must be a finite number"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p := mustDefault(t, temporaladk.Tool)
			p.Priority = tt.priority
			err := p.Validate()
			if tt.field == "" {
				assert.NoError(t, err)
				return
			}
			var ve *policies.ValidationError
			require.True(t, errors.As(err, &ve), "a *ValidationError, got %v", err)
			assert.Equal(t, tt.field, ve.Field)
			assert.Contains(t, ve.Reason, tt.reason)
			assert.Contains(t, err.Error(), "ActivityPolicy."+tt.field+" of class TOOL", "the error names the field and the class")
		})
	}
}

func TestPlanCallPriority(t *testing.T) {
	t.Parallel()
	model := mustDefault(t, temporaladk.Model)
	model.Priority = temporal.Priority{PriorityKey: 4, FairnessKey: "batch", FairnessWeight: 2}
	tool := mustDefault(t, temporaladk.Tool)
	tool.Priority = temporal.Priority{PriorityKey: 2}
	pols := map[temporaladk.Class]policies.ActivityPolicy{temporaladk.Model: model, temporaladk.Tool: tool}
	tests := []struct {
		name string
		call policies.Call
		want temporal.Priority
	}{
		{"class priority, no tenant", policies.Call{ActivityType: "Chat", Tag: temporaladk.Model, Policies: pols},
			temporal.Priority{PriorityKey: 4, FairnessKey: "batch", FairnessWeight: 2}},
		{"the tenant is the fairness key", policies.Call{ActivityType: "Chat", Tag: temporaladk.Model, Policies: pols, Tenant: "acme"},
			temporal.Priority{PriorityKey: 4, FairnessKey: "acme", FairnessWeight: 2}},
		{"another class, its own key", policies.Call{ActivityType: "Book", Tag: temporaladk.Tool, Policies: pols, Tenant: "acme"},
			temporal.Priority{PriorityKey: 2, FairnessKey: "acme"}},
		{"a default policy sets only the tenant", policies.Call{ActivityType: "Search", Tag: temporaladk.Retrieval, Policies: pols, Tenant: "acme"},
			temporal.Priority{FairnessKey: "acme"}},
		{"a declared timeout keeps the class priority",
			policies.Call{ActivityType: "Chat", Declaration: &temporaladk.Declaration{Class: temporaladk.Tool, Idempotency: temporaladk.ReadOnly, Timeout: 20 * s}, Policies: pols},
			temporal.Priority{PriorityKey: 2}},
		{"an untagged call gets none", policies.Call{ActivityType: "Other", Policies: pols, Tenant: "acme"}, temporal.Priority{}},
		{"a local activity gets none", policies.Call{ActivityType: "Chat", Tag: temporaladk.Model, Policies: pols, Tenant: "acme", Local: true}, temporal.Priority{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			pl, _, err := policies.PlanCall(tt.call)
			require.NoError(t, err)
			assert.Equal(t, tt.want, pl.Priority)
		})
	}
}

func TestPlanCallRefusesATenantTooLongForAFairnessKey(t *testing.T) {
	t.Parallel()
	_, _, err := policies.PlanCall(policies.Call{ActivityType: "Chat", Tag: temporaladk.Model, Tenant: strings.Repeat("t", 65)})
	require.Error(t, err)
	assert.Equal(t, "policies: activity Chat: tenant is 65 bytes long, and as a fairness key the server accepts at most 64", err.Error())
	_, planned, err := policies.PlanCall(policies.Call{ActivityType: "Chat", Tenant: strings.Repeat("t", 65)})
	assert.NoError(t, err, "a call the kit does not plan does not use its tenant")
	assert.False(t, planned)
}

func TestApplyPriority(t *testing.T) {
	t.Parallel()
	model := mustDefault(t, temporaladk.Model)
	model.Priority = temporal.Priority{PriorityKey: 4, FairnessWeight: 2}
	pols := map[temporaladk.Class]policies.ActivityPolicy{temporaladk.Model: model}
	planned, _, err := policies.PlanCall(policies.Call{ActivityType: "Chat", Tag: temporaladk.Model, Policies: pols, Tenant: "acme"})
	require.NoError(t, err)
	unplanned, _, err := policies.PlanCall(policies.Call{ActivityType: "Other", Policies: pols, Tenant: "acme"})
	require.NoError(t, err)
	tests := []struct {
		name    string
		plan    policies.Plan
		callers temporal.Priority
		want    temporal.Priority
	}{
		{"the plan's where the caller set none", planned, temporal.Priority{}, temporal.Priority{PriorityKey: 4, FairnessKey: "acme", FairnessWeight: 2}},
		{"the caller's key wins", planned, temporal.Priority{PriorityKey: 1}, temporal.Priority{PriorityKey: 1, FairnessKey: "acme", FairnessWeight: 2}},
		{"the caller's fairness key wins over the tenant", planned, temporal.Priority{FairnessKey: "vip"}, temporal.Priority{PriorityKey: 4, FairnessKey: "vip", FairnessWeight: 2}},
		{"the caller's weight wins", planned, temporal.Priority{FairnessWeight: 0.5}, temporal.Priority{PriorityKey: 4, FairnessKey: "acme", FairnessWeight: 0.5}},
		{"an unplanned call keeps none", unplanned, temporal.Priority{}, temporal.Priority{}},
		{"an unplanned call keeps its own, even out of range", unplanned, temporal.Priority{PriorityKey: 9}, temporal.Priority{PriorityKey: 9}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			opts := workflow.ActivityOptions{Priority: tt.callers}
			out, err := policies.Apply(opts, tt.plan)
			require.NoError(t, err)
			assert.Equal(t, tt.want, out.Priority)
			assert.Equal(t, tt.callers, opts.Priority, "the caller's options are not changed")
		})
	}
}

func TestApplyRefusesACallersPriorityOutOfRange(t *testing.T) {
	t.Parallel()
	pl, _, err := policies.PlanCall(policies.Call{ActivityType: "Chat", Tag: temporaladk.Model})
	require.NoError(t, err)
	tests := []struct {
		priority temporal.Priority
		want     string
	}{
		{temporal.Priority{PriorityKey: -2}, "policies: ActivityOptions.Priority.PriorityKey of a MODEL call is -2: it must be from 1 (first) to 5 (last), or 0 for none"},
		{temporal.Priority{FairnessKey: strings.Repeat("f", 70)}, "policies: ActivityOptions.Priority.FairnessKey of a MODEL call is 70 bytes long: the server accepts at most 64"},
		{temporal.Priority{FairnessWeight: -3}, "policies: ActivityOptions.Priority.FairnessWeight of a MODEL call is -3: it must be from 0.001 to 1000, or 0 for none"},
	}
	for _, tt := range tests {
		_, err := policies.Apply(workflow.ActivityOptions{Priority: tt.priority}, pl)
		require.Error(t, err)
		assert.Equal(t, tt.want, err.Error())
	}
}
