package interceptors

import (
	"errors"
	"fmt"

	"go.temporal.io/sdk/interceptor"
	"go.temporal.io/sdk/workflow"

	"github.com/temporaladk/adk-go/internal/budget"
	"github.com/temporaladk/adk-go/internal/charge"
	"github.com/temporaladk/adk-go/internal/vocab"
	"github.com/temporaladk/adk-go/observe"
)

// InterceptWorkflow wraps the workflow's inbound and outbound calls. Each
// workflow run gets its own state: the budgeted calls it made, and what it
// carries into the next run.
func (i *kitInterceptor) InterceptWorkflow(ctx workflow.Context, next interceptor.WorkflowInboundInterceptor) interceptor.WorkflowInboundInterceptor {
	return &workflowInbound{
		WorkflowInboundInterceptorBase: interceptor.WorkflowInboundInterceptorBase{Next: next},
		root:                           i,
		runState:                       newRunState(i),
	}
}

// runState is one run's kit state, shared by its inbound and outbound
// interceptors.
type runState struct {
	// ledger is the run's side of the budgets.
	ledger *charge.Ledger
	// ends are the run's calls whose end the observer has not been told:
	// every workflow-side event tells them first (callEnds).
	ends *callEnds
	// passive is set when another registration of the same kit interceptor
	// serves the run from outside this one: this one then passes every
	// call through, so that the kit applies once.
	passive bool
}

// errRunHandedOver is the charge validator's rejection of a charge that
// reaches a run continuing as new (charge.Hooks.HandedOver).
var errRunHandedOver = budgetClosed("temporaladk: this run is continuing as new and charges nothing more", nil)

// newRunState is one run's kit state: its ledger of the budgets
// (internal/charge), wired to the kit: its refusals counted and logged
// (countRefusal) and each of its decisions told to the observer, after the
// ends of the calls that ended before it.
func newRunState(i *kitInterceptor) *runState {
	ends := &callEnds{}
	return &runState{ends: ends, ledger: charge.NewLedger(charge.Hooks{
		Refused: func(ctx workflow.Context, r observe.Refusal) {
			i.countRefusal(ctx, r.Class, r.Err)
			ends.flush(ctx, i.notify)
			i.notify.budgetRefused(ctx, r)
		},
		Charged: func(ctx workflow.Context, c observe.Charge) {
			ends.flush(ctx, i.notify)
			i.notify.charged(ctx, c)
		},
		Reserved: func(ctx workflow.Context, r observe.Reservation) {
			ends.flush(ctx, i.notify)
			i.notify.tokensReserved(ctx, r)
		},
		Settled: func(ctx workflow.Context, u observe.Settlement) {
			ends.flush(ctx, i.notify)
			i.notify.usageSettled(ctx, u)
		},
		HandedOver: errRunHandedOver,
	})}
}

type workflowInbound struct {
	interceptor.WorkflowInboundInterceptorBase
	root *kitInterceptor
	*runState
}

func (w *workflowInbound) Init(outbound interceptor.WorkflowOutboundInterceptor) error {
	return w.Next.Init(&workflowOutbound{WorkflowOutboundInterceptorBase: interceptor.WorkflowOutboundInterceptorBase{Next: outbound}, root: w.root, runState: w.runState})
}

