package fix

import (
	"go.temporal.io/sdk/workflow"
)

// MapOrderWorkflow schedules in map order; the fix ranges over the sorted keys.
func MapOrderWorkflow(ctx workflow.Context, items map[string]int, byID map[int]string) error { // want MapOrderWorkflow:`reaches`
	for k, v := range items { // want `\(range over a map whose order decides commands\)`
		_ = workflow.ExecuteActivity(ctx, "a", k, v)
	}
	for id := range byID { // want `\(range over a map whose order decides commands\)`
		_ = workflow.ExecuteActivity(ctx, "a", id)
	}
	type key struct{ a, b int }
	pairs := map[key]int{}
	for k := range pairs { // want `\(range over a map whose order decides commands\)`
		_ = workflow.ExecuteActivity(ctx, "a", k.a)
	}
	return nil
}
