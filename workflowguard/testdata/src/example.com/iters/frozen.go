package iters

import (
	"maps"
	"slices"

	"go.temporal.io/sdk/workflow"
)

// Orders frozen where the workflow cannot see a range over the map: each finding is on the
// line that fills the slice, the one to change.

// FlowLiteral is a workflow declared as a package-level function literal.
var FlowLiteral = func(ctx workflow.Context, tools map[string]int) error { // want FlowLiteral:`reaches\(ADK-W006`
	keys := slices.Collect(maps.Keys(tools)) // want `\(slice filled in map order, ranged at line 16 where its order decides commands\)`
	for _, k := range keys {
		_ = workflow.ExecuteActivity(ctx, "a", k)
	}
	return nil
}

// toolNames returns the keys in map order; sortedNames sorts them first.
func toolNames(tools map[string]int) []string { return slices.Collect(maps.Keys(tools)) }

func sortedNames(tools map[string]int) []string {
	names := slices.Collect(maps.Keys(tools))
	slices.Sort(names)
	return names
}

// Planner keeps its queue in a field.
type Planner struct{ queue, done []string }

func (p *Planner) Plan(ctx workflow.Context, tools map[string]int) error { // want Plan:`reaches\(ADK-W006`
	names := toolNames(tools) // want `\(slice filled in map order, ranged at line 36 where its order decides commands\)`
	for _, k := range names {
		_ = workflow.ExecuteActivity(ctx, "a", k)
	}
	counted := slices.Collect(maps.Keys(tools)) // want `\(slice filled in map order, indexed in a loop at line 41 where its order decides commands\)`
	for i := 0; i < len(counted); i++ {
		_ = workflow.ExecuteActivity(ctx, "a", counted[i])
	}
	p.queue = slices.Collect(maps.Keys(tools)) // want `\(slice filled in map order, ranged at line 44 where its order decides commands\)`
	for _, k := range p.queue {
		_ = workflow.ExecuteActivity(ctx, "a", k)
	}
	var all []string
	all = append(all, slices.Collect(maps.Keys(tools))...) // want `\(slice filled in map order, ranged at line 49 where its order decides commands\)`
	for _, k := range all {
		_ = workflow.ExecuteActivity(ctx, "a", k)
	}

	// Safe: a helper that sorts, a field sorted in place, a counting loop that only logs.
	for _, k := range sortedNames(tools) {
		_ = workflow.ExecuteActivity(ctx, "a", k)
	}
	p.done = slices.Collect(maps.Keys(tools))
	slices.Sort(p.done)
	for _, k := range p.done {
		_ = workflow.ExecuteActivity(ctx, "a", k)
	}
	logged := slices.Collect(maps.Keys(tools))
	for i := 0; i < len(logged); i++ {
		workflow.GetLogger(ctx).Info("tool", "name", logged[i])
	}
	return nil
}
