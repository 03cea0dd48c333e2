package observe

import (
	"time"

	"go.temporal.io/sdk/converter"

	"github.com/temporaladk/adk-go/spend"
	"github.com/temporaladk/adk-go/temporaladk"
)

// Call is an activity call as the kit schedules it (CallPlanned): its plan
// applied, and the options the server records in the call's
// ActivityTaskScheduled event.
type Call struct {
	// ActivityType is the activity's type name.
	ActivityType string
	// Seq numbers the call among the activities the kit scheduled in its
	// run, from 1, in the order scheduled: the same on every worker and in
	// every replay. Local activities are numbered apart, from 1 too.
	Seq int
	// Local is true for a local activity.
	Local bool
	// Class is the call's class; "" for a call the kit left alone.
	Class temporaladk.Class
	// Idempotency is the activity's declaration; Undeclared also for an
	// activity without one.
	Idempotency temporaladk.Idempotency
	// Key is the call's idempotency key (given with
	// temporaladk.WithIdempotencyKey, or derived: a hash), "" for none.
	Key string
	// SingleAttempt is true for a tool treated as effectful and called
	// without a key: its one attempt is all it gets.
	SingleAttempt bool
	// Budget is the call's name in its run's budgets (call-1, ...); "" for
	// a call under no budget of its run.
	Budget string
	// BudgetBound is true when MaxAttempts was held to what the call's
	// budgets had left when it was scheduled.
	BudgetBound bool
	// MaxTokens and Model are the cap each attempt reserves and the model
	// it is priced at, for a MODEL call under a token or cost budget; zero
	// for any other call.
	MaxTokens int64
	Model     string
	// Owner is, for a call of a child workflow started under a budget, the
	// run that charges every attempt of it too; nil for none.
	Owner *Owner
	// StartToClose, ScheduleToClose, ScheduleToStart and Heartbeat are the
	// call's timeouts; zero for one the call leaves to the server.
	StartToClose    time.Duration
	ScheduleToClose time.Duration
	ScheduleToStart time.Duration
	Heartbeat       time.Duration
	// MaxAttempts is the attempt count of the call's retry policy, the
	// first included: 0 for unlimited.
	MaxAttempts int
	// InitialInterval, BackoffCoefficient and MaxInterval are its retry
	// policy's backoff, with the server's defaults for what it leaves unset
	// (1 s, 2, and 100 times InitialInterval).
	InitialInterval    time.Duration
	BackoffCoefficient float64
	MaxInterval        time.Duration
}

// Owner names the run a child's call is charged to (Call.Owner).
type Owner struct {
	// WorkflowID and RunID name the run whose budgets charge the call.
	WorkflowID, RunID string
	// Delegation names the budgets there the child was started under.
	Delegation string
	// Call is the call's name in that run's budgets, the name its Charge
	// events carry there.
	Call string
}

// CallOutcome is how a call ended.
type CallOutcome string

// The outcomes of a call.
const (
	// CallCompleted is a call whose future resolved with a result.
	CallCompleted CallOutcome = "completed"
	// CallFailed is a call that failed (its last attempt, a budget's
	// refusal, ...).
	CallFailed CallOutcome = "failed"
	// CallTimedOut is a call that ended with a timeout.
	CallTimedOut CallOutcome = "timed out"
	// CallCanceled is a call cancelled before it ended.
	CallCanceled CallOutcome = "canceled"
)

// CallEnd is how a planned call ended (CallEnded).
type CallEnd struct {
	// Outcome is how it ended.
	Outcome CallOutcome
	// Err is the error its future resolved with; nil when it completed.
	Err error
	// ErrorType is the kit error's type (temporaladk.Error Type), else the
	// ApplicationError's type, else the timeout's type (StartToClose, ...);
	// "" when it completed.
	ErrorType string
	// Attempts is how many attempts the call had, where the run knows it:
	// a call under a ceiling on attempts or a pool of retries is charged
	// each one. 0 when the workflow cannot know it (the server records it
	// in the call's ActivityTaskStarted event, which workflow code does not
	// see; package observe/recorded reads it there).
	Attempts int
	// Result is the call's result as the workflow received it from history
	// (after the data converter's codec, before it is decoded); its Payload
	// is nil when the call failed or returned nothing.
	Result converter.RawValue
}

// ApprovalOutcome is how the wait for an approval ended.
type ApprovalOutcome string

// The outcomes of an approval.
const (
	// ApprovalGranted: the approvals its approvers require were given.
	ApprovalGranted ApprovalOutcome = "granted"
	// ApprovalRejected: an approver denied the call.
	ApprovalRejected ApprovalOutcome = "rejected"
	// ApprovalExpired: no decision came before the call's deadline.
	ApprovalExpired ApprovalOutcome = "expired"
)

// Approval is a call waiting for a decision (ApprovalAsked), as the
// approvals Query lists it.
type Approval struct {
	// Call is the call's approval ID in its run (approval-1, ...), which
	// a decision names.
	Call string
	// ActivityType and Class are the call's.
	ActivityType string
	Class        temporaladk.Class
	// Digest is the digest of the call's arguments, which a decision
	// names; Summary what a person is shown.
	Digest  string
	Summary string
	// Since and Deadline are when the wait began and when it expires, in
	// workflow time.
	Since, Deadline time.Time
	// Required is how many distinct approvals the call needs; Principals
	// who may give them, nil when anyone may.
	Required   int
	Principals []string
}

// Decision is how the wait for an approval ended (ApprovalDecided).
type Decision struct {
	// Outcome is granted, rejected or expired.
	Outcome ApprovalOutcome
	// By is who decided: the approver whose approval made the count, or
	// who denied the call; "" when it expired.
	By string
	// Reason is the denial's reason, or why it expired.
	Reason string
	// Approvals are the principals who approved, in the order accepted.
	Approvals []string
	// Waited is how long the call waited, in workflow time.
	Waited time.Duration
}

// Reservation is an attempt's most, reserved against a token or cost
// budget before the attempt runs (TokensReserved).
type Reservation struct {
	// ActivityType is the call's activity type; "" when the run does not
	// know it (a child workflow's call charged at its owner).
	ActivityType string
	// Class is the call's class.
	Class temporaladk.Class
	// Call is the call's name in the run's budgets; Attempt the attempt
	// reserved, 1 for the first.
	Call    string
	Attempt int
	// Model and MaxTokens are what the reservation was made with:
	// MaxTokens against a token budget, MaxTokens at Price's highest rate
	// against a cost budget. Price is nil without a cost budget.
	Model     string
	MaxTokens int64
	Price     *spend.Price
}

// Settlement is an attempt's reservation settled (UsageSettled).
type Settlement struct {
	// ActivityType, Class, Call and Attempt name the attempt, as its
	// Reservation did.
	ActivityType string
	Class        temporaladk.Class
	Call         string
	Attempt      int
	// Usage is what the attempt reported; nil when it reported none, or
	// ended without settling: its whole reservation is then spent.
	Usage *spend.Usage
	// Succeeded is true when the attempt succeeded.
	Succeeded bool
	// Unsettled is true when the attempt ended without settling, and the
	// next attempt's reservation spent its whole reservation.
	Unsettled bool
}