// ExecuteWorkflow reads what the run before this one carried (its start
// header ChainHeaderKey), registers the kit's budget Update handler and its
// approval Update and Query handlers (no command), runs the workflow on a context that carries the run's chain
// state, and lets a kit error it returns cross to the client as an
// ApplicationError with its type and fields, as an activity's does, instead
// of a bare message.
func (w *workflowInbound) ExecuteWorkflow(ctx workflow.Context, in *interceptor.ExecuteWorkflowInput) (any, error) {
	if outer, ok := ctx.Value(kitRootKey{}).(*kitInterceptor); ok {
		// A kit interceptor outside this one already serves the run: the
		// same one registered twice passes through, so that nothing is
		// charged, gated or written twice; another one fails the task.
		if outer != w.root {
			panic(fmt.Errorf("temporaladk: %w", ErrRegisteredTwice))
		}
		w.passive = true
		return w.Next.ExecuteWorkflow(ctx, in)
	}
	if !w.root.configured.Load() {
		// Fails the workflow task, not the run: the server retries it
		// until a worker registered by NewPlugin takes it.
		panic(errUnconfigured)
	}
	ctx = workflow.WithValue(ctx, kitRootKey{}, w.root)
	carried, err := readChainHeader(interceptor.WorkflowHeader(ctx))
	if err != nil {
		return nil, badCallHeader(err.Error())
	}
	if err := w.ledger.Register(ctx, budget.NewChain(carried)); err != nil {
		return nil, err
	}
	if ctx, err = w.root.registerApprovals(ctx); err != nil {
		return nil, err
	}
	result, err := w.Next.ExecuteWorkflow(budget.WithChain(ctx, w.ledger.Chain()), in)
	return result, vocab.ToApplicationError(err, vocab.ConvertOptions{})
}

// ExecuteUpdate counts every Update the run accepts, the kit's and the
// user's: the server limits them per run, and the conversation package
// says when the run comes near the limit. Replay counts the same.
func (w *workflowInbound) ExecuteUpdate(ctx workflow.Context, in *interceptor.UpdateInput) (any, error) {
	if w.passive {
		return w.Next.ExecuteUpdate(ctx, in)
	}
	if chain := w.ledger.Chain(); chain != nil {
		chain.CountUpdate()
	}
	return w.Next.ExecuteUpdate(w.withChain(ctx), in)
}

// ValidateUpdate gives the validator the run's chain state, as the workflow
// function has it: the SDK hands handlers the workflow's root context, not
// the one the kit passed to the workflow function.
func (w *workflowInbound) ValidateUpdate(ctx workflow.Context, in *interceptor.UpdateInput) error {
	if w.passive {
		return w.Next.ValidateUpdate(ctx, in)
	}
	return w.Next.ValidateUpdate(w.withChain(ctx), in)
}

// withChain is ctx carrying the run's chain state, once the run has one.
func (w *workflowInbound) withChain(ctx workflow.Context) workflow.Context {
	chain := w.ledger.Chain()
	if chain == nil || budget.ChainFrom(ctx) != nil {
		return ctx
	}
	return budget.WithChain(ctx, chain)
}

type workflowOutbound struct {
	interceptor.WorkflowOutboundInterceptorBase
	root *kitInterceptor
	*runState
	// calls and localCalls count the activities and local activities the
	// kit scheduled in the run (observe.Call Seq).
	calls, localCalls int
	// ungated counts the calls of declared gated tools the run's history
	// shows scheduled without the gate (fleet.ungatedCall).
	ungated int
}

// kitRootKey is the key of the kit interceptor that serves a run, on the
// workflow context it hands the run: an inner kit interceptor finds it there.
type kitRootKey struct{}

func (o *workflowOutbound) ExecuteActivity(ctx workflow.Context, activityType string, args ...any) workflow.Future {
	if o.passive {
		return o.Next.ExecuteActivity(ctx, activityType, args...)
	}
	return o.schedule(ctx, remoteScheduler{o.Next}, activityType, args)
}

func (o *workflowOutbound) ExecuteLocalActivity(ctx workflow.Context, activityType string, args ...any) workflow.Future {
	if o.passive {
		return o.Next.ExecuteLocalActivity(ctx, activityType, args...)
	}
	return o.schedule(ctx, localScheduler{o.Next}, activityType, args)
}

