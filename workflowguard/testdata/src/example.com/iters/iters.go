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

func IterWorkflow(ctx workflow.Context, tools map[string]int, reg *registry.Registry) error { // want IterWorkflow:`reaches\(ADK-W006 iters.IterWorkflow → (range over a map|slice filled in map order)`
	keys := slices.Collect(maps.Keys(tools)) // want `^ADK-W006 native concurrency or map order on the workflow path \(slice filled in map order, ranged at line 27 where its order decides commands\); iterate slices.Sorted`
	for _, k := range keys {
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
	for k := range tools { // want `\(slice filled in map order, ranged at line 47 where`
		appended = append(appended, k)
	}
	for _, k := range appended {
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

// FreezeWorkflow fills slices in map order and ranges over them later: each finding is on the line
// that froze the order, where the fix goes, and the sorted forms beside them stay quiet.
func FreezeWorkflow(ctx workflow.Context, tools map[string]int) error { // want FreezeWorkflow:`reaches\(ADK-W006 iters.FreezeWorkflow → slice filled in map order`
	var collected []string
	for k := range maps.Keys(tools) { // want `\(slice filled in map order, ranged at line 102 where its order decides commands\)`
		collected = append(collected, k)
	}
	grown := slices.AppendSeq([]string{"first"}, maps.Keys(tools)) // want `\(slice filled in map order, ranged at line 105 where`
	for _, k := range collected {
		_ = workflow.ExecuteActivity(ctx, "a", k)
	}
	for _, k := range grown {
		_ = workflow.ExecuteActivity(ctx, "a", k)
	}

	// Safe: sorted where it is built, sorted before the range, or ranged without a command.
	ordered := slices.Sorted(maps.Keys(tools))
	for _, k := range ordered {
		_ = workflow.ExecuteActivity(ctx, "a", k)
	}
	var later []string
	for k := range maps.Keys(tools) {
		later = append(later, k)
	}
	slices.Sort(later)
	for _, k := range later {
		_ = workflow.ExecuteActivity(ctx, "a", k)
	}
	counted := slices.Collect(maps.Keys(tools))
	size := 0
	for _, k := range counted {
		size += len(k)
	}
	return workflow.ExecuteActivity(ctx, "a", size).Get(ctx, nil)
}
