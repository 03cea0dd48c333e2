package temporaladk

// The stable Temporal ApplicationError types of the failures the kit makes
// itself, before the user's code runs, in the scheme of every kit type
// ("Temporaladk" and the Go type's name without "Error"): the strings the
// server has recorded since before the failures had Go types.
const (
	// TypeBadCallHeader is the type of BadCallHeaderError.
	TypeBadCallHeader = "TemporaladkBadCallHeader"
	// TypeBudgetUnavailable is the type of BudgetUnavailableError.
	TypeBudgetUnavailable = "TemporaladkBudgetUnavailable"
	// TypeRunOutOfUpdates is the type of RunOutOfUpdatesError.
	TypeRunOutOfUpdates = "TemporaladkRunOutOfUpdates"
	// TypeBudgetClosed is the type of BudgetClosedError.
	TypeBudgetClosed = "TemporaladkBudgetClosed"
	// TypeMisconfigured is the type of MisconfiguredError.
	TypeMisconfigured = "TemporaladkMisconfigured"
	// TypeRetryRefused is the type of RetryRefusedError.
	TypeRetryRefused = "TemporaladkRetryRefused"
	// TypeModelUnpriced is the type of ModelUnpricedError.
	TypeModelUnpriced = "TemporaladkModelUnpriced"
	// TypeApprovalRejected is the type of ApprovalRejectedError.
	TypeApprovalRejected = "TemporaladkApprovalRejected"
	// TypeApprovalNotGranted is the type of ApprovalNotGrantedError.
	TypeApprovalNotGranted = "TemporaladkApprovalNotGranted"
)

// BadCallHeaderError is a call whose kit header does not decode or names an
// unknown class (the activity header temporaladk-call), or a run whose chain
// header (temporaladk-chain) does not decode. Not retried: another attempt
// reads the same header.
type BadCallHeaderError struct {
	// Message says what happened and what to change; the ApplicationError
	// the server records has it as its message.
	Message string `json:"message,omitempty"`
}

// Error returns Message, or a sentence saying what failed when it is
// empty.
func (e *BadCallHeaderError) Error() string {
	if e == nil {
		return "<nil *temporaladk.BadCallHeaderError>"
	}
	return ownMessage(e.Message, "temporaladk: the kit's header does not decode")
}

// Retryable is its row of the error table: always false.
func (e *BadCallHeaderError) Retryable() bool { return decideRetryable(e) }

// Type returns TypeBadCallHeader.
func (e *BadCallHeaderError) Type() string { return TypeBadCallHeader }

func (e *BadCallHeaderError) setMessage(msg string) { e.Message = msg }

// BudgetUnavailableError is a budgeted attempt whose charge got no answer
// in time (the workflow's worker or the server was away): the attempt does
// not run the user's code, since it is not charged, and is retried after
// the error table's fixed wait (1 s), so that the next attempt asks again.
// It spends an attempt of the retry policy, never one of the budget.
type BudgetUnavailableError struct {
	// Message says what happened and what to change; the ApplicationError
	// the server records has it as its message.
	Message string `json:"message,omitempty"`
	// Cause is the attempt's own failure when it ran (the failure that asked
	// for the attempt that could not be charged), or nil.
	Cause error `json:"-"`
}

// Error returns Message, or a sentence saying what failed when it is
// empty. It does not repeat the cause: the ApplicationError that carries
// the failure prints the cause after the message.
func (e *BudgetUnavailableError) Error() string {
	if e == nil {
		return "<nil *temporaladk.BudgetUnavailableError>"
	}
	return ownMessage(e.Message, "temporaladk: the attempt's charge got no answer in time")
}

// Retryable is its row of the error table: always true.
func (e *BudgetUnavailableError) Retryable() bool { return decideRetryable(e) }

// Type returns TypeBudgetUnavailable.
func (e *BudgetUnavailableError) Type() string { return TypeBudgetUnavailable }

func (e *BudgetUnavailableError) setMessage(msg string) { e.Message = msg }

// Unwrap returns the attempt's own failure.
func (e *BudgetUnavailableError) Unwrap() error {
	if e == nil {
		return nil
	}
	return e.Cause
}

// RunOutOfUpdatesError is a budgeted attempt that could not be charged
// because the run holding its budget has accepted all the Updates the
// server accepts of one run (history.maxTotalUpdates, 2,000 by default):
// "this run has no Updates left; continue as new". Not retried: no later
// attempt could be charged either. conversation.ShouldContinueAsNew says
// when to continue before it happens.
type RunOutOfUpdatesError struct {
	// Message says what happened and what to change; the ApplicationError
	// the server records has it as its message.
	Message string `json:"message,omitempty"`
	// Cause is the attempt's own failure when it ran (the failure that asked
	// for the attempt that could not be charged), or nil.
	Cause error `json:"-"`
}

