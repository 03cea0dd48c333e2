// Package approvals is human approval before an effectful tool runs: the
// client side (List, Approve, Deny on a client.Client and a workflow ID, so
// that a stateless web handler needs nothing else) and the workflow side's
// per-call request (WithApproval).
//
// A tool declares it once, at registration:
//
//	interceptors.Options{Activities: map[string]temporaladk.Declaration{
//		"BookSeat": {Class: temporaladk.Tool, Idempotency: temporaladk.Effectful,
//			RequiresApproval: true, ApprovalTimeout: 4 * time.Hour},
//	}}
//
// The workflow code that calls it does not change. A tool that needs an
// approval only sometimes is called on a context from WithApproval, which
// can also give the call a summary a person reads.
//
// # In the workflow
//
// The kit's workflow interceptor gates the call before anything else: no
// plan, no budget charge, no command for the activity. The call gets an ID,
// "approval-N" in the order the run made such calls (the same on replay),
// and the digest of its arguments (Digest: SHA-256 of their canonical form,
// the one the kit's idempotency keys hash). ExecuteActivity returns its
// future at once; a coroutine waits (workflow.AwaitWithOptions, a timer of
// the call's timeout: ApprovalTimeout, Options.Timeout, else DefaultTimeout,
// 24 hours) for a decision through the Update UpdateName:
//   - approved: the call is scheduled then, under its normal policy, its
//     budgets charged then, and its future settles with the activity's
//     outcome;
//   - denied: the future fails with a *temporaladk.ApprovalDeniedError with
//     the approver and reason; the call never runs;
//   - no decision by the deadline: the same error, Reason "timed out: no
//     decision within <timeout>".
//
// Both errors are never retried. A cancelled workflow context ends the wait
// with a CanceledError.
//
// The Update's validator rejects, before anything enters history, a
// request without a call, digest or approver, one that names no waiting
// call, one for a call already decided or timed out, and one whose digest is
// not the call's: an approval given for one set of arguments releases no
// other. Rejections are ApplicationErrors of type TypeRejected. An accepted
// decision is an accepted Update in the run's history: a replay, on this
// worker or another after a crash or a deploy, reads it there and never asks
// again; any worker of the fleet that runs the workflow's task serves the
// Update and the Query.
//
// The Query QueryName lists the waiting calls (Pending: ID, activity type,
// class, digest, summary, since, deadline). The kit's summary is "<class>
// <activity type>" and holds no argument value; one given with
// Options.Summary is shown as it is. While calls wait, the kit writes them
// into the workflow's current details (workflow.SetCurrentDetails), which
// the Web UI shows, and clears them when none waits; a workflow that sets
// its own details shares that field with the kit. The interceptors package's
// metrics count requests, decisions (approved, denied, timed_out) and the
// wait (interceptors.MetricApprovalsRequested, MetricApprovalDecisions,
// MetricApprovalWait).
//
// # Continue-as-new
//
// A pending approval is not carried to the next run: the call it releases
// is this run's, and its future cannot cross. conversation.ContinueAsNew
// waits until no call of the run waits for its decision (each is approved
// and scheduled, denied or timed out) before it returns the
// continue-as-new error.
//
// # From a client
//
//	pending, err := approvals.List(ctx, c, workflowID)
//	// show pending[0].Summary to a person, then:
//	err = approvals.Approve(ctx, c, workflowID, approvals.Decision{
//		Call: pending[0].Call, Digest: pending[0].Digest, By: "ana@example.com"})
//
// The decisions target the workflow's current run. A client that knows the
// arguments it means to approve compares Digest(args...) with the listed
// digest first.
package approvals
