package testsuite

import (
	"context"
	"fmt"
	"sync"
	"time"

	commonpb "go.temporal.io/api/common/v1"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/interceptor"
	"go.temporal.io/sdk/temporal"
	sdktestsuite "go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	"github.com/temporaladk/adk-go/approvals"
	"github.com/temporaladk/adk-go/interceptors"
	"github.com/temporaladk/adk-go/internal/seam"
	"github.com/temporaladk/adk-go/internal/wire"
	"github.com/temporaladk/adk-go/temporaladk"
)

// AppliedCall is what one activity call was scheduled with, after the kit's
// interceptor decided: the options, the class and the key that travelled in
// the header.
type AppliedCall struct {
	// ActivityType is the activity's type name.
	ActivityType string
	// Local is true for a local activity; then LocalOptions holds its
	// options and Options is zero.
	Local bool
	// Options are the activity options the call was scheduled with.
	Options workflow.ActivityOptions
	// LocalOptions are the local activity options the call was scheduled
	// with.
	LocalOptions workflow.LocalActivityOptions
}

// MaxAttempts returns the call's MaximumAttempts, 0 when it has no retry
// policy (the server's default: unlimited).
func (c AppliedCall) MaxAttempts() int32 {
	rp := c.Options.RetryPolicy
	if c.Local {
		rp = c.LocalOptions.RetryPolicy
	}
	if rp == nil {
		return 0
	}
	return rp.MaximumAttempts
}

// Recorder is a worker interceptor that records, innermost in the chain,
// what every activity call was scheduled with, and the heartbeats
// activities recorded. NewKitTestEnvironment installs one; put one first in
// worker.Options.Interceptors to use it with a real worker. Safe for
// concurrent use.
type Recorder struct {
	interceptor.WorkerInterceptorBase

	mu         sync.Mutex
	calls      []AppliedCall
	heartbeats []temporaladk.Heartbeat
	other      []any
	// scheduled counts the calls of each run and activity ID the workflow
	// set (schedulingHeaderKey).
	scheduled map[[2]string]int
}

// Calls returns the calls recorded so far, in the order they were
// scheduled.
func (r *Recorder) Calls() []AppliedCall {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]AppliedCall(nil), r.calls...)
}

// CallsOf returns the recorded calls of one activity type.
func (r *Recorder) CallsOf(activityType string) []AppliedCall {
	var out []AppliedCall
	for _, c := range r.Calls() {
		if c.ActivityType == activityType {
			out = append(out, c)
		}
	}
	return out
}

// Heartbeats returns the kit heartbeats activities recorded.
func (r *Recorder) Heartbeats() []temporaladk.Heartbeat {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]temporaladk.Heartbeat(nil), r.heartbeats...)
}

// OtherHeartbeatDetails returns heartbeat details that were not a kit
// Heartbeat (an activity's own RecordHeartbeat calls).
func (r *Recorder) OtherHeartbeatDetails() []any {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]any(nil), r.other...)
}

// InterceptWorkflow records the workflow's activity calls.
func (r *Recorder) InterceptWorkflow(ctx workflow.Context, next interceptor.WorkflowInboundInterceptor) interceptor.WorkflowInboundInterceptor {
	return &recorderInbound{WorkflowInboundInterceptorBase: interceptor.WorkflowInboundInterceptorBase{Next: next}, r: r}
}

// InterceptActivity records the activity's heartbeats.
func (r *Recorder) InterceptActivity(ctx context.Context, next interceptor.ActivityInboundInterceptor) interceptor.ActivityInboundInterceptor {
	return &recorderActivityInbound{ActivityInboundInterceptorBase: interceptor.ActivityInboundInterceptorBase{Next: next}, r: r}
}

type recorderInbound struct {
	interceptor.WorkflowInboundInterceptorBase
	r *Recorder
}

func (i *recorderInbound) Init(outbound interceptor.WorkflowOutboundInterceptor) error {
	return i.Next.Init(&recorderOutbound{WorkflowOutboundInterceptorBase: interceptor.WorkflowOutboundInterceptorBase{Next: outbound}, r: i.r})
}

type recorderOutbound struct {
	interceptor.WorkflowOutboundInterceptorBase
	r *Recorder
}

func (o *recorderOutbound) ExecuteActivity(ctx workflow.Context, activityType string, args ...any) workflow.Future {
	opts := workflow.GetActivityOptions(ctx)
	if !workflow.IsReplaying(ctx) {
		o.r.add(AppliedCall{ActivityType: activityType, Options: opts})
	}
	err := writeRetryHeader(ctx, opts.RetryPolicy)
	if err == nil && opts.ActivityID != "" {
		err = writeSchedulingHeader(ctx, o.r.schedule(workflow.GetInfo(ctx).WorkflowExecution.RunID, opts.ActivityID))
	}
	if err != nil {
		f, s := workflow.NewFuture(ctx)
		s.SetError(err)
		return f
	}
	return o.Next.ExecuteActivity(ctx, activityType, args...)
}