// Error returns Message, or a sentence saying what failed when it is
// empty. It does not repeat the cause: the ApplicationError that carries
// the failure prints the cause after the message.
func (e *RunOutOfUpdatesError) Error() string {
	if e == nil {
		return "<nil *temporaladk.RunOutOfUpdatesError>"
	}
	return ownMessage(e.Message, "temporaladk: this run has no Updates left; continue as new")
}

// Retryable is its row of the error table: always false.
func (e *RunOutOfUpdatesError) Retryable() bool { return decideRetryable(e) }

// Type returns TypeRunOutOfUpdates.
func (e *RunOutOfUpdatesError) Type() string { return TypeRunOutOfUpdates }

func (e *RunOutOfUpdatesError) setMessage(msg string) { e.Message = msg }

// Unwrap returns the attempt's own failure.
func (e *RunOutOfUpdatesError) Unwrap() error {
	if e == nil {
		return nil
	}
	return e.Cause
}

// BudgetClosedError is a budgeted attempt that could not be charged
// because the run holding its budget has closed, or handed its budgets to
// the run it continued as new. Not retried: nothing can be charged there
// any more. A child workflow that outlives the parent run that started it
// under a budget (ParentClosePolicy abandon) meets it.
type BudgetClosedError struct {
	// Message says what happened and what to change; the ApplicationError
	// the server records has it as its message.
	Message string `json:"message,omitempty"`
	// Cause is the attempt's own failure when it ran (the failure that asked
	// for the attempt that could not be charged), or nil.
	Cause error `json:"-"`
}

// Error returns Message, or a sentence saying what failed when it is
// empty. It does not repeat the cause: the ApplicationError that carries
// the failure prints the cause after the message.
func (e *BudgetClosedError) Error() string {
	if e == nil {
		return "<nil *temporaladk.BudgetClosedError>"
	}
	return ownMessage(e.Message, "temporaladk: the run that holds this call's budget has closed")
}

// Retryable is its row of the error table: always false.
func (e *BudgetClosedError) Retryable() bool { return decideRetryable(e) }

// Type returns TypeBudgetClosed.
func (e *BudgetClosedError) Type() string { return TypeBudgetClosed }

func (e *BudgetClosedError) setMessage(msg string) { e.Message = msg }

// Unwrap returns the attempt's own failure.
func (e *BudgetClosedError) Unwrap() error {
	if e == nil {
		return nil
	}
	return e.Cause
}

// MisconfiguredError is a call the kit refuses because the fleet or the
// call is set up wrong (the kit registered twice, or not through its
// plugin; a metered local activity; a call the kit cannot plan). Not
// retried: every attempt would meet the same setup. Message says what to
// change.
type MisconfiguredError struct {
	// Message says what happened and what to change; the ApplicationError
	// the server records has it as its message.
	Message string `json:"message,omitempty"`
}

// Error returns Message, or a sentence saying what failed when it is
// empty.
func (e *MisconfiguredError) Error() string {
	if e == nil {
		return "<nil *temporaladk.MisconfiguredError>"
	}
	return ownMessage(e.Message, "temporaladk: the call is set up wrong")
}

// Retryable is its row of the error table: always false.
func (e *MisconfiguredError) Retryable() bool { return decideRetryable(e) }

// Type returns TypeMisconfigured.
func (e *MisconfiguredError) Type() string { return TypeMisconfigured }

func (e *MisconfiguredError) setMessage(msg string) { e.Message = msg }

// RetryRefusedError is a retry the activity side refuses before the
// user's code runs: a call this worker declares effectful, made without an
// idempotency key, whose retry policy (set by a workflow worker without the
// kit, or with other declarations) allowed a second attempt. Not retried:
// the first attempt may have made its effect.
type RetryRefusedError struct {
	// Message says what happened and what to change; the ApplicationError
	// the server records has it as its message.
	Message string `json:"message,omitempty"`
}

// Error returns Message, or a sentence saying what failed when it is
// empty.
func (e *RetryRefusedError) Error() string {
	if e == nil {
		return "<nil *temporaladk.RetryRefusedError>"
	}
	return ownMessage(e.Message, "temporaladk: a retry of a call that gets one attempt, refused before it runs")
}

// Retryable is its row of the error table: always false.
func (e *RetryRefusedError) Retryable() bool { return decideRetryable(e) }

// Type returns TypeRetryRefused.
func (e *RetryRefusedError) Type() string { return TypeRetryRefused }

