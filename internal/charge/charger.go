package charge

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"maps"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/temporal"

	"github.com/temporaladk/adk-go/internal/vocab"
	"github.com/temporaladk/adk-go/internal/wire"
	"github.com/temporaladk/adk-go/providers"
	"github.com/temporaladk/adk-go/spend"
	"github.com/temporaladk/adk-go/temporaladk"
)

// clientChargeTransport sends a charge Update with the client of the
// activity ctx serves (activity.GetClient): the worker's own connection to
// the server. A nil ctx is an error.
func clientChargeTransport(ctx context.Context, workflowID, runID, updateID string, reqs []wire.ChargeRequest) ([]wire.ChargeResult, error) {
	if ctx == nil {
		return nil, errors.New("interceptors: the charge transport: ctx is nil: pass the activity's context")
	}
	cl := activity.GetClient(ctx)
	if cl == nil {
		return nil, errors.New("the activity has no client to charge its budget through")
	}
	handle, err := cl.UpdateWorkflow(ctx, client.UpdateWorkflowOptions{
		WorkflowID:   workflowID,
		RunID:        runID,
		UpdateID:     updateID,
		UpdateName:   wire.ChargeUpdateName,
		Args:         []any{reqs},
		WaitForStage: client.WorkflowUpdateStageCompleted,
	})
	if err != nil {
		return nil, err
	}
	var res []wire.ChargeResult
	return res, handle.Get(ctx, &res)
}

// maxChargeWait bounds the wait for a charge's answer, and each Update that
// carries charges.
const maxChargeWait = 30 * time.Second

// maxChargeBatch bounds the charges one Update carries (about 40 bytes of
// argument and at most a few hundred of result each).
const maxChargeBatch = 500

// Charger is the activity side of the budgets: it asks a run to charge,
// reserve and settle the attempts of its budgeted calls and gathers the
// asks of one run. The first ask of a run is sent at once; those made while
// an Update of the run is in flight wait for it to be answered and go
// together in the next, so that a worker has at most one charge Update of a
// run in flight and a fan-out's retries cost a few Updates, not one each. It
// keeps a run only while asks of it wait. A Charger serves every activity
// of a worker, concurrently.
type Charger struct {
	transport wire.ChargeTransport
	clock     temporaladk.Clock
	prices    map[string]spend.Price

	mu   sync.Mutex
	runs map[chargeTarget]*chargeQueue
}

// NewCharger returns the charger that sends charge Updates with transport,
// waits on clock and prices reservations with prices, by model name (it
// keeps a copy). If transport is nil, the client of the activity each ask
// serves (activity.GetClient); if clock is nil, the real clock.
func NewCharger(transport wire.ChargeTransport, clock temporaladk.Clock, prices map[string]spend.Price) *Charger {
	if transport == nil {
		transport = clientChargeTransport
	}
	if clock == nil {
		clock = vocab.SystemClock()
	}
	return &Charger{transport: transport, clock: clock, prices: maps.Clone(prices)}
}

// chargeTarget is the run charges go to.
type chargeTarget struct {
	workflowID, runID string
}

// chargeQueue is the charges of one run that wait for an Update.
type chargeQueue struct {
	pending []*pendingCharge
}

// pendingCharge is one attempt's request and where its answer goes.
type pendingCharge struct {
	req wire.ChargeRequest
	// asker is the asking attempt's context: a request whose asker gave up
	// is not sent.
	asker  context.Context
	answer chan chargeAnswer
}

type chargeAnswer struct {
	res wire.ChargeResult
	err error
}

// askWorkflow asks the workflow run target, through its charge Update, to
// charge req, and waits for the answer (the workflow decides: see
// Ledger.Register's handler): when granted, what the call's budget has
// left (nil when the answer does not say); the refusal; or an error when no
// answer could be had. Asking twice for one attempt is one charge: the run keeps the
// highest attempt charged of each call and grants a repeated request without
// charging again. An error that says the run can take no more charges
// (ErrRunOutOfUpdates, ErrBudgetClosed) wraps that sentinel.
func (c *Charger) askWorkflow(ctx context.Context, info activity.Info, target chargeTarget, req wire.ChargeRequest) (*int, *temporaladk.BudgetExceededError, error) {
	ctx, cancel := context.WithTimeout(ctx, c.wait(ctx, info))
	defer cancel()
	res, err := c.ask(ctx, target, req)
	if err == nil && res.Error != "" {
		err = errors.New(res.Error)
	}
	if err != nil {
		return nil, nil, fmt.Errorf("temporaladk: charging attempt %d of budgeted call %s: %w", req.Attempt, req.Call, classifyChargeError(err))
	}
	switch {
	case res.Granted:
		return res.Remaining, nil, nil
	case res.Refused != nil:
		return nil, res.Refused, nil
	}
	return nil, nil, fmt.Errorf("temporaladk: charging attempt %d of budgeted call %s: the answer neither grants nor refuses", req.Attempt, req.Call)
}

