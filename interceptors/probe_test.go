package interceptors_test

import (
	"context"
	"sync"

	"go.temporal.io/sdk/interceptor"
	"go.temporal.io/sdk/workflow"
)

// probe records, innermost in the chain, the activity options each call is
// scheduled with, and counts the heartbeats activities record.
type probe struct {
	interceptor.WorkerInterceptorBase
	mu         sync.Mutex
	scheduled  []scheduledCall
	heartbeats []any
}

type scheduledCall struct {
	ActivityType string
	Options      workflow.ActivityOptions
	Local        workflow.LocalActivityOptions
	IsLocal      bool
}

func (p *probe) calls() []scheduledCall {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]scheduledCall(nil), p.scheduled...)
}

func (p *probe) beats() []any {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]any(nil), p.heartbeats...)
}

func (p *probe) InterceptWorkflow(ctx workflow.Context, next interceptor.WorkflowInboundInterceptor) interceptor.WorkflowInboundInterceptor {
	return &probeInbound{WorkflowInboundInterceptorBase: interceptor.WorkflowInboundInterceptorBase{Next: next}, p: p}
}

func (p *probe) InterceptActivity(ctx context.Context, next interceptor.ActivityInboundInterceptor) interceptor.ActivityInboundInterceptor {
	return &probeActivityInbound{ActivityInboundInterceptorBase: interceptor.ActivityInboundInterceptorBase{Next: next}, p: p}
}

type probeInbound struct {
	interceptor.WorkflowInboundInterceptorBase
	p *probe
}

func (i *probeInbound) Init(outbound interceptor.WorkflowOutboundInterceptor) error {
	return i.Next.Init(&probeOutbound{WorkflowOutboundInterceptorBase: interceptor.WorkflowOutboundInterceptorBase{Next: outbound}, p: i.p})
}

type probeOutbound struct {
	interceptor.WorkflowOutboundInterceptorBase
	p *probe
}

func (o *probeOutbound) ExecuteActivity(ctx workflow.Context, activityType string, args ...any) workflow.Future {
	if !workflow.IsReplaying(ctx) {
		o.p.mu.Lock()
		o.p.scheduled = append(o.p.scheduled, scheduledCall{ActivityType: activityType, Options: workflow.GetActivityOptions(ctx)})
		o.p.mu.Unlock()
	}
	return o.Next.ExecuteActivity(ctx, activityType, args...)
}

func (o *probeOutbound) ExecuteLocalActivity(ctx workflow.Context, activityType string, args ...any) workflow.Future {
	if !workflow.IsReplaying(ctx) {
		o.p.mu.Lock()
		o.p.scheduled = append(o.p.scheduled, scheduledCall{ActivityType: activityType, Local: workflow.GetLocalActivityOptions(ctx), IsLocal: true})
		o.p.mu.Unlock()
	}
	return o.Next.ExecuteLocalActivity(ctx, activityType, args...)
}

type probeActivityInbound struct {
	interceptor.ActivityInboundInterceptorBase
	p *probe
}

func (a *probeActivityInbound) Init(outbound interceptor.ActivityOutboundInterceptor) error {
	return a.Next.Init(&probeActivityOutbound{ActivityOutboundInterceptorBase: interceptor.ActivityOutboundInterceptorBase{Next: outbound}, p: a.p})
}

type probeActivityOutbound struct {
	interceptor.ActivityOutboundInterceptorBase
	p *probe
}

func (o *probeActivityOutbound) RecordHeartbeat(ctx context.Context, details ...any) {
	o.p.mu.Lock()
	o.p.heartbeats = append(o.p.heartbeats, details...)
	o.p.mu.Unlock()
	o.Next.RecordHeartbeat(ctx, details...)
}
