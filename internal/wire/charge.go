package wire

import (
	"context"

	"github.com/temporaladk/adk-go/spend"
	"github.com/temporaladk/adk-go/temporaladk"
)

// ChargeUpdateName is the workflow Update through which the activity side
// asks a run to charge retries of its budgeted calls, before they run. Its
// argument is a []ChargeRequest and its result the []ChargeResult answering
// them in order: a worker gathers the charges its attempts ask of one run
// while an Update of that run is in flight, and sends them as the next one,
// so that a fan-out's retries cost a few Updates, not one each (the server
// keeps at most 10 Updates of a run in flight and accepts 2,000 per run, by
// default). The kit registers its handler in every workflow it runs; each
// charge is in an accepted Update of the run's history, so that the
// workflow's budget decisions replay exactly.
const ChargeUpdateName = "temporaladk.charges"

// ChargeRequest asks a run to charge attempt Attempt of its budgeted call
// Call. A []ChargeRequest is the argument of the Update ChargeUpdateName.
type ChargeRequest struct {
	// Call names the call, as CallHeader.Budget does.
	Call string `json:"call"`
	// Attempt is the attempt to charge, 2 for the first retry.
	Attempt int `json:"attempt"`
	// Delegation names, for a call of a child workflow, the budgets the
	// run started that child under; "" for a call of the run itself. A
	// child's call is named in the run by its first charge.
	Delegation string `json:"delegation,omitempty"`
	// Class is the class of a child's call, for the run's refusal metrics;
	// "" for a call of the run itself, whose class the run knows.
	Class temporaladk.Class `json:"class,omitempty"`
	// Reserve asks, for a MODEL call under a token or cost budget, to
	// reserve attempt Attempt's most before it runs, besides charging it;
	// nil for none.
	Reserve *Reservation `json:"reserve,omitempty"`
	// Settle asks to settle attempt Attempt's reservation with what it
	// spent; nil for none. A settle request charges nothing else.
	Settle *Settlement `json:"settle,omitempty"`
}

// ChargeResult is the answer to a ChargeRequest: granted, refused with the
// budget that refused it, or an error that is neither.
type ChargeResult struct {
	// Granted is true when the attempt was charged, or had been already.
	Granted bool `json:"granted"`
	// Remaining is, for a granted charge, what the call's budget has left:
	// attempts under its AttemptBudget, or retries in its RetryBudget when it
	// has none; nil when the call has neither.
	Remaining *int `json:"remaining,omitempty"`
	// Refused is the refusal when Granted is false.
	Refused *temporaladk.BudgetExceededError `json:"refused,omitempty"`
	// Error says why the request was neither granted nor refused: the run
	// made no budgeted call of its name.
	Error string `json:"error,omitempty"`
}

// Reservation asks a run to reserve an attempt's most (ChargeRequest
// Reserve): MaxTokens against its token budget, MaxTokens at Price's
// highest price against its cost budget. The price travels in the request,
// so that it is recorded in the run's history and replays as it was.
type Reservation struct {
	Model     string       `json:"model,omitempty"`
	MaxTokens int64        `json:"max_tokens"`
	Price     *spend.Price `json:"price,omitempty"`
}

// Settlement settles an attempt's reservation (ChargeRequest Settle) with
// the usage the attempt reported, summed; a nil Usage (the attempt
// reported none) spends the whole reservation.
type Settlement struct {
	Usage *spend.Usage `json:"usage,omitempty"`
	// Succeeded is true when the attempt succeeded: the call's result is
	// then the attempt's, and the run knows that a kit worker served it.
	Succeeded bool `json:"succeeded,omitempty"`
}

// ChargeTransport sends one charge Update, named ChargeUpdateName with
// update ID updateID and argument reqs, to the workflow run
// (workflowID, runID), waits until the Update completes, and returns its
// result: one ChargeResult per request, in order. ctx is the context of the
// first activity attempt whose charge the Update carries; it keeps that
// attempt's values but not its cancellation.
//
// The kit's default sends it with the activity's own client; testsuite's
// kit environment gives one that sends it through the SDK's test
// environment (internal/seam).
type ChargeTransport func(ctx context.Context, workflowID, runID, updateID string, reqs []ChargeRequest) ([]ChargeResult, error)
