package interceptors

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	commonpb "go.temporal.io/api/common/v1"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/workflow"

	"github.com/temporaladk/adk-go/internal/charge"
	"github.com/temporaladk/adk-go/temporaladk"
)

// ChargeUpdateName is the workflow Update through which the activity side
// asks a run to charge retries of its budgeted calls, before they run. Its
// argument is a []ChargeRequest and its result the []ChargeResult answering
// them in order: a worker gathers the charges its attempts ask of one run
// while an Update of that run is in flight, and sends them as the next one,
// so that a fan-out's retries cost a few Updates, not one each (the server
// keeps at most 10 Updates of a run in flight and accepts 2,000 per run, by
// default). The kit registers its handler in every workflow it runs; each
// charge is in an accepted Update of the run's history, so that the
// workflow's budget decisions replay exactly.
const ChargeUpdateName = "temporaladk.charges"

// chargeOneUpdateName is the Update of one ChargeRequest that workers sent
// before charges were gathered. Its handler stays registered, so that
// histories that hold it replay and such a worker's charges are answered.
const chargeOneUpdateName = "temporaladk.charge"

// budgetChangeID versions the budget path in workflow code
// (workflow.GetVersion): a later change to the commands a budgeted call adds
// branches on it, so that histories recorded before the change still replay.
const budgetChangeID = "temporaladk/budget"

// ChargeRequest asks a run to charge attempt Attempt of its budgeted call
// Call. A []ChargeRequest is the argument of the Update ChargeUpdateName.
type ChargeRequest struct {
	// Call names the call, as CallHeader.Budget does.
	Call string `json:"call"`
	// Attempt is the attempt to charge, 2 for the first retry.
	Attempt int `json:"attempt"`
}