func (e *RetryRefusedError) setMessage(msg string) { e.Message = msg }

// ModelUnpricedError is an attempt of a MODEL call under a cost budget
// whose model has no price in the worker's price table
// (interceptors.Options.Prices). Not retried: every attempt would read the
// same table; nothing is reserved. Message names the model.
type ModelUnpricedError struct {
	// Message says what happened and what to change; the ApplicationError
	// the server records has it as its message.
	Message string `json:"message,omitempty"`
	// Cause is the attempt's own failure when it ran (the failure that asked
	// for the attempt that could not be charged), or nil.
	Cause error `json:"-"`
}

// Error returns Message, or a sentence saying what failed when it is
// empty. It does not repeat the cause: the ApplicationError that carries
// the failure prints the cause after the message.
func (e *ModelUnpricedError) Error() string {
	if e == nil {
		return "<nil *temporaladk.ModelUnpricedError>"
	}
	return ownMessage(e.Message, "temporaladk: the model has no price in the worker's price table")
}

// Retryable is its row of the error table: always false.
func (e *ModelUnpricedError) Retryable() bool { return decideRetryable(e) }

// Type returns TypeModelUnpriced.
func (e *ModelUnpricedError) Type() string { return TypeModelUnpriced }

func (e *ModelUnpricedError) setMessage(msg string) { e.Message = msg }

// Unwrap returns the attempt's own failure.
func (e *ModelUnpricedError) Unwrap() error {
	if e == nil {
		return nil
	}
	return e.Cause
}

// ApprovalRejectedError is the approval Update's validator rejecting a
// Request (one that says neither approve nor deny, an unknown call, a call
// already decided or timed out, a digest that is not the call's, a request
// without its approver, and, for a call whose approvers are not open, a
// principal not among them, a decision without a signature, one that does
// not verify, one that has expired, a second approval by the same
// principal), or a gated call that has no approvers, or whose
// approvals.WithApproval options widen its activity's declaration. A
// rejected Update is not written to the run's history. Not retried.
type ApprovalRejectedError struct {
	// Message says what happened and what to change; the ApplicationError
	// the server records has it as its message.
	Message string `json:"message,omitempty"`
}

// Error returns Message, or a sentence saying what failed when it is
// empty.
func (e *ApprovalRejectedError) Error() string {
	if e == nil {
		return "<nil *temporaladk.ApprovalRejectedError>"
	}
	return ownMessage(e.Message, "temporaladk: approval rejected")
}

// Retryable is its row of the error table: always false.
func (e *ApprovalRejectedError) Retryable() bool { return decideRetryable(e) }

// Type returns TypeApprovalRejected.
func (e *ApprovalRejectedError) Type() string { return TypeApprovalRejected }

func (e *ApprovalRejectedError) setMessage(msg string) { e.Message = msg }

// ApprovalNotGrantedError is the kit's activity side refusing a call that
// needs an approval (its activity is declared RequiresApproval on the
// worker, or its call header says it was made on an approvals.WithApproval
// context) and carries no grant bound to it: none at all (its workflow
// worker runs without the kit's plugin), one for another workflow, run,
// activity, activity ID or arguments, one that names no activity ID, a
// copy of a grant on a second activity its run scheduled with the same
// activity ID, or one without enough approvals that verify on this worker.
// Not retried: another attempt would carry the same grant.
type ApprovalNotGrantedError struct {
	// Message says what happened and what to change; the ApplicationError
	// the server records has it as its message.
	Message string `json:"message,omitempty"`
}

// Error returns Message, or a sentence saying what failed when it is
// empty.
func (e *ApprovalNotGrantedError) Error() string {
	if e == nil {
		return "<nil *temporaladk.ApprovalNotGrantedError>"
	}
	return ownMessage(e.Message, "temporaladk: the call carries no approval grant bound to it")
}

// Retryable is its row of the error table: always false.
func (e *ApprovalNotGrantedError) Retryable() bool { return decideRetryable(e) }

// Type returns TypeApprovalNotGranted.
func (e *ApprovalNotGrantedError) Type() string { return TypeApprovalNotGranted }

func (e *ApprovalNotGrantedError) setMessage(msg string) { e.Message = msg }

// ownMessage is the text of one of the kit's own failures: its message, or
// what failed when it has none.
func ownMessage(msg, what string) string {
	if msg == "" {
		return what
	}
	return msg
}

// messageCarrier is one of the kit's own failures, whose fields are its
// message (and its cause): rebuilt from an ApplicationError recorded without
// details, it takes the ApplicationError's message.
type messageCarrier interface {
	setMessage(msg string)
}
