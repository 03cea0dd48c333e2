package interceptors

import (
	"context"
	"errors"
	"fmt"
	"time"

	commonpb "go.temporal.io/api/common/v1"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/workflow"

	"github.com/temporaladk/adk-go/internal/charge"
	"github.com/temporaladk/adk-go/temporaladk"
)

// ChargeUpdateName is the workflow Update through which the activity side
// asks a run to charge one retry of a budgeted call to its budgets, before
// the retry runs. The kit registers its handler in every workflow it runs;
// each charge is an accepted Update in the run's history, so that the
// workflow's budget decisions replay exactly.
const ChargeUpdateName = "temporaladk.charge"

// budgetChangeID versions the budget path in workflow code
// (workflow.GetVersion): a later change to the commands a budgeted call adds
// branches on it, so that histories recorded before the change still replay.
const budgetChangeID = "temporaladk/budget"

// ChargeRequest asks a run to charge attempt Attempt of its budgeted call
// Call. It is the argument of the Update ChargeUpdateName.
type ChargeRequest struct {
	// Call names the call, as CallHeader.Budget does.
	Call string `json:"call"`
	// Attempt is the attempt to charge, 2 for the first retry.
	Attempt int `json:"attempt"`
}

// ChargeResult is the answer to a ChargeRequest: granted, or refused with
// the budget that refused it.
type ChargeResult struct {
	// Granted is true when the attempt was charged, or had been already.
	Granted bool `json:"granted"`
	// Refused is the refusal when Granted is false.
	Refused *temporaladk.BudgetExceededError `json:"refused,omitempty"`
}

// runState is what the kit keeps of one workflow run: the calls it made
// under a budget, by name.
type runState struct {
	calls map[string]*budgetedCall
	seq   int
}

// budgetedCall is one call made under a budget, and the highest attempt
// charged for it.
type budgetedCall struct {
	run     *temporaladk.RunBudget
	pool    *temporaladk.AttemptBudget
	class   temporaladk.Class
	charged int
}

// register installs the charge handler; it adds no command.
func (r *runState) register(ctx workflow.Context, root *Interceptor) error {
	return workflow.SetUpdateHandler(ctx, ChargeUpdateName, func(ctx workflow.Context, req ChargeRequest) (ChargeResult, error) {
		return r.charge(ctx, root, req)
	})
}

// open charges a budgeted call's first attempt, in workflow code before the
// call is scheduled, and names the call for its retries' charges. A refusal
// is a *temporaladk.BudgetExceededError and the call is not scheduled.
func (r *runState) open(ctx workflow.Context, root *Interceptor, class temporaladk.Class, run *temporaladk.RunBudget, pool *temporaladk.AttemptBudget) (string, error) {
	workflow.GetVersion(ctx, budgetChangeID, 1, 1)
	if err := temporaladk.ChargeAttempt(run, pool, 1); err != nil {
		root.countRefusal(ctx, class, err)
		return "", err
	}
	r.seq++
	id := fmt.Sprintf("call-%d", r.seq)
	r.calls[id] = &budgetedCall{run: run, pool: pool, class: class, charged: 1}
	return id, nil
}

// charge is the Update handler: it charges req.Attempt of req.Call, once. A
// request for an attempt already charged (the same retry asked for again) is
// granted without a second charge.
func (r *runState) charge(ctx workflow.Context, root *Interceptor, req ChargeRequest) (ChargeResult, error) {
	call, ok := r.calls[req.Call]
	if !ok {
		return ChargeResult{}, fmt.Errorf("temporaladk: this run made no budgeted call %q", req.Call)
	}
	if req.Attempt <= call.charged {
		return ChargeResult{Granted: true}, nil
	}
	if err := temporaladk.ChargeAttempt(call.run, call.pool, req.Attempt); err != nil {
		root.countRefusal(ctx, call.class, err)
		var refused *temporaladk.BudgetExceededError
		if errors.As(err, &refused) {
			return ChargeResult{Refused: refused}, nil
		}
		return ChargeResult{}, err
	}
	call.charged = req.Attempt
	return ChargeResult{Granted: true}, nil
}

// chargeAttempt asks the run of the activity ctx serves to charge attempt
// of its budgeted call, and waits for the answer: nil when granted, the
// refusal, or an error when no answer could be had. Asking twice for one
// attempt is one charge: the Update ID names the call and the attempt, and
// the server answers a repeated ID with the first outcome.
func chargeAttempt(ctx context.Context, info activity.Info, h CallHeader, attempt int) (*temporaladk.BudgetExceededError, error) {
	ctx, cancel := context.WithTimeout(ctx, chargeWait(ctx, info))
	defer cancel()
	updateID := fmt.Sprintf("%s/%s/%d", ChargeUpdateName, h.Budget, attempt)
	req := ChargeRequest{Call: h.Budget, Attempt: attempt}
	res, err := sendCharge(ctx, info, updateID, req)
	if err != nil {
		return nil, fmt.Errorf("temporaladk: charging attempt %d of budgeted call %s: %w", attempt, h.Budget, err)
	}
	switch {
	case res.Granted:
		return nil, nil
	case res.Refused != nil:
		return res.Refused, nil
	}
	return nil, fmt.Errorf("temporaladk: charging attempt %d of budgeted call %s: the answer neither grants nor refuses", attempt, h.Budget)
}

// maxChargeWait bounds the wait for a charge's answer.
const maxChargeWait = 30 * time.Second

// chargeWait is how long an attempt waits for a charge's answer: at most
// maxChargeWait, half its heartbeat window (no beat is sent while it waits),
// and what is left of its deadline less a second, so that the attempt still
// reports its own outcome rather than being timed out by the server.
func chargeWait(ctx context.Context, info activity.Info) time.Duration {
	wait := maxChargeWait
	if info.HeartbeatTimeout > 0 {
		wait = min(wait, info.HeartbeatTimeout/2)
	}
	if deadline, ok := ctx.Deadline(); ok {
		wait = min(wait, time.Until(deadline)-time.Second)
	}
	return max(wait, 100*time.Millisecond)
}

// sendCharge sends the charge Update through the activity's client, or
// through the Charger a test environment put in ctx.
func sendCharge(ctx context.Context, info activity.Info, updateID string, req ChargeRequest) (ChargeResult, error) {
	var res ChargeResult
	if send, ok := charge.From(ctx); ok {
		out, err := send(ctx, ChargeUpdateName, updateID, req)
		if err != nil {
			return res, err
		}
		switch v := out.(type) {
		case ChargeResult:
			return v, nil
		case *commonpb.Payloads:
			return res, headerConverter.FromPayloads(v, &res)
		}
		return res, fmt.Errorf("the charge answered %T", out)
	}
	c := activity.GetClient(ctx)
	if c == nil {
		return res, errors.New("the activity has no client to charge its budget through")
	}
	handle, err := c.UpdateWorkflow(ctx, client.UpdateWorkflowOptions{
		WorkflowID:   info.WorkflowExecution.ID,
		RunID:        info.WorkflowExecution.RunID,
		UpdateID:     updateID,
		UpdateName:   ChargeUpdateName,
		Args:         []any{req},
		WaitForStage: client.WorkflowUpdateStageCompleted,
	})
	if err != nil {
		return res, err
	}
	return res, handle.Get(ctx, &res)
}
