// Package guard is the replay guard's bad example: a workflow that draws its
// retry jitter with math/rand, on the workflow path. It runs, and its first
// run even looks right; but a replay draws other waits than the history
// holds, so two replays of one history are two different runs.
//
// The workflowguard analyzer reports it:
//
//	go run ./workflowguard/cmd/workflowguard ./samples/guard/...
//
// FixedWorkflow is the same call with temporaladk: the jitter is drawn inside
// the activity, by the kit's interceptor, and handed to the server.
//
// This package is kept out of the CI guard run on purpose (see .ci/run).
package guard

import (
	"context"
	"math/rand/v2"
	"time"

	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/temporaladk/adk-go/temporaladk"
)

// FetchRequest asks the flaky lookup for a document.
type FetchRequest struct {
	Query string `json:"query"`
	// Failures is how many first attempts fail with a 503.
	Failures int `json:"failures"`
	// Attempt is the attempt number when the workflow retries by hand;
	// 0 when Temporal (or the kit) drives the retries.
	Attempt int `json:"attempt,omitempty"`
}

// Fetch is a lookup whose first attempts fail with a retryable 503.
func Fetch(ctx context.Context, req FetchRequest) (string, error) {
	attempt := req.Attempt
	if attempt == 0 {
		attempt = attemptOf(ctx)
	}
	if attempt <= req.Failures {
		return "", &temporaladk.ProviderError{Provider: "search", StatusCode: 503, Message: "busy"}
	}
	return "document for " + req.Query, nil
}

// attemptOf is the attempt number, whoever drives the retries: the kit
// (under a budget) or the server.
func attemptOf(ctx context.Context) int {
	if call, ok := temporaladk.ActivityCallFrom(ctx); ok && call.Attempt > 0 {
		return call.Attempt
	}
	return int(activity.GetInfo(ctx).Attempt)
}

// JitterWorkflow retries Fetch by hand with full jitter drawn from math/rand,
// on the workflow path. Do not copy it: the guard reports both draws.
func JitterWorkflow(ctx workflow.Context, req FetchRequest) (string, error) {
	ctx = workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		StartToCloseTimeout: 10 * time.Second,
		RetryPolicy:         &temporal.RetryPolicy{MaximumAttempts: 1},
	})
	var doc string
	var err error
	for attempt := 1; attempt <= 3; attempt++ {
		req.Attempt = attempt
		if err = workflow.ExecuteActivity(ctx, Fetch, req).Get(ctx, &doc); err == nil {
			return doc, nil
		}
		window := backoffWindow(attempt)
		wait := time.Duration(rand.Float64() * float64(window)) // ADK-W002: a replay draws another wait
		if attempt == 2 {
			wait = jitter(window) // ADK-W005: the same draw, one helper away
		}
		if err := workflow.Sleep(ctx, wait); err != nil {
			return "", err
		}
	}
	return "", err
}

func backoffWindow(attempt int) time.Duration {
	return time.Duration(attempt) * 200 * time.Millisecond
}

// jitter draws a wait in [0, window): fine in an activity, a replay hazard in
// a workflow.
func jitter(window time.Duration) time.Duration {
	return time.Duration(rand.Int64N(int64(window)))
}

// FixedWorkflow is the same lookup as RETRIEVAL with the kit registered: the
// retries and their jitter belong to the kit, which draws the wait inside the
// activity and hands it to the server as NextRetryDelay. The workflow draws
// nothing.
func FixedWorkflow(ctx workflow.Context, req FetchRequest) (string, error) {
	var doc string
	err := workflow.ExecuteActivity(temporaladk.WithClass(ctx, temporaladk.Retrieval), Fetch, req).Get(ctx, &doc)
	return doc, err
}
