// Package pipeline runs document pipelines with Go's native concurrency, some of it on the
// workflow path. Lines marked HAZARD must be reported, lines marked TRAP must not.
package pipeline

import (
	"context"
	"sync"
	"time"

	"go.temporal.io/sdk/workflow"
)

// fanOut processes chunks on goroutines.
func fanOut(chunks []string) []string {
	out := make([]string, len(chunks))
	var wg sync.WaitGroup
	for i, c := range chunks {
		wg.Add(1)
		go func() {
			defer wg.Done()
			out[i] = c + "!"
		}()
	}
	wg.Wait()
	return out
}

// collect drains a channel.
func collect(ch chan string) []string {
	var out []string
	for s := range ch {
		out = append(out, s)
	}
	return out
}

// Split is pure.
func Split(doc string) []string { return []string{doc} }

// IngestWorkflow ingests documents.
func IngestWorkflow(ctx workflow.Context, docs map[string]string) error {
	results := make(chan string, len(docs))
	done := make(chan struct{})
	go func() { // HAZARD
		close(done)
	}()
	go index(docs)     // HAZARD
	results <- "start" // HAZARD
	first := <-results // HAZARD
	select {           // HAZARD
	case <-done:
	case <-time.After(time.Second): // HAZARD
	}
	for r := range results { // HAZARD
		_ = r
		break
	}
	chunks := fanOut(Split(first)) // HAZARD
	_ = collect(results)           // HAZARD
	for id, doc := range docs {    // HAZARD
		_ = workflow.ExecuteActivity(ctx, "Embed", id, doc)
	}
	for id := range docs { // HAZARD
		_ = workflow.GetVersion(ctx, "ingest-"+id, workflow.DefaultVersion, 1)
	}
	for id := range docs { // HAZARD
		_ = workflow.UpsertMemo(ctx, map[string]any{"last": id})
	}
	wch := workflow.NewChannel(ctx)                                           // TRAP
	workflow.Go(ctx, func(ctx workflow.Context) { wch.Send(ctx, chunks[0]) }) // TRAP
	var got string
	wch.Receive(ctx, &got) // TRAP
	sel := workflow.NewSelector(ctx)
	sel.AddReceive(wch, func(c workflow.ReceiveChannel, more bool) { c.Receive(ctx, &got) }) // TRAP
	sel.Select(ctx)                                                                          // TRAP
	sizes := map[string]int{}
	for id, doc := range docs { // TRAP
		sizes[id] = len(doc)
	}
	_ = workflow.SideEffect(ctx, func(ctx workflow.Context) any { // TRAP
		c := make(chan int, 1)
		go func() { c <- 1 }()
		return <-c
	})
	_ = workflow.ExecuteActivity(ctx, EmbedAll, docs)
	return nil
}

func index(docs map[string]string) {}

// EmbedAll is an activity: goroutines and channels are fine here.
func EmbedAll(ctx context.Context, docs map[string]string) error {
	errs := make(chan error, len(docs))
	for id := range docs {
		go func() { errs <- embedOne(id) }()
	}
	for range docs {
		if err := <-errs; err != nil {
			return err
		}
	}
	return nil
}

func embedOne(id string) error { return nil }