// ErrRunOutOfUpdates is the cause of a charge the server refused because
// the run holding the budget has accepted all the Updates it accepts
// (history.maxTotalUpdates, 2,000 by default): no retry can be charged in
// that run any more, so the call fails at once with temporaladk.TypeRunOutOfUpdates
// instead of asking again and again. The workflow continues as new to go on
// (see the conversation package).
var ErrRunOutOfUpdates = errors.New("this run has no Updates left; continue as new")

// ErrBudgetClosed is the cause of a charge whose budget's run has closed or
// handed its budgets to the run it continued as new: nothing can be charged
// there any more.
var ErrBudgetClosed = errors.New("the run that holds this call's budget has closed")

// classifyChargeError wraps the sentinel of an error after which no charge
// of the run can succeed: the server's refusal of one more Update to a run
// that reached its limit (FailedPrecondition, naming the limit), a run that
// is closed (NotFound), or one continuing as new (the kit's validator
// rejects the charge with temporaladk.TypeBudgetClosed). Any other error is returned
// as it is: the next attempt asks again.
func classifyChargeError(err error) error {
	var precondition *serviceerror.FailedPrecondition
	if errors.As(err, &precondition) && strings.Contains(precondition.Error(), "limit on the total number of distinct updates") {
		return fmt.Errorf("%w (%v)", ErrRunOutOfUpdates, err)
	}
	var notFound *serviceerror.NotFound
	if errors.As(err, &notFound) {
		return fmt.Errorf("%w (%v)", ErrBudgetClosed, err)
	}
	var app *temporal.ApplicationError
	if errors.As(err, &app) && app.Type() == temporaladk.TypeBudgetClosed {
		return fmt.Errorf("%w (%v)", ErrBudgetClosed, err)
	}
	return err
}

// wait is how long an attempt waits for a charge's answer: at most
// maxChargeWait, half its heartbeat window (no beat is sent while it waits),
// and what is left of its deadline on the activity side's clock less a
// second, so that the attempt still reports its own outcome rather than
// being timed out by the server.
func (c *Charger) wait(ctx context.Context, info activity.Info) time.Duration {
	wait := maxChargeWait
	if info.HeartbeatTimeout > 0 {
		wait = min(wait, info.HeartbeatTimeout/2)
	}
	if deadline, ok := ctx.Deadline(); ok {
		wait = min(wait, deadline.Sub(c.clock.Now())-time.Second)
	}
	return max(wait, 100*time.Millisecond)
}

// ask queues req for the run target and waits for its answer, or for ctx to
// end.
func (c *Charger) ask(ctx context.Context, target chargeTarget, req wire.ChargeRequest) (wire.ChargeResult, error) {
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
		// ride on it) but keeps its values: the activity's client.
		go c.send(context.WithoutCancel(ctx), target, q)
	}
	select {
	case a := <-p.answer:
		return a.res, a.err
	case <-ctx.Done():
		return wire.ChargeResult{}, ctx.Err()
	}
}

