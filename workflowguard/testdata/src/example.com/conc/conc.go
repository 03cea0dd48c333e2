// Package conc uses Go's native concurrency and map order in workflow code.
package conc

import (
	"context"
	"encoding/json"
	"maps"
	"slices"

	"go.temporal.io/sdk/workflow"
)

func ConcWorkflow(ctx workflow.Context, items map[string]int) error { // want ConcWorkflow:`^reaches\(ADK-W006 conc\.ConcWorkflow → send on a Go channel; ADK-W006 conc\.ConcWorkflow → go statement\)$`
	ch := make(chan int, 1)
	go func() { ch <- 1 }() // want `^ADK-W006 native concurrency or map order on the workflow path \(go statement\); start it with workflow.Go` `\(send on a Go channel\); use workflow.NewChannel`
	<-ch                    // want `\(receive from a Go channel\)`
	for v := range ch {     // want `\(range over a Go channel\)`
		_ = v
	}
	select { // want `\(select statement\); use workflow.NewSelector`
	case v := <-ch:
		_ = v
	default:
	}
	for k, v := range items { // want `\(range over a map whose order decides commands\); iterate slices.Sorted\(maps.Keys\(m\)\)`
		_ = workflow.ExecuteActivity(ctx, "activity", k, v)
	}
	for k := range maps.Keys(items) { // want `\(range over a map whose order decides commands\)`
		_ = workflow.ExecuteChildWorkflow(ctx, "child", k)
	}
	for k := range items { // want `\(range over a map whose order decides commands\)`
		schedule(ctx, k)
	}
	fanOut() // want `ADK-W005 helper reaches native concurrency or map order \(ADK-W006\) on the workflow path \(conc.fanOut → go statement\)`

	// Safe shapes.
	for _, k := range slices.Sorted(maps.Keys(items)) {
		_ = workflow.ExecuteActivity(ctx, "activity", k)
	}
	for k, v := range items {
		workflow.GetLogger(ctx).Info("item", "key", k, "value", v)
	}
	total := 0
	for _, v := range items {
		total += v
	}
	_, _ = json.Marshal(items)
	wch := workflow.NewChannel(ctx)
	workflow.Go(ctx, func(ctx workflow.Context) { wch.Send(ctx, total) })
	wch.Receive(ctx, nil)
	workflow.NewSelector(ctx).AddReceive(wch, func(c workflow.ReceiveChannel, more bool) {}).Select(ctx)
	_ = workflow.SideEffect(ctx, func(ctx workflow.Context) any {
		c := make(chan int, 1)
		go func() { c <- 1 }()
		return <-c
	})
	_ = workflow.ExecuteLocalActivity(ctx, func(ctx context.Context) error {
		go func() {}()
		return nil
	})
	_ = workflow.ExecuteActivity(ctx, Activity)
	return nil
}

func schedule(ctx workflow.Context, k string) { _ = workflow.ExecuteActivity(ctx, "activity", k) }

func fanOut() { // want fanOut:`reaches\(ADK-W006 conc.fanOut → receive from a Go channel; ADK-W006 conc.fanOut → go statement\)`
	done := make(chan struct{})
	go func() { close(done) }()
	<-done
}

// Activity runs on a worker's goroutines, where native concurrency is fine.
func Activity(ctx context.Context) error { // want Activity:`reaches\(ADK-W006 conc.Activity → send on a Go channel; ADK-W006 conc.Activity → go statement\)`
	results := make(chan int)
	go func() { results <- 1 }()
	select {
	case <-results:
	case <-ctx.Done():
	}
	return nil
}
