package approvals

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"go.temporal.io/sdk/client"
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

// TypeRejected is the ApplicationError type of the validator's rejection of
// a Request: an unknown call, a call already decided or timed out, a digest
// that is not the call's, or a request without its approver. A rejected
// Update is not written to the run's history.
const TypeRejected = "TemporaladkApprovalRejected"

// Pending is one call waiting for a decision, as the Query QueryName lists
// it.
type Pending struct {
	// Call names the call in its run: "approval-N", N counting the run's
	// calls that waited for approval, in the order the workflow made them.
	Call string `json:"call"`
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

// Request is the argument of the Update UpdateName: a Decision, and whether
// it approves.
type Request struct {
	Decision
	Approve bool `json:"approve"`
}

// Validate checks the fields a request must have, naming the first that is
// missing.
func (r Request) Validate() error {
	switch {
	case strings.TrimSpace(r.Call) == "":
		return errors.New("the request names no call (Decision.Call is empty)")
	case strings.TrimSpace(r.Digest) == "":
		return errors.New("the request names no argument digest (Decision.Digest is empty)")
	case strings.TrimSpace(r.By) == "":
		return errors.New("the request names no approver (Decision.By is empty)")
	}
	return nil
}

// Options ask for an approval of the calls made on a context.
type Options struct {
	// Timeout is how long each call waits for its decision. If not set,
	// the declaration's ApprovalTimeout, else DefaultTimeout. Must not be
	// negative.
	Timeout time.Duration
	// Summary is what a person reads about the call in List and the Web UI.
	// If not set, the kit's, which names the activity and holds no argument
	// value: a summary the workflow sets may hold some, and is shown as it
	// is.
	Summary string
}

// WithApproval returns a context on which every activity call waits for an
// approval before its first attempt, as a declaration's RequiresApproval
// makes every call of its activity wait; for a call of a declared activity
// it sets the summary, and the wait when Options.Timeout is set. Workflow
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
	return approval.With(ctx, approval.Call{Timeout: opts.Timeout, Summary: opts.Summary}), nil
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
	return out, nil
}

// Approve releases the pending call d names in the current run of
// workflowID: it then runs under its normal policy. It returns once the run
// has recorded the decision. A decision the run's validator rejects (see
// TypeRejected) is an error and changes nothing.
func Approve(ctx context.Context, c client.Client, workflowID string, d Decision) error {
	return decide(ctx, c, workflowID, Request{Decision: d, Approve: true})
}

// Deny ends the pending call d names in the current run of workflowID with
// a *temporaladk.ApprovalDeniedError carrying d.By and d.Reason; the call
// never runs. Rejections are errors, as for Approve.
func Deny(ctx context.Context, c client.Client, workflowID string, d Decision) error {
	return decide(ctx, c, workflowID, Request{Decision: d, Approve: false})
}

func decide(ctx context.Context, c client.Client, workflowID string, req Request) error {
	verb := "Deny"
	if req.Approve {
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