// ChargeResult is the answer to a ChargeRequest: granted, refused with the
// budget that refused it, or an error that is neither.
type ChargeResult struct {
	// Granted is true when the attempt was charged, or had been already.
	Granted bool `json:"granted"`
	// Refused is the refusal when Granted is false.
	Refused *temporaladk.BudgetExceededError `json:"refused,omitempty"`
	// Error says why the request was neither granted nor refused: the run
	// made no budgeted call of its name.
	Error string `json:"error,omitempty"`
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

// register installs the charge handlers; it adds no command.
func (r *runState) register(ctx workflow.Context, root *Interceptor) error {
	err := workflow.SetUpdateHandler(ctx, ChargeUpdateName, func(ctx workflow.Context, reqs []ChargeRequest) ([]ChargeResult, error) {
		out := make([]ChargeResult, len(reqs))
		for i, req := range reqs {
			res, err := r.charge(ctx, root, req)
			if err != nil {
				res = ChargeResult{Error: err.Error()}
			}
			out[i] = res
		}
		return out, nil
	})
	if err != nil {
		return err
	}
	return workflow.SetUpdateHandler(ctx, chargeOneUpdateName, func(ctx workflow.Context, req ChargeRequest) (ChargeResult, error) {
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
// attempt is one charge: the run keeps the highest attempt charged of each
// call and grants a repeated request without charging again.
func (i *Interceptor) chargeAttempt(ctx context.Context, info activity.Info, h CallHeader, attempt int) (*temporaladk.BudgetExceededError, error) {
	ctx, cancel := context.WithTimeout(ctx, chargeWait(ctx, info))
	defer cancel()
	res, err := i.charges.ask(ctx, info, ChargeRequest{Call: h.Budget, Attempt: attempt})
	if err == nil && res.Error != "" {
		err = errors.New(res.Error)
	}
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

// maxChargeWait bounds the wait for a charge's answer, and each Update that
// carries charges.
const maxChargeWait = 30 * time.Second

// maxChargeBatch bounds the charges one Update carries (about 40 bytes of
// argument and at most a few hundred of result each).
const maxChargeBatch = 500

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

// charger gathers the charges a worker's attempts ask of each run. The first
// charge of a run is sent at once; those asked while an Update of the run is
// in flight wait for it to be answered and go together in the next, so that
// a worker has at most one charge Update of a run in flight and a fan-out's
// retries cost a few Updates, not one each.
type charger struct {
	mu   sync.Mutex
	runs map[chargeTarget]*chargeQueue
}

// chargeTarget is where charges go: a run, through the activity's client or
// the test environment's route.
type chargeTarget struct {
	workflowID, runID string
	route             *charge.Route
}

// chargeQueue is the charges of one run that wait for an Update.
type chargeQueue struct {
	pending []*pendingCharge
}

// pendingCharge is one attempt's request and where its answer goes.
type pendingCharge struct {
	req ChargeRequest
	// asker is the asking attempt's context: a request whose asker gave up
	// is not sent.
	asker  context.Context
	answer chan chargeAnswer
}

type chargeAnswer struct {
	res ChargeResult
	err error
}

// ask queues req for the run of the activity ctx serves and waits for its
// answer, or for ctx to end.
func (c *charger) ask(ctx context.Context, info activity.Info, req ChargeRequest) (ChargeResult, error) {
	target := chargeTarget{workflowID: info.WorkflowExecution.ID, runID: info.WorkflowExecution.RunID}
	var cl client.Client
	if route, ok := charge.From(ctx); ok {
		target.route = route
	} else if cl = activity.GetClient(ctx); cl == nil {
		return ChargeResult{}, errors.New("the activity has no client to charge its budget through")
	}
	p := &pendingCharge{req: req, asker: ctx, answer: make(chan chargeAnswer, 1)}
	c.mu.Lock()
	if c.runs == nil {
		c.runs = map[chargeTarget]*chargeQueue{}
	}
	q, sending := c.runs[target]
	if !sending {
		q = &chargeQueue{}
		c.runs[target] = q
	}
	q.pending = append(q.pending, p)
	c.mu.Unlock()
	if !sending {
		// The sender outlives this attempt's context (others' charges may
		// ride on it) but keeps its values: the test environment's route.
		go c.send(context.WithoutCancel(ctx), cl, target, q)
	}
	select {
	case a := <-p.answer:
		return a.res, a.err
	case <-ctx.Done():
		return ChargeResult{}, ctx.Err()
	}
}

// send sends the charges of q, as many as one Update carries at a time,
// until none waits; then it forgets the run.
func (c *charger) send(base context.Context, cl client.Client, target chargeTarget, q *chargeQueue) {
	for {
		c.mu.Lock()
		batch := make([]*pendingCharge, 0, min(len(q.pending), maxChargeBatch))
		rest := q.pending[:0]
		for _, p := range q.pending {
			switch {
			case p.asker.Err() != nil:
				// Its attempt stopped waiting: nothing to send.
			case len(batch) < maxChargeBatch:
				batch = append(batch, p)
			default:
				rest = append(rest, p)
			}
		}
		clear(q.pending[len(rest):])
		q.pending = rest
		if len(batch) == 0 {
			delete(c.runs, target)
			c.mu.Unlock()
			return
		}
		c.mu.Unlock()
		reqs := make([]ChargeRequest, len(batch))
		for i, p := range batch {
			reqs[i] = p.req
		}
		// The Update is abandoned when every attempt it answers has
		// stopped waiting.
		ctx, cancel := context.WithTimeout(base, maxChargeWait)
		var waiting atomic.Int64
		waiting.Store(int64(len(batch)))
		stops := make([]func() bool, len(batch))
		for i, p := range batch {
			stops[i] = context.AfterFunc(p.asker, func() {
				if waiting.Add(-1) == 0 {
					cancel()
				}
			})
		}
		res, err := sendCharges(ctx, cl, target, reqs)
		for _, stop := range stops {
			stop()
		}
		cancel()
		if err == nil && len(res) != len(reqs) {
			err = fmt.Errorf("the charge Update answered %d requests of %d", len(res), len(reqs))
		}
		for i, p := range batch {
			if err != nil {
				p.answer <- chargeAnswer{err: err}
			} else {
				p.answer <- chargeAnswer{res: res[i]}
			}
		}
	}
}

// sendCharges sends one charge Update with reqs to target and returns its
// answers.
func sendCharges(ctx context.Context, cl client.Client, target chargeTarget, reqs []ChargeRequest) ([]ChargeResult, error) {
	updateID := chargeUpdateID(reqs)
	var res []ChargeResult
	if target.route != nil {
		out, err := target.route.Send(ctx, ChargeUpdateName, updateID, reqs)
		if err != nil {
			return nil, err
		}
		switch v := out.(type) {
		case []ChargeResult:
			return v, nil
		case *commonpb.Payloads:
			return res, headerConverter.FromPayloads(v, &res)
		}
		return nil, fmt.Errorf("the charge answered %T", out)
	}
	handle, err := cl.UpdateWorkflow(ctx, client.UpdateWorkflowOptions{
		WorkflowID:   target.workflowID,
		RunID:        target.runID,
		UpdateID:     updateID,
		UpdateName:   ChargeUpdateName,
		Args:         []any{reqs},
		WaitForStage: client.WorkflowUpdateStageCompleted,
	})
	if err != nil {
		return nil, err
	}
	return res, handle.Get(ctx, &res)
}

// chargeUpdateID names the charge Update of reqs after what it asks, so that
// asking again for what was asked before is answered from the first Update,
// without a second one in history (the server answers a repeated Update ID
// once). That is the answer the run would give anyway: a charge already
// granted is granted again and a refusal stands, since budgets only shrink.
// The SDK resends a request it retries with the same ID.
func chargeUpdateID(reqs []ChargeRequest) string {
	if len(reqs) == 1 {
		return fmt.Sprintf("%s/%s/%d", ChargeUpdateName, reqs[0].Call, reqs[0].Attempt)
	}
	h := sha256.New()
	for _, r := range reqs {
		fmt.Fprintf(h, "%s/%d\n", r.Call, r.Attempt)
	}
	return fmt.Sprintf("%s/%d/%x", ChargeUpdateName, len(reqs), h.Sum(nil)[:16])
}
