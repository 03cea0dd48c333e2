package approvals

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/operatorservice/v1"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/temporaladk/adk-go/internal/approval"
	"github.com/temporaladk/adk-go/internal/budget"
	"github.com/temporaladk/adk-go/temporaladk"
)

// UpdateName is the workflow Update through which a decision reaches the
// run: its argument is a Request, its result none. The kit registers its
// handler, with a validator, in every workflow it runs.
const UpdateName = "temporaladk.approve"

// QueryName is the workflow Query that lists the run's pending approvals,
// a []Pending in the order the calls were made.
const QueryName = "temporaladk.approvals"

// DefaultTimeout is how long a call waits for its decision when neither its
// declaration (temporaladk.Declaration.ApprovalTimeout) nor its context
// (Options.Timeout) says.
const DefaultTimeout = 24 * time.Hour

// Pending is one call waiting for a decision, as the Query QueryName lists
// it.
type Pending struct {
	// WorkflowID, RunID and Chain (the first run ID of the run's chain of
	// continue-as-new runs) name the run the call began to wait in: a
	// signed decision covers them. A call carried across continue-as-new
	// keeps them (see "Continue-as-new" in the package doc), so a decision
	// signed in any run of its wait verifies in every later one.
	WorkflowID string `json:"workflow_id"`
	RunID      string `json:"run_id"`
	Chain      string `json:"chain"`
	// Runs are, for a call carried across continue-as-new, the runs of the
	// chain it has waited in: RunID first, the run that lists it now last.
	// Nil for a call that waits in the run it began in.
	Runs []string `json:"runs,omitempty"`
	// Call names the call in its run: "approval-N", N counting the run's
	// calls that waited for approval, in the order the workflow made them,
	// after the calls of the runs before it when one carried calls into it
	// (see "Continue-as-new" in the package doc).
	Call string `json:"call"`
	// ActivityID is the activity ID the call is scheduled with once
	// approved: Call, or the one the workflow set in its activity options.
	// A signed decision covers it, and the kit's activity side runs a grant
	// for that activity only, the first the run scheduled with it. Empty
	// for a local activity (it runs in the workflow worker's own process),
	// and for a call of a run recorded before approvers were recorded, whose
	// activity ID the SDK assigns.
	ActivityID string `json:"activity_id,omitempty"`
	// ActivityType is the activity the call runs once approved.
	ActivityType string `json:"activity_type"`
	// Class is the call's declared or tagged class; "" for none.
	Class temporaladk.Class `json:"class,omitempty"`
	// Digest is the SHA-256 of the canonical form of the call's arguments
	// (Digest): a decision names it, so that it releases this call with
	// these arguments and no other.
	Digest string `json:"digest"`
	// Summary says what the call does: the workflow's (Options.Summary),
	// else the kit's, which names the activity and no argument value.
	Summary string `json:"summary"`
	// Since is when the call began to wait, and Deadline when it is denied
	// if no decision came, in workflow time.
	Since    time.Time `json:"since"`
	Deadline time.Time `json:"deadline"`
	// Args are the call's arguments, as the client's data converter
	// decodes them from the Query's answer: a person sees what they
	// approve, and List checks that their digest is Digest.
	Args []any `json:"args"`
	// Approvers are who may decide the call and how many must approve.
	Approvers Approvers `json:"approvers"`
	// Approvals are the principals who approved the call so far, in the
	// order the run accepted them.
	Approvals []string `json:"approvals,omitempty"`
}

// Decision is what a person decides about one pending call.
type Decision struct {
	// Call and Digest name the call, as Pending does. Both must match.
	Call   string `json:"call"`
	Digest string `json:"digest"`
	// By names who decided; it must not be empty.
	By string `json:"by"`
	// Reason says why; optional. A denial carries it in its
	// *temporaladk.ApprovalDeniedError.
	Reason string `json:"reason,omitempty"`
}

// Request is the argument of the Update UpdateName: a Decision, whether it
// approves, said in so many words, and, for a call whose approvers are not
// open, the signature that proves its principal.
type Request struct {
	Decision
	// Approve is true to approve, false to deny. A request without it (nil,
	// "approve" missing from its JSON) is rejected.
	Approve *bool `json:"approve"`
	// Expires is when a signed decision stops being valid: the validator
	// compares it with the workflow's time (workflow.Now). Zero for an
	// unsigned one.
	Expires time.Time `json:"expires,omitzero"`
	// Key names the key that made Signature (PublicKey.ID, or what a
	// custom Verifier reads); "" for an unsigned decision.
	Key string `json:"key,omitempty"`
	// Signature is the proof over the decision's Statement: an ed25519
	// signature for the built-in verifier, whatever a custom Verifier reads
	// (a JWT, say). Nil for an unsigned decision.
	Signature []byte `json:"signature,omitempty"`
}