// schedule counts a call of run with activityID and returns how many the
// run made with it, this one included.
func (r *Recorder) schedule(run, activityID string) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.scheduled == nil {
		r.scheduled = map[[2]string]int{}
	}
	r.scheduled[[2]string{run, activityID}]++
	return r.scheduled[[2]string{run, activityID}]
}

// schedulingHeaderKey is the header field in which the kit's test
// environment hands an activity how many calls its run made with its
// activity ID, this one included: the history a worker's kit reads it from
// (an approved call's grant runs the first only) is not there. It is
// written in the test environment only.
const schedulingHeaderKey = "temporaladk-test-scheduling"

// writeSchedulingHeader puts n, the calls the run made with the call's
// activity ID, in the call's header.
func writeSchedulingHeader(ctx workflow.Context, n int) error {
	fields := interceptor.WorkflowHeader(ctx)
	if fields == nil {
		return nil
	}
	p, err := converter.GetDefaultDataConverter().ToPayload(n)
	if err != nil {
		return fmt.Errorf("testsuite: encoding the call's scheduling count: %w", err)
	}
	fields[schedulingHeaderKey] = p
	return nil
}

// scheduledTimes is the kit's scheduling seam for the SDK's test
// environment, which has no history to read: the count a Recorder
// innermost in the interceptor chain put in the call's header. A call
// without one (no Recorder, or an activity ID the environment assigned,
// which it never reuses) is its run's first.
func scheduledTimes(ctx context.Context, _ activity.Info) (int, error) {
	p, ok := interceptor.Header(ctx)[schedulingHeaderKey]
	if !ok || p == nil {
		return 1, nil
	}
	var n int
	if err := converter.GetDefaultDataConverter().FromPayload(p, &n); err != nil {
		return 0, fmt.Errorf("testsuite: the call's scheduling count does not decode: %w", err)
	}
	return n, nil
}

func (o *recorderOutbound) ExecuteLocalActivity(ctx workflow.Context, activityType string, args ...any) workflow.Future {
	if !workflow.IsReplaying(ctx) {
		o.r.add(AppliedCall{ActivityType: activityType, Local: true, LocalOptions: workflow.GetLocalActivityOptions(ctx)})
	}
	return o.Next.ExecuteLocalActivity(ctx, activityType, args...)
}

// retryHeaderKey is the header field in which the kit's test environment
// hands an activity the retry policy its call was scheduled with: the SDK's
// test environment gives activity tasks none in activity.Info, which a
// server always does. It is written in the test environment only.
const retryHeaderKey = "temporaladk-test-retry"

// writeRetryHeader puts rp, the retry policy the call is scheduled with,
// in the call's header.
func writeRetryHeader(ctx workflow.Context, rp *temporal.RetryPolicy) error {
	fields := interceptor.WorkflowHeader(ctx)
	if fields == nil || rp == nil {
		return nil
	}
	p, err := converter.GetDefaultDataConverter().ToPayload(rp)
	if err != nil {
		return fmt.Errorf("testsuite: encoding the call's retry policy: %w", err)
	}
	fields[retryHeaderKey] = p
	return nil
}

// scheduledRetryPolicy is the kit's retry-policy seam for the SDK's test
// environment, whose activity tasks carry no retry policy: the policy the
// call was scheduled with, as a Recorder innermost in the interceptor chain
// put it in the call's header; nil without one.
func scheduledRetryPolicy(ctx context.Context, _ activity.Info) *temporal.RetryPolicy {
	if ctx == nil {
		return nil
	}
	p, ok := interceptor.Header(ctx)[retryHeaderKey]
	if !ok || p == nil {
		return nil
	}
	var rp temporal.RetryPolicy
	if err := converter.GetDefaultDataConverter().FromPayload(p, &rp); err != nil {
		return nil
	}
	return &rp
}

func (r *Recorder) add(c AppliedCall) {
	r.mu.Lock()
	r.calls = append(r.calls, c)
	r.mu.Unlock()
}

type recorderActivityInbound struct {
	interceptor.ActivityInboundInterceptorBase
	r *Recorder
}