// ExecuteChildWorkflow starts a child under the budgets of ctx, when it has
// any: the child's start header names this run's ledger, which charges every
// attempt of the child's calls (and of the runs it continues as new) against
// those budgets. A child of a run whose own calls are charged to an owner
// (a grandchild) is charged to that same owner, so that a family has one
// ledger at its root. Nothing is reserved for the child: its attempts are
// charged as they come, so nothing waits to be returned when it ends.
func (o *workflowOutbound) ExecuteChildWorkflow(ctx workflow.Context, childWorkflowType string, args ...any) workflow.ChildWorkflowFuture {
	if o.passive {
		return o.Next.ExecuteChildWorkflow(ctx, childWorkflowType, args...)
	}
	args = replayed(ctx, args)
	owner := o.ledger.Owner()
	run, pool := budget.From(ctx)
	tokens, cost := budget.MetersFrom(ctx)
	if owner == nil && (run != nil || pool != nil || tokens != nil || cost != nil) {
		exec := workflow.GetInfo(ctx).WorkflowExecution
		owner = &budget.Owner{WorkflowID: exec.ID, RunID: exec.RunID, Tokens: tokens != nil, Cost: cost != nil,
			Delegation: o.ledger.Delegate(charge.Delegation{Attempts: run, Retries: pool, Tokens: tokens, Cost: cost})}
	}
	if owner != nil {
		// The child's MODEL calls get the cap and the model of the context
		// it is started on: this one's own, else the ones this run was
		// started with (budget.CallSpend falls back to them).
		o := *owner
		o.MaxTokens, o.Model = budget.CallSpend(ctx)
		owner = &o
		if err := writeChainHeader(interceptor.WorkflowHeader(ctx), budget.Carried{Owner: owner}); err != nil {
			return failedChild(ctx, fmt.Errorf("temporaladk: child workflow %s: %w", childWorkflowType, err))
		}
	}
	return o.Next.ExecuteChildWorkflow(ctx, childWorkflowType, args...)
}

// NewContinueAsNewError hands the run's state to the next: the budgets it
// named through the conversation package, as they stand, the owner its
// calls are charged to, and the calls still waiting for people, with their
// approvals so far (handOverApprovals). From then on the run charges
// nothing. A call the SDK
// refuses (it panics on a bad workflow function or arguments) hands nothing
// over and leaves the run charging.
func (o *workflowOutbound) NewContinueAsNewError(ctx workflow.Context, wfn any, args ...any) error {
	return o.handOver(ctx, func() error { return o.Next.NewContinueAsNewError(ctx, wfn, args...) })
}

// NewContinueAsNewErrorWithOptions hands the run's state over as
// NewContinueAsNewError does.
func (o *workflowOutbound) NewContinueAsNewErrorWithOptions(ctx workflow.Context, options workflow.ContinueAsNewErrorOptions, wfn any, args ...any) error {
	return o.handOver(ctx, func() error { return o.Next.NewContinueAsNewErrorWithOptions(ctx, options, wfn, args...) })
}

// handOver writes what the run carries into the next run's header, makes
// the continue-as-new error with next, and closes the run's chain once next
// has returned one: a next that panics or fails leaves it open.
func (o *workflowOutbound) handOver(ctx workflow.Context, next func() error) error {
	chain := o.ledger.Chain()
	if chain == nil || o.passive {
		return next()
	}
	if err := o.handOverApprovals(ctx); err != nil {
		return fmt.Errorf("temporaladk: continue as new: %w", err)
	}
	carried := chain.Carry()
	if !carried.Empty() {
		// A run with nothing to carry leaves the next run's header as it
		// was.
		if err := writeChainHeader(interceptor.WorkflowHeader(ctx), carried); err != nil {
			return fmt.Errorf("temporaladk: continue as new: %w", err)
		}
	}
	err := next()
	var can *workflow.ContinueAsNewError
	if errors.As(err, &can) {
		chain.Close()
	}
	return err
}

// failedChild is a child workflow future that failed before the child was
// started.
func failedChild(ctx workflow.Context, err error) workflow.ChildWorkflowFuture {
	f, s := workflow.NewFuture(ctx)
	s.SetError(err)
	return failedChildFuture{Future: f}
}

type failedChildFuture struct{ workflow.Future }

func (f failedChildFuture) GetChildWorkflowExecution() workflow.Future { return f.Future }

func (f failedChildFuture) SignalChildWorkflow(ctx workflow.Context, signalName string, data any) workflow.Future {
	return f.Future
}

func (f failedChildFuture) SignalChildWorkflowWithOptions(ctx workflow.Context, signalName string, data any, options workflow.SignalChildWorkflowOptions) workflow.Future {
	return f.Future
}