// Approves reports whether r approves; false for a denial or a request
// that says neither.
func (r Request) Approves() bool { return r.Approve != nil && *r.Approve }

// Validate checks the fields a request must have, naming the first that is
// missing.
func (r Request) Validate() error {
	switch {
	case r.Approve == nil:
		return errors.New(`the request says neither approve nor deny: add approve: true to approve or approve: false to deny (Request.Approve, JSON field approve, is missing)`)
	case strings.TrimSpace(r.Call) == "":
		return errors.New("the request names no call (Decision.Call is empty)")
	case strings.TrimSpace(r.Digest) == "":
		return errors.New("the request names no argument digest (Decision.Digest is empty)")
	case strings.TrimSpace(r.By) == "":
		return errors.New("the request names no approver (Decision.By is empty)")
	}
	return nil
}

// WorkerOptions say who may approve the calls that need an approval, and
// how the kit checks that they did: a worker's settings, given to the kit
// as interceptors.Options.Approvals. Options are a workflow's, for the
// calls made on one context.
type WorkerOptions struct {
	// Tools gives, for each activity interceptors.Options.Activities
	// declares RequiresApproval, who may approve its calls and how many
	// distinct principals must (NewApprovers), or open mode in so many
	// words (OpenApprovers). Every such activity needs an entry; an entry
	// for any other activity is an error. The workflow side records a
	// call's approvers when it begins to wait; the activity side checks a
	// call's grant against this worker's entry.
	Tools map[string]Approvers
	// Verifier checks signed decisions: in the approval Update's
	// validator, and again on the activity side, in the grant a call
	// carries. Required when any entry of Tools is not open. If not set,
	// every signed decision is rejected, so a WithApproval call with
	// signed approvers on a worker without one waits until its deadline.
	Verifier Verifier
	// SearchAttribute keeps the Bool search attribute of the constant
	// SearchAttribute true on a run while a call of it waits for approval,
	// and false after, so that an inbox finds the waiting runs (package
	// approvals/inbox). The attribute must be registered on the namespace
	// (RegisterSearchAttribute): the server refuses the run's upsert of an
	// unknown one and fails its workflow task. Each call records the
	// setting when it begins to wait, so changing it changes no recorded
	// run. If false, the kit sets no search attribute.
	SearchAttribute bool
}

// Options ask for an approval of the calls made on a context.
type Options struct {
	// Timeout is how long each call waits for its decision. If not set,
	// the declaration's ApprovalTimeout, else DefaultTimeout. Must not be
	// negative; for an activity declared RequiresApproval, not longer than
	// its declared timeout (see "A call may narrow its declaration" in the
	// package doc), or the call fails.
	Timeout time.Duration
	// Summary is what a person reads about the call in List and the Web UI.
	// If not set, the kit's, which names the activity and holds no argument
	// value: a summary the workflow sets may hold some, and is shown as it
	// is.
	Summary string
	// Approvers are who may decide the calls and how many must approve. If
	// not set, the declaration's (WorkerOptions.Tools); a
	// call of an activity without one then fails, naming this field. For an
	// activity declared RequiresApproval they may only narrow the declared
	// approvers (a subset of its principals, never open where they are not,
	// at least as many approvals), or the call fails.
	Approvers Approvers
}

// WithApproval returns a context on which every activity call waits for an
// approval before its first attempt, as a declaration's RequiresApproval
// makes every call of its activity wait; for a call of a declared activity
// it sets the summary, and may narrow the declared approvers and wait,
// never widen them (see "A call may narrow its declaration" in the package
// doc: a call whose options widen them fails). Workflow
// code only; a negative timeout and a nil ctx are errors. Without the kit's
// interceptor in the running workflow it panics, which fails the workflow
// task so that a worker with the kit retries it: a gate nobody enforces
// would let the call run unapproved.
func WithApproval(ctx workflow.Context, opts Options) (workflow.Context, error) {
	if ctx == nil {
		return nil, errors.New("approvals: WithApproval: ctx is nil: pass the workflow's context")
	}
	budget.Require(ctx, "approvals.WithApproval")
	if opts.Timeout < 0 {
		return ctx, fmt.Errorf("approvals: WithApproval: Timeout is %v: it must not be negative (zero uses the declaration's or %v)", opts.Timeout, DefaultTimeout)
	}
	if !opts.Approvers.IsZero() {
		if err := opts.Approvers.Validate(); err != nil {
			return ctx, fmt.Errorf("approvals: WithApproval: Options.%s", strings.TrimPrefix(err.Error(), "approvals: "))
		}
	}
	return approval.With(ctx, approval.Call{Timeout: opts.Timeout, Summary: opts.Summary,
		Principals: slices.Clone(opts.Approvers.Principals), Required: opts.Approvers.Required, Open: opts.Approvers.Open}), nil
}