// send sends the charges of q, as many as one Update carries at a time,
// until none waits; then it forgets the run.
func (c *Charger) send(base context.Context, target chargeTarget, q *chargeQueue) {
	for {
		batch := c.next(target, q)
		if len(batch) == 0 {
			return
		}
		reqs := make([]wire.ChargeRequest, len(batch))
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
		res, err := c.transport(ctx, target.workflowID, target.runID, chargeUpdateID(reqs), reqs)
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

// next takes the next Update's worth of q's asks whose askers still wait,
// and forgets the run when none does.
func (c *Charger) next(target chargeTarget, q *chargeQueue) []*pendingCharge {
	c.mu.Lock()
	defer c.mu.Unlock()
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
	}
	return batch
}

// chargeUpdateID names the charge Update of reqs after what it asks, so that
// asking again for what was asked before is answered from the first Update,
// without a second one in history (the server answers a repeated Update ID
// once). That is the answer the run would give anyway: a charge already
// granted is granted again and a refusal stands, since budgets only shrink.
// The SDK resends a request it retries with the same ID.
func chargeUpdateID(reqs []wire.ChargeRequest) string {
	if len(reqs) == 1 {
		return fmt.Sprintf("%s/%s/%d%s", wire.ChargeUpdateName, reqs[0].Call, reqs[0].Attempt, opOf(reqs[0]))
	}
	h := sha256.New()
	for _, r := range reqs {
		fmt.Fprintf(h, "%s/%d%s\n", r.Call, r.Attempt, opOf(r))
	}
	return fmt.Sprintf("%s/%d/%x", wire.ChargeUpdateName, len(reqs), h.Sum(nil)[:16])
}

// ErrModelUnpriced is the cause of a temporaladk.TypeModelUnpriced failure.
var ErrModelUnpriced = errors.New("the model has no price in the worker's price table (interceptors.Options.Prices)")

// ActivityCharges reports whether attempt of the call h describes is
// charged by the activity side: a retry of a call under the run's own
// budgets, any attempt of a call with an owner.
func ActivityCharges(h wire.CallHeader, attempt int) bool {
	return (h.Budget != "" && attempt > 1) || h.Owner.Call != ""
}

// metered reports whether the call's attempts are reserved and settled.
func metered(h wire.CallHeader) bool {
	return h.Spend.MaxTokens > 0 && (h.Spend.Tokens || h.Spend.Cost || h.Owner.Tokens || h.Owner.Cost)
}

// StartCharged reports whether attempt is charged or reserved before it
// runs (Start).
func StartCharged(h wire.CallHeader, attempt int) bool {
	return ActivityCharges(h, attempt) || metered(h)
}

// Final reports whether a charge's error says no charge of its run can
// succeed any more (ErrRunOutOfUpdates, ErrBudgetClosed).
func Final(err error) bool {
	return errors.Is(err, ErrRunOutOfUpdates) || errors.Is(err, ErrBudgetClosed)
}

// Start charges and, for a metered call, reserves attempt before the user's
// code runs: a refusal, or an error when no answer could be had. A call
// under a cost budget whose model has no price reserves nothing and fails
// with an error that wraps ErrModelUnpriced.
func (c *Charger) Start(ctx context.Context, info activity.Info, h wire.CallHeader, attempt int) (*temporaladk.BudgetExceededError, error) {
	var r *wire.Reservation
	if metered(h) {
		r = &wire.Reservation{Model: h.Spend.Model, MaxTokens: h.Spend.MaxTokens}
		if h.Spend.Cost || h.Owner.Cost {
			p, ok := c.prices[h.Spend.Model]
			if !ok {
				return nil, fmt.Errorf("model %q: %w", h.Spend.Model, ErrModelUnpriced)
			}
			r.Price = &p
		}
	}
	_, refused, err := c.chargeCall(ctx, info, h, attempt, r)
	return refused, err
}

// Charge charges attempt of the call h describes, with no reservation: the
// next attempt, asked by the one that failed. Granted, it returns what the
// call's budget has left (nil when the answer does not say).
func (c *Charger) Charge(ctx context.Context, info activity.Info, h wire.CallHeader, attempt int) (*int, *temporaladk.BudgetExceededError, error) {
	return c.chargeCall(ctx, info, h, attempt, nil)
}

// UsageSum adds up what an attempt reports with providers.ReportUsage.
type UsageSum struct {
	mu       sync.Mutex
	sum      spend.Usage
	reported bool
}

// RecordUsage returns ctx with a usage recorder for a metered call's
// attempt, and the sum it keeps, for Settle; ctx itself and nil for any
// other call.
func RecordUsage(ctx context.Context, h wire.CallHeader) (context.Context, *UsageSum) {
	if !metered(h) {
		return ctx, nil
	}
	s := &UsageSum{}
	rctx, err := providers.WithUsageRecorder(ctx, func(u spend.Usage) {
		s.mu.Lock()
		defer s.mu.Unlock()
		s.sum.InputTokens += u.InputTokens
		s.sum.CachedInputTokens += u.CachedInputTokens
		s.sum.OutputTokens += u.OutputTokens
		s.reported = true
	})
	if err != nil {
		// WithUsageRecorder refuses only a nil context or recorder, and
		// neither is nil here.
		return ctx, nil
	}
	return rctx, s
}

// Settle settles a metered attempt's reservation with what it reported in
// s, at its run and at its owner, and waits for the answers, so that the
// workflow has the settlement before it reads the attempt's outcome. It
// never changes that outcome: a settlement that gets no answer is logged,
// and the reservation stays spent whole. A nil s settles nothing.
func (c *Charger) Settle(ctx context.Context, info activity.Info, h wire.CallHeader, attempt int, s *UsageSum, succeeded bool) {
	if s == nil {
		return
	}
	settle := wire.Settlement{Succeeded: succeeded}
	s.mu.Lock()
	if s.reported {
		u := s.sum
		settle.Usage = &u
	}
	s.mu.Unlock()
	// The attempt's own context may be done (its deadline passed): the
	// settlement still matters, and keeps the attempt's values.
	ctx = context.WithoutCancel(ctx)
	var settles []charge
	if h.Budget != "" && (h.Spend.Tokens || h.Spend.Cost) {
		settles = append(settles, ownCharge(info, h, attempt))
	}
	if h.Owner.Call != "" && (h.Owner.Tokens || h.Owner.Cost) {
		settles = append(settles, ownerCharge(h, attempt))
	}
	for _, ch := range settles {
		ch.req.Settle = &settle
		if _, _, err := c.askWorkflow(ctx, info, ch.target, ch.req); err != nil {
			activity.GetLogger(ctx).Warn("temporaladk: the attempt's reservation could not be settled; it stays spent whole", "error", err)
		}
	}
}

// chargeCall charges attempt of the call h describes, with r its
// reservation when the call is metered (nil otherwise): against the run's
// own budgets first (a retry, or any reserved attempt), then at its owner.
// A refusal by either ends the attempt; one by the owner after the run's own
// charge leaves that charge spent, waste but never an overrun. Granted, it
// returns what the call's budget has left, as the last charge answered.
func (c *Charger) chargeCall(ctx context.Context, info activity.Info, h wire.CallHeader, attempt int, r *wire.Reservation) (*int, *temporaladk.BudgetExceededError, error) {
	var remaining *int
	ownReserve := r != nil && (h.Spend.Tokens || h.Spend.Cost)
	if h.Budget != "" && (attempt > 1 || ownReserve) {
		ch := ownCharge(info, h, attempt)
		if ownReserve {
			ch.req.Reserve = r
		}
		left, refused, err := c.askWorkflow(ctx, info, ch.target, ch.req)
		if refused != nil || err != nil {
			return nil, refused, err
		}
		remaining = left
	}
	if h.Owner.Call == "" {
		return remaining, nil, nil
	}
	ch := ownerCharge(h, attempt)
	if r != nil && (h.Owner.Tokens || h.Owner.Cost) {
		ch.req.Reserve = r
	}
	return c.askWorkflow(ctx, info, ch.target, ch.req)
}

// charge is one charge request and the run it goes to.
type charge struct {
	target chargeTarget
	req    wire.ChargeRequest
}

// ownCharge is where and how attempt of the call h describes is charged
// against its own run's budgets.
func ownCharge(info activity.Info, h wire.CallHeader, attempt int) charge {
	return charge{chargeTarget{workflowID: info.WorkflowExecution.ID, runID: info.WorkflowExecution.RunID},
		wire.ChargeRequest{Call: h.Budget, Attempt: attempt}}
}

// ownerCharge is where and how attempt of the call h describes is charged
// at its owner: the call's name there, the delegation and its class.
func ownerCharge(h wire.CallHeader, attempt int) charge {
	return charge{chargeTarget{workflowID: h.Owner.WorkflowID, runID: h.Owner.RunID},
		wire.ChargeRequest{Call: h.Owner.Call, Attempt: attempt, Delegation: h.Owner.Delegation, Class: h.Class}}
}

// opOf names what a charge request asks beyond its attempt, for its Update
// ID: a reservation and a settlement of one attempt are Updates apart from
// its charge.
func opOf(r wire.ChargeRequest) string {
	switch {
	case r.Settle != nil:
		return "/settle"
	case r.Reserve != nil:
		return "/reserve"
	}
	return ""
}
