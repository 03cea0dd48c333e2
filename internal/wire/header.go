// Package wire is the kit's wire format: the headers, Update and Query
// names and the JSON the workflow side and the activity side of the kit
// exchange through the server, and which histories hold. Histories recorded
// by earlier builds replay against these types, so a field's JSON name, a
// header key or an Update name never changes; ARCHITECTURE.md lists them.
//
// Package interceptors writes and reads them; observe/recorded reads them
// out of recorded histories (the one reader outside the kit), and testsuite
// and tests of the module decode them. Nothing outside the module can
// import this package.
package wire

import (
	"fmt"
	"time"

	commonpb "go.temporal.io/api/common/v1"
	"go.temporal.io/sdk/converter"

	"github.com/temporaladk/adk-go/temporaladk"
)

// HeaderKey is the Temporal header field the kit's call description travels
// in, from the workflow to the activity.
const HeaderKey = "temporaladk-call"

// CallHeader is what the workflow side tells the activity side about one
// call, in the Temporal header HeaderKey of its ActivityTaskScheduled event:
// what the activity cannot read from its own activity.Info. Its deadline the
// activity reads from activity.Info.ScheduleToCloseTimeout, which the kit
// caps at what is left of the workflow's own deadline; its retry settings
// and attempt count from activity.Info.RetryPolicy, as the server holds
// them (an activity task that carries none, as the SDK's test environment
// hands out, is read through the retry-policy seam, internal/seam). Every attempt of the
// call reads the same header. It carries no argument
// value: the key is a hash. Tools that read histories decode it with
// DecodeCallHeader.
type CallHeader struct {
	// Class is the call's class; "" for a call the kit saw and left alone
	// (no tag, no declared class, no default class), whose other fields are
	// zero but Budget.
	Class temporaladk.Class `json:"class"`
	// Idempotency is the declaration's name (READ_ONLY, ...), or "" when the
	// activity has no declaration.
	Idempotency string `json:"idempotency,omitempty"`
	// IdempotencyKey is the call's key, or "".
	IdempotencyKey string `json:"key,omitempty"`
	// SingleAttempt is true for a tool treated as effectful and called
	// without a key: its only attempt ending at its deadline is an
	// indeterminate outcome.
	SingleAttempt bool `json:"single_attempt,omitempty"`
	// MaxRetryAfter is the longest provider Retry-After honoured, from the
	// class policy.
	MaxRetryAfter time.Duration `json:"max_retry_after,omitempty"`
	// Budget names the call in its run's budgets when it was made under a
	// ceiling on attempts or a pool of retries (temporaladk.WithBudgets):
	// each retry is charged, before
	// it runs, through the workflow Update ChargeUpdateName. "" for a call
	// without a budget.
	Budget string `json:"budget,omitempty"`
	// BudgetBound is true when the call's retry policy was held, at
	// scheduling, to what its budgets had left (policies.BoundAttempts): its
	// last attempt is then the budget's, and a retryable failure of it asks
	// the charge of the next, whose refusal ends the call with the
	// BudgetExceededError, as on an unbounded policy.
	BudgetBound bool `json:"budget_bound,omitempty"`
	// Owner names, for a call of a child workflow started under a budget
	// (or of a run it continued as new), the ledger that charges every
	// attempt of the call besides its own budgets: the root run of its
	// family, by workflow ID and run ID, the delegation there, and the
	// call's name in that ledger. The activity side charges each attempt
	// there, the first too, before the user's code runs. Zero for a call of
	// a run without an owner.
	Owner CallOwner `json:"owner,omitzero"`
	// Spend is, for a MODEL call under a token or cost budget (its run's or
	// its owner's), its cap, its model and the budgets that meter it: every
	// attempt is reserved before it runs and settled after it. Zero for any
	// other call.
	Spend CallSpend `json:"spend,omitzero"`
	// Seq is the call's number among the activities (or, for a local
	// activity, the local activities) the kit scheduled in its run
	// (observe.Call Seq): the activity side names its attempts' live events
	// with it, as the workflow side names the call's. 0 in a header written
	// before it was added.
	Seq int `json:"seq,omitempty"`
	// Root is the workflow ID of the root of the run's family when the run
	// is a child (a live stream is kept per family), "" otherwise.
	Root string `json:"root,omitempty"`
}

// CallOwner is the ledger a child's call is charged to (CallHeader.Owner).
type CallOwner struct {
	// WorkflowID and RunID name the run whose ledger charges the call.
	WorkflowID string `json:"workflow_id,omitempty"`
	RunID      string `json:"run_id,omitempty"`
	// Delegation names the budgets there the call's family was started
	// under.
	Delegation string `json:"delegation,omitempty"`
	// Call is the call's name in that ledger.
	Call string `json:"call,omitempty"`
	// Tokens and Cost say whether the owner meters the call with a token or
	// a cost budget.
	Tokens bool `json:"tokens,omitempty"`
	Cost   bool `json:"cost,omitempty"`
}

// CallSpend is what a metered call's header carries (CallHeader.Spend).
type CallSpend struct {
	// MaxTokens is the call's cap (temporaladk.Budgets.MaxTokens): what each attempt
	// reserves, in tokens, input plus output.
	MaxTokens int64 `json:"max_tokens,omitempty"`
	// Model is the call's model (temporaladk.Budgets.Model), for its price.
	Model string `json:"model,omitempty"`
	// Tokens and Cost say whether the call's own run meters it with a token
	// or a cost budget; CallOwner says the same of its owner.
	Tokens bool `json:"tokens,omitempty"`
	Cost   bool `json:"cost,omitempty"`
}

// ChainHeaderKey is the Temporal header field in which a run's state
// crosses into the run it begins, as JSON: on continue-as-new, the budgets
// named with temporaladk.WithBudgets as they stood ("runs", "pools",
// "tokens", "costs", each by name), and the owner its calls are charged to
// ("owner"); on a child workflow's start, that owner, with the cap and
// model its MODEL calls get. A run that carries nothing writes no such
// field.
const ChainHeaderKey = "temporaladk-chain"

// DecodeCallHeader reads the kit's call header from a Temporal header's
// fields (an ActivityTaskScheduled event's Header.Fields), and reports
// whether there was one. A header that does not decode is an error naming
// HeaderKey; so is one that names a class that is not one of the four (or ""
// for a call the kit left alone), which temporaladk.Class refuses to decode.
func DecodeCallHeader(fields map[string]*commonpb.Payload) (CallHeader, bool, error) {
	p, ok := fields[HeaderKey]
	if !ok || p == nil {
		return CallHeader{}, false, nil
	}
	var h CallHeader
	if err := Converter.FromPayload(p, &h); err != nil {
		return CallHeader{}, false, fmt.Errorf("temporaladk: the call header %q does not decode: %w", HeaderKey, err)
	}
	return h, true, nil
}

// Converter encodes the kit's headers and reads them. It is the SDK's default converter, not
// the worker's: the header is the kit's own, and a codec the user installs
// for their payloads would not know it.
var Converter = converter.GetDefaultDataConverter()