// Digest returns the digest of a call made with args, as Pending.Digest
// holds it: the SHA-256, in hex, of their canonical form, the one the kit's
// idempotency keys hash (map keys sorted, numbers in one form). A client
// that knows the arguments it means to approve checks with it that a
// pending call is that one. Arguments JSON cannot encode are an error.
func Digest(args ...any) (string, error) {
	d, err := approval.Digest(args)
	if err != nil {
		return "", fmt.Errorf("approvals: Digest: %w", err)
	}
	return d, nil
}

// List returns the pending approvals of the current run of workflowID,
// through the Query QueryName.
func List(ctx context.Context, c client.Client, workflowID string) ([]Pending, error) {
	if err := checkTarget(c, workflowID); err != nil {
		return nil, fmt.Errorf("approvals: List: %w", err)
	}
	v, err := c.QueryWorkflow(ctx, workflowID, "", QueryName)
	if err != nil {
		return nil, fmt.Errorf("approvals: List of workflow %q: %w", workflowID, err)
	}
	var out []Pending
	if err := v.Get(&out); err != nil {
		return nil, fmt.Errorf("approvals: List of workflow %q: decoding the answer: %w", workflowID, err)
	}
	for _, p := range out {
		// The digest is checked here, on the arguments as this client
		// decoded them: what a person reads is what a decision releases.
		d, err := approval.Digest(p.Args)
		if err != nil || d != p.Digest {
			return nil, fmt.Errorf("approvals: List of workflow %q: the arguments of call %s as this client decodes them have digest %s, not the listed %s (%v): check that the client's data converter is the worker's", workflowID, p.Call, d, p.Digest, err)
		}
	}
	return out, nil
}

// WaitPending waits until the current run of workflowID has at least n
// approvals pending and returns them, as List does: what an approver calls
// instead of a loop of its own around List. It asks again every
// waitPendingInterval, also when the server answers that the Query timed
// out before a worker could process it (a worker that is starting or
// busy: the run is not known to have nothing pending); a run that closes
// first, or ctx ending, is an error saying so. n must be at least 1.
func WaitPending(ctx context.Context, c client.Client, workflowID string, n int) ([]Pending, error) {
	if err := checkTarget(c, workflowID); err != nil {
		return nil, fmt.Errorf("approvals: WaitPending: %w", err)
	}
	if n < 1 {
		return nil, fmt.Errorf("approvals: WaitPending: n is %d: it must be at least 1", n)
	}
	for {
		pending, err := List(ctx, c, workflowID)
		var unanswered *serviceerror.DeadlineExceeded
		switch {
		case err != nil && errors.As(err, &unanswered) && ctx.Err() == nil:
			// No worker answered in the server's time: ask again.
		case err != nil:
			return nil, err
		case len(pending) >= n:
			return pending, nil
		}
		desc, err := c.DescribeWorkflowExecution(ctx, workflowID, "")
		if err != nil {
			return nil, fmt.Errorf("approvals: WaitPending of workflow %q: %w", workflowID, err)
		}
		if status := desc.GetWorkflowExecutionInfo().GetStatus(); status != enumspb.WORKFLOW_EXECUTION_STATUS_RUNNING {
			return nil, fmt.Errorf("approvals: WaitPending of workflow %q: the run closed (%s) with %d of %d approvals pending", workflowID, status, len(pending), n)
		}
		t := time.NewTimer(waitPendingInterval)
		select {
		case <-ctx.Done():
			t.Stop()
			return nil, fmt.Errorf("approvals: WaitPending of workflow %q: %d of %d approvals pending: %w", workflowID, len(pending), n, ctx.Err())
		case <-t.C:
		}
	}
}

// waitPendingInterval is how long WaitPending waits between two asks: a
// person is waiting, and each ask is one Query and one describe.
const waitPendingInterval = 100 * time.Millisecond

