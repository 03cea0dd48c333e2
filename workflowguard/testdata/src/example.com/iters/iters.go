// Package iters takes map order through Go 1.23 iterators: collected keys, a user's iter.Seq,
// a slice appended to in map order, and the first key of a map.
package iters

import (
	"iter"
	"maps"
	"slices"
	"sort"

	"example.com/registry"
	"go.temporal.io/sdk/workflow"
)

func keysInMapOrder(m map[string]int) iter.Seq[string] { // want keysInMapOrder:`^yields in map order$`
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

func IterWorkflow(ctx workflow.Context, tools map[string]int, reg *registry.Registry) error { // want IterWorkflow:`reaches\(ADK-W006 iters.IterWorkflow → range over a map whose order decides commands\)`
	keys := slices.Collect(maps.Keys(tools))
	for _, k := range keys { // want `^ADK-W006 native concurrency or map order on the workflow path \(range over a map whose order decides commands\); iterate slices.Sorted`
		_ = workflow.ExecuteActivity(ctx, "a", k)
	}
	for _, k := range slices.Collect(maps.Keys(tools)) { // want `\(range over a map whose order decides commands\)`
		_ = workflow.ExecuteActivity(ctx, "a", k)
	}
	for k := range keysInMapOrder(tools) { // want `\(range over a map whose order decides commands\)`
		_ = workflow.ExecuteActivity(ctx, "a", k)
	}
	for name := range reg.All() { // want `\(range over a map whose order decides commands\)`
		_ = workflow.ExecuteActivity(ctx, "a", name)
	}
	names := reg.Names()
	for name := range names { // want `\(range over a map whose order decides commands\)`
		_ = workflow.ExecuteActivity(ctx, "a", name)
	}
	var appended []string
	for k := range tools {
		appended = append(appended, k)
	}
	for _, k := range appended { // want `\(range over a map whose order decides commands\)`
		_ = workflow.ExecuteActivity(ctx, "a", k)
	}
	var first string
	for k := range tools { // want `\(first entry of a map, an arbitrary one\); iterate slices.Sorted`
		first = k
		break
	}
	_ = workflow.ExecuteActivity(ctx, "a", first)

	// Safe: sorted before use, a sorted iterator, a search, the first element of a slice.
	sorted := slices.Collect(maps.Keys(tools))
	slices.Sort(sorted)
	for _, k := range sorted {
		_ = workflow.ExecuteActivity(ctx, "a", k)
	}
	var sortedToo []string
	for k := range tools {
		sortedToo = append(sortedToo, k)
	}
	sort.Strings(sortedToo)
	for _, k := range sortedToo {
		_ = workflow.ExecuteActivity(ctx, "a", k)
	}
	for name := range reg.Sorted() {
		_ = workflow.ExecuteActivity(ctx, "a", name)
	}
	found := false
	for k := range tools {
		if k == "search" {
			found = true
			break
		}
	}
	list := []string{"a", "b"}
	for _, s := range list {
		first = s
		break
	}
	total := 0
	for _, k := range slices.Collect(maps.Keys(tools)) {
		total += len(k)
	}
	_ = workflow.ExecuteActivity(ctx, "a", first, found, total)
	return nil
}
