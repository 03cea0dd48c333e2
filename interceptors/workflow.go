package interceptors

import (
	"go.temporal.io/sdk/interceptor"
	"go.temporal.io/sdk/workflow"

	"github.com/temporaladk/adk-go/internal/vocab"
)

// InterceptWorkflow wraps the workflow's inbound and outbound calls. Each
// workflow run gets its own state: the budgeted calls it made.
func (i *Interceptor) InterceptWorkflow(ctx workflow.Context, next interceptor.WorkflowInboundInterceptor) interceptor.WorkflowInboundInterceptor {
	return &workflowInbound{
		WorkflowInboundInterceptorBase: interceptor.WorkflowInboundInterceptorBase{Next: next},
		root:                           i,
		ledger:                         newLedger(i),
	}
}

type workflowInbound struct {
	interceptor.WorkflowInboundInterceptorBase
	root   *Interceptor
	ledger *ledger
}

func (w *workflowInbound) Init(outbound interceptor.WorkflowOutboundInterceptor) error {
	return w.Next.Init(&workflowOutbound{WorkflowOutboundInterceptorBase: interceptor.WorkflowOutboundInterceptorBase{Next: outbound}, root: w.root, ledger: w.ledger})
}

// ExecuteWorkflow registers the kit's budget Update handler (no command), runs
// the workflow, and lets a kit error it returns cross to the client as an
// ApplicationError with its type and fields, as an activity's does, instead
// of a bare message.
func (w *workflowInbound) ExecuteWorkflow(ctx workflow.Context, in *interceptor.ExecuteWorkflowInput) (any, error) {
	if err := w.ledger.register(ctx); err != nil {
		return nil, err
	}
	result, err := w.Next.ExecuteWorkflow(ctx, in)
	return result, vocab.ToApplicationError(err, vocab.ConvertOptions{})
}

type workflowOutbound struct {
	interceptor.WorkflowOutboundInterceptorBase
	root   *Interceptor
	ledger *ledger
}

func (o *workflowOutbound) ExecuteActivity(ctx workflow.Context, activityType string, args ...any) workflow.Future {
	return o.schedule(ctx, remoteScheduler{o.Next}, activityType, args)
}

func (o *workflowOutbound) ExecuteLocalActivity(ctx workflow.Context, activityType string, args ...any) workflow.Future {
	return o.schedule(ctx, localScheduler{o.Next}, activityType, args)
}