// chargesThrough returns the kit's charge transport for activities that run
// in env: it sends each charge Update through env, to the workflow under
// test, since the SDK's test environment gives activities a client that
// cannot send Updates.
func chargesThrough(env *sdktestsuite.TestWorkflowEnvironment) wire.ChargeTransport {
	return func(ctx context.Context, _, _, updateID string, reqs []wire.ChargeRequest) ([]wire.ChargeResult, error) {
		type outcome struct {
			value any
			err   error
		}
		done := make(chan outcome, 1)
		send := func(o outcome) {
			select {
			case done <- o:
			default:
			}
		}
		// The environment's main loop is the one thread-safe way into it.
		env.RegisterDelayedCallback(func() {
			env.UpdateWorkflow(wire.ChargeUpdateName, updateID, &sdktestsuite.TestUpdateCallback{
				OnReject:   func(err error) { send(outcome{err: err}) },
				OnComplete: func(value any, err error) { send(outcome{value, err}) },
			}, reqs)
		}, 0)
		var o outcome
		select {
		case o = <-done:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		if o.err != nil {
			return nil, o.err
		}
		switch v := o.value.(type) {
		case []wire.ChargeResult:
			return v, nil
		case *commonpb.Payloads:
			var res []wire.ChargeResult
			return res, converter.GetDefaultDataConverter().FromPayloads(v, &res)
		}
		return nil, fmt.Errorf("testsuite: the charge Update answered %T", o.value)
	}
}

func (a *recorderActivityInbound) Init(outbound interceptor.ActivityOutboundInterceptor) error {
	return a.Next.Init(&recorderActivityOutbound{ActivityOutboundInterceptorBase: interceptor.ActivityOutboundInterceptorBase{Next: outbound}, r: a.r})
}

type recorderActivityOutbound struct {
	interceptor.ActivityOutboundInterceptorBase
	r *Recorder
}

func (o *recorderActivityOutbound) RecordHeartbeat(ctx context.Context, details ...any) {
	o.r.mu.Lock()
	for _, d := range details {
		if hb, ok := d.(temporaladk.Heartbeat); ok {
			o.r.heartbeats = append(o.r.heartbeats, hb)
		} else {
			o.r.other = append(o.r.other, d)
		}
	}
	o.r.mu.Unlock()
	o.Next.RecordHeartbeat(ctx, details...)
}

// KitTestEnvironment is the SDK's test workflow environment with the kit's
// interceptor registered as a worker would have it, and a Recorder of what
// the kit applied to each call.
type KitTestEnvironment struct {
	*sdktestsuite.TestWorkflowEnvironment
	// Recorder holds what every activity call was scheduled with.
	Recorder *Recorder
	// Signers sign the decisions Approve and Deny send on calls whose
	// approvers need signed decisions (approvals.NewApprovers): the one
	// whose Principal is the decision's approver. The kit's Verifier
	// (interceptors.Options.Approvals.Verifier) must hold their public keys,
	// as a worker's would: the environment checks signatures as a worker
	// does. Calls with open approvers need none.
	Signers []*approvals.Signer
}

// DefaultStartTime returns the workflow clock's start in a
// KitTestEnvironment, 2026-01-01T00:00:00Z, the same on every call, so that
// tests do not depend on the day they run.
func DefaultStartTime() time.Time { return time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC) }

// NewKitTestEnvironment returns a test workflow environment with the kit
// built from opts (the same options as the worker's) registered through its
// plugin, as on a worker, a Recorder innermost in the chain, and the
// workflow clock at DefaultStartTime. Bad options are an error naming what
// is wrong. Register workflows and activities on it as on the SDK's
// environment.
func NewKitTestEnvironment(suite *sdktestsuite.WorkflowTestSuite, opts interceptors.Options) (*KitTestEnvironment, error) {
	if suite == nil {
		return nil, fmt.Errorf("testsuite: NewKitTestEnvironment: suite is nil")
	}
	env := suite.NewTestWorkflowEnvironment()
	kit, err := NewKitPlugin(env, opts)
	if err != nil {
		return nil, err
	}
	rec := &Recorder{}
	// The first interceptor's outbound is the innermost: the recorder sees
	// the options the kit wrote. The kit's plugin adds the kit after it.
	env.SetWorkerOptions(worker.Options{Interceptors: []interceptor.WorkerInterceptor{rec}, Plugins: []worker.Plugin{kit}})
	env.SetStartTime(DefaultStartTime())
	return &KitTestEnvironment{TestWorkflowEnvironment: env, Recorder: rec}, nil
}

// NewKitPlugin returns the kit's plugin for an SDK test environment you set
// up yourself (env.SetWorkerOptions with it in Plugins): interceptors.NewPlugin
// with opts, whose activities send their budget charges through env, since
// the environment gives activities a client that cannot send Updates, and
// read their retry policy, and how often their run used their activity ID
// (an approved call's grant runs the first only), from a Recorder, since
// the environment's activity tasks carry no retry policy and it keeps no
// history. Put a Recorder in the worker options' Interceptors for that;
// without one a call's attempts have no retry settings on the activity
// side, and each call counts as the first of its ID. NewKitTestEnvironment
// does both.
func NewKitPlugin(env *sdktestsuite.TestWorkflowEnvironment, opts interceptors.Options) (*temporal.SimplePlugin, error) {
	if env == nil {
		return nil, fmt.Errorf("testsuite: NewKitPlugin: env is nil")
	}
	return seam.NewPlugin(opts, seam.Seams{Transport: chargesThrough(env), RetryPolicyOf: scheduledRetryPolicy, SchedulingsOf: scheduledTimes})
}
