// Package fanout is the retry-storm sample: ten branches of a MODEL call
// against a struggling provider, once with every branch retrying on its own
// and once with the branches sharing one pool of retries.
//
//	ctx, err := temporaladk.WithBudgets(temporaladk.WithClass(ctx, temporaladk.Model),
//		temporaladk.Budgets{Name: "fan-out", Retries: 5})
//	for i := range branches { futures[i] = workflow.ExecuteActivity(ctx, Ask, ...) }
//
// Ten branches each retrying three times is thirty calls at a provider that is
// already struggling; with the pool the retries are capped in total, and a
// first attempt is never refused.
package fanout

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/workflow"

	"github.com/temporaladk/adk-go/interceptors"
	"github.com/temporaladk/adk-go/policies"
	"github.com/temporaladk/adk-go/samples/internal/chat"
	"github.com/temporaladk/adk-go/temporaladk"
)

// TaskQueue is the task queue the sample's worker polls.
const TaskQueue = "temporaladk-fanout-sample"

// Input is one fan-out.
type Input struct {
	// Branches is how many MODEL calls run at once.
	Branches int `json:"branches"`
	// UsePool shares one pool of Pool retries (temporaladk.Budgets.Retries)
	// among the branches; without it each branch retries on its own, on the
	// server. Pool must then be at least 1.
	UsePool bool `json:"use_pool"`
	Pool    int  `json:"pool"`
	// Fault is what the stand-in does to each branch's call (see package
	// standin): "503x99" is a provider that is down, "503" one that fails
	// each call once.
	Fault string `json:"fault"`
}

// Result is how the branches ended.
type Result struct {
	Answered int `json:"answered"`
	// Refused is the branches the pool refused a retry.
	Refused int `json:"refused"`
	// Failed is the branches that ran out of attempts.
	Failed int `json:"failed"`
	// PoolUsed is the retries taken from the pool.
	PoolUsed int `json:"pool_used"`
}

// AskRequest is one branch's MODEL call.
type AskRequest struct {
	Branch int    `json:"branch"`
	Fault  string `json:"fault,omitempty"`
}

// Activities call the model.
type Activities struct {
	// Model is the chat endpoint's client.
	Model chat.Client
}

// Ask streams one completion (MODEL); each branch is its own call at the
// stand-in, so its fault counts that branch's attempts.
func (a *Activities) Ask(ctx context.Context, req AskRequest) (string, error) {
	call := activity.GetInfo(ctx).WorkflowExecution.ID + "/branch-" + strconv.Itoa(req.Branch)
	reply, err := a.Model.Complete(ctx, chat.Request{
		Messages: []chat.Message{{Role: "user", Content: fmt.Sprintf("branch %d: summarise your part of the report", req.Branch)}},
		Call:     call, Fault: req.Fault,
	})
	return reply.Text, err
}

var a *Activities

// FanOutWorkflow runs the branches at once and counts how they ended.
func FanOutWorkflow(ctx workflow.Context, in Input) (Result, error) {
	if in.Branches < 1 {
		return Result{}, errors.New("fanout: Input.Branches must be at least 1")
	}
	ctx = temporaladk.WithClass(ctx, temporaladk.Model)
	if in.UsePool {
		var err error
		if ctx, err = temporaladk.WithBudgets(ctx, temporaladk.Budgets{Name: "fan-out", Retries: in.Pool}); err != nil {
			return Result{}, fmt.Errorf("fanout: Input.Pool: %w", err)
		}
	}
	futures := make([]workflow.Future, in.Branches)
	for i := range futures {
		futures[i] = workflow.ExecuteActivity(ctx, a.Ask, AskRequest{Branch: i, Fault: in.Fault})
	}
	var res Result
	for _, f := range futures {
		err := f.Get(ctx, nil)
		var refused *temporaladk.BudgetExceededError
		switch {
		case err == nil:
			res.Answered++
		case errors.As(temporaladk.FromApplicationError(err), &refused):
			res.Refused++
		default:
			res.Failed++
		}
	}
	for _, b := range temporaladk.BudgetsOf(ctx) {
		res.PoolUsed = int(b.Spent)
	}
	return res, nil
}

// KitOptions are the kit's options of the sample's worker: MODEL's backoff
// shortened to 100ms so the storm plays out in seconds; its 3 attempts stay.
func KitOptions() (interceptors.Options, error) {
	model, err := policies.Default(temporaladk.Model)
	if err != nil {
		return interceptors.Options{}, err
	}
	model.Retry.InitialInterval = 100 * time.Millisecond
	model.Retry.MaxInterval = time.Second
	return interceptors.Options{Policies: map[temporaladk.Class]policies.ActivityPolicy{temporaladk.Model: model}}, nil
}