// Approve sends an unsigned approval of the pending call d names in the
// current run of workflowID, for a call whose approvers are open
// (OpenApprovers): once its approvals are enough, it runs under its normal
// policy. It returns once the run has recorded the decision. A decision
// the run's validator rejects (a temporaladk.ApprovalRejectedError) is an
// error and changes nothing. A signed decision is sent with Decide.
func Approve(ctx context.Context, c client.Client, workflowID string, d Decision) error {
	return Decide(ctx, c, workflowID, Request{Decision: d, Approve: new(true)})
}

// Deny sends an unsigned denial, as Approve does: the pending call d names
// ends with a *temporaladk.ApprovalDeniedError carrying d.By and d.Reason;
// the call never runs.
func Deny(ctx context.Context, c client.Client, workflowID string, d Decision) error {
	return Decide(ctx, c, workflowID, Request{Decision: d, Approve: new(false)})
}

// Decide sends req, signed (Signer.Approve, Signer.Deny) or not, to the
// current run of workflowID, and returns once the run has recorded it. A
// request the run's validator rejects (a temporaladk.ApprovalRejectedError,
// found with errors.As on temporaladk.FromApplicationError of the error) is
// an error and changes nothing.
func Decide(ctx context.Context, c client.Client, workflowID string, req Request) error {
	verb := "Deny"
	if req.Approves() {
		verb = "Approve"
	}
	if err := checkTarget(c, workflowID); err != nil {
		return fmt.Errorf("approvals: %s: %w", verb, err)
	}
	if err := req.Validate(); err != nil {
		return fmt.Errorf("approvals: %s: %w", verb, err)
	}
	h, err := c.UpdateWorkflow(ctx, client.UpdateWorkflowOptions{
		WorkflowID:   workflowID,
		UpdateName:   UpdateName,
		Args:         []any{req},
		WaitForStage: client.WorkflowUpdateStageCompleted,
	})
	if err == nil {
		err = h.Get(ctx, nil)
	}
	if err != nil {
		return fmt.Errorf("approvals: %s %s of workflow %q: %w", verb, req.Call, workflowID, err)
	}
	return nil
}

func checkTarget(c client.Client, workflowID string) error {
	switch {
	case c == nil:
		return errors.New("the client is nil")
	case strings.TrimSpace(workflowID) == "":
		return errors.New("the workflow ID is empty")
	}
	return nil
}

// SearchAttribute is the Bool search attribute the kit keeps true on a run
// while a call of it waits for approval, when the worker asks for it
// (WorkerOptions.SearchAttribute): the inbox (package
// approvals/inbox) lists the runs where it is true. Register it on the
// namespace first: RegisterSearchAttribute, `temporal operator
// search-attribute create --name AdkApprovalPending --type Bool`,
// or a dev server's `--search-attribute AdkApprovalPending=Bool`. Its
// name does not begin with "Temporal": the server reserves those.
const SearchAttribute = "AdkApprovalPending"

// SearchAttributeKey is SearchAttribute as a typed key.
var SearchAttributeKey = temporal.NewSearchAttributeKeyBool(SearchAttribute)

// WaitingQuery is the visibility query of the runs that have a call
// waiting for approval.
const WaitingQuery = SearchAttribute + " = true AND ExecutionStatus = 'Running'"

// RegisterSearchAttribute registers SearchAttribute on namespace, through
// the client's operator service; one already registered as a Bool is no
// error.
func RegisterSearchAttribute(ctx context.Context, c client.Client, namespace string) error {
	if c == nil {
		return errors.New("approvals: RegisterSearchAttribute: the client is nil")
	}
	if strings.TrimSpace(namespace) == "" {
		return errors.New("approvals: RegisterSearchAttribute: the namespace is empty")
	}
	have, err := c.OperatorService().ListSearchAttributes(ctx, &operatorservice.ListSearchAttributesRequest{Namespace: namespace})
	if err != nil {
		return fmt.Errorf("approvals: RegisterSearchAttribute: listing the search attributes of %q: %w", namespace, err)
	}
	if t, ok := have.GetCustomAttributes()[SearchAttribute]; ok {
		if t != enumspb.INDEXED_VALUE_TYPE_BOOL {
			return fmt.Errorf("approvals: RegisterSearchAttribute: %s is registered on %q as %v, not Bool", SearchAttribute, namespace, t)
		}
		return nil
	}
	if _, err := c.OperatorService().AddSearchAttributes(ctx, &operatorservice.AddSearchAttributesRequest{
		Namespace: namespace, SearchAttributes: map[string]enumspb.IndexedValueType{SearchAttribute: enumspb.INDEXED_VALUE_TYPE_BOOL},
	}); err != nil {
		return fmt.Errorf("approvals: RegisterSearchAttribute: adding %s to %q: %w", SearchAttribute, namespace, err)
	}
	return nil
}
