package interceptors

import (
	"fmt"

	"go.temporal.io/sdk/workflow"

	"github.com/temporaladk/adk-go/internal/idemkey"
	"github.com/temporaladk/adk-go/internal/vocab"
	"github.com/temporaladk/adk-go/internal/wire"
	"github.com/temporaladk/adk-go/policies"
	"github.com/temporaladk/adk-go/temporaladk"
)

// callPlan is policies' plan of one call with the key the workflow side
// derived for it.
type callPlan struct {
	policies.Plan
	key string
}

// planCall finds the call's key (the workflow's, else one derived from the
// declared key fields) and asks policies.PlanCall for the rest: the one
// decision of the call's class, windows, retry policy, attempts and
// priority (the tenant on ctx is its fairness key). It
// reports false when the call is not the kit's to plan; the plan then holds
// only the retry policy the call gets.
func (i *kitInterceptor) planCall(ctx workflow.Context, s scheduler, activityType string, args []any, budgeted bool) (callPlan, bool, error) {
	call := policies.Call{ActivityType: activityType, DefaultClass: i.defaultClass, Policies: i.policies,
		Retry: s.callerRetry(ctx), Local: s.local(), Budgeted: budgeted}
	call.Tenant, _ = vocab.TenantFrom(ctx)
	if tag, tagged := vocab.ClassFrom(ctx); tagged {
		call.Tag = tag
		if tag == "" {
			return callPlan{}, false, fmt.Errorf("temporaladk: activity %s is tagged with an empty class", activityType)
		}
	}
	key, given := vocab.IdempotencyKeyFrom(ctx)
	if d, declared := i.activities[activityType]; declared {
		call.Declaration = &d
		if !given && len(d.KeyFields) > 0 {
			var err error
			if key, err = deriveKey(ctx, activityType, d.KeyFields, args); err != nil {
				return callPlan{}, false, fmt.Errorf("temporaladk: activity %s: %w", activityType, err)
			}
		}
	}
	call.HasKey = key != ""
	p, planned, err := policies.PlanCall(call)
	if err != nil {
		return callPlan{}, false, err
	}
	if !planned {
		return callPlan{Plan: p}, false, nil
	}
	return callPlan{Plan: p, key: key}, true, nil
}

// header is what the activity side needs to know of the call and cannot read
// from its activity.Info.
func (pl callPlan) header() wire.CallHeader {
	if pl.Class == "" {
		return wire.CallHeader{}
	}
	h := wire.CallHeader{
		Class:          pl.Class,
		IdempotencyKey: pl.key,
		SingleAttempt:  pl.SingleAttempt,
		MaxRetryAfter:  pl.Policy.Retry.MaxRetryAfter,
	}
	if pl.Idempotency != temporaladk.Undeclared {
		h.Idempotency = pl.Idempotency.String()
	}
	return h
}

func deriveKey(ctx workflow.Context, activityType string, keyFields []string, args []any) (string, error) {
	info := workflow.GetInfo(ctx)
	tenant, ok := vocab.TenantFrom(ctx)
	if !ok {
		tenant = info.Namespace
	}
	// The run is the workflow ID with the first run of its chain, so that
	// the key survives continue-as-new and workflow retries but not the reuse
	// of a workflow ID by a later run.
	run := info.WorkflowExecution.ID + "/" + info.FirstRunID
	return idemkey.DeriveCall(idemkey.Scope{Tenant: tenant, Run: run, Tool: activityType}, args, keyFields)
}
