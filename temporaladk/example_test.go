package temporaladk_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/temporaladk/adk-go/temporaladk"
	"github.com/temporaladk/adk-go/testsuite"
)

func ExampleClass_UnmarshalText() {
	var c temporaladk.Class
	fmt.Println(c.UnmarshalText([]byte("model")), c)
	fmt.Println(c.UnmarshalText([]byte("reasoning")), c)
	// Output:
	// <nil> MODEL
	// temporaladk: unknown activity class "reasoning" (want one of MODEL, TOOL, RETRIEVAL, MEMORY) MODEL
}

func ExampleIdempotency_UnmarshalText() {
	var declared struct {
		Idempotency temporaladk.Idempotency `json:"idempotency"`
	}
	err := json.Unmarshal([]byte(`{"idempotency": "read-only"}`), &declared)
	fmt.Println(declared.Idempotency, err)
	// Output:
	// READ_ONLY <nil>
}

func ExampleDeclaration_Validate() {
	type BookSeat struct {
		Flight    string `json:"flight"`
		Passenger string `json:"passenger"`
		Note      string `json:"note,omitempty"`
	}
	decl := temporaladk.Declaration{
		Class:       temporaladk.Tool,
		Timeout:     30 * time.Second,
		Idempotency: temporaladk.Effectful,
		KeyFields:   []string{"flight", "passenger"},
		Input:       BookSeat{},
	}
	fmt.Println(decl.Validate("BookSeat"))

	decl.KeyFields = []string{"date"}
	fmt.Println(decl.Validate("BookSeat"))
	decl.KeyFields = []string{"note"}
	fmt.Println(decl.Validate("BookSeat"))
	// Output:
	// <nil>
	// temporaladk: declaration of "BookSeat": KeyFields names "date", which the tool's input temporaladk_test.BookSeat does not have: no such field "date"
	// temporaladk: declaration of "BookSeat": KeyFields names "note", which the tool's input temporaladk_test.BookSeat does not have: field "note" is tagged omitempty: a zero value is left out of the input, so no key could be derived from it; drop the option or key on another field
}

func ExampleFromApplicationError() {
	// A kit error crosses the activity boundary as an ApplicationError of its
	// Type, its fields the first detail...
	refused := temporaladk.BudgetExceededError{Breached: "attempts", Limit: 2, Consumed: 2, Attempts: 2}
	crossed := temporal.NewNonRetryableApplicationError(refused.Error(), temporaladk.TypeBudgetExceeded, nil, refused)
	// ...and the workflow finds the typed error again.
	var budget *temporaladk.BudgetExceededError
	if errors.As(temporaladk.FromApplicationError(crossed), &budget) {
		fmt.Println(budget.Details()["attempts"])
	}
	// Output:
	// 2
}

func ExampleActivityCallFrom() {
	// In a test, testsuite.ActivityContext gives an activity the context the
	// kit's activity interceptor gives it on a worker.
	ctx := testsuite.ActivityContext(context.Background(), temporaladk.ActivityCall{
		Class: temporaladk.Tool, Idempotency: temporaladk.Idempotent, IdempotencyKey: "k-1", Attempt: 2, MaxAttempts: 3,
	})
	// In the activity: an effectful tool hands the key to the system it changes.
	var call temporaladk.ActivityCall
	call, ok := temporaladk.ActivityCallFrom(ctx)
	fmt.Println(ok, call.Class, call.Idempotency, call.IdempotencyKey, call.Attempt, call.MaxAttempts)
	// Output:
	// true TOOL IDEMPOTENT k-1 2 3
}

func ExampleHeartbeaterFrom() {
	// Outside the kit the heartbeater counts and sends nothing, so a
	// streaming activity calls Chunk unconditionally.
	var hb *temporaladk.Heartbeater = temporaladk.HeartbeaterFrom(context.Background())
	hb.Chunk(12)
	fmt.Println(hb.Snapshot().Tokens, hb.Beats())
	// Output:
	// 12 0
}

func ExampleAsError() {
	err := fmt.Errorf("book seat: %w", &temporaladk.IndeterminateOutcomeError{Tool: "book_seat", Reason: "worker lost"})
	if e, ok := temporaladk.AsError(err); ok {
		fmt.Println(e.Type() == temporaladk.TypeIndeterminateOutcome, e.Retryable())
	}
	// Output:
	// true false
}

func ExampleError() {
	// Each kit error's Type is a stable constant, equal to its Go type name.
	for typ, e := range map[string]temporaladk.Error{
		temporaladk.TypeSchemaViolation:      &temporaladk.SchemaViolationError{},
		temporaladk.TypeGuardrailViolation:   &temporaladk.GuardrailViolationError{},
		temporaladk.TypeGuardrailEvaluation:  &temporaladk.GuardrailEvaluationError{},
		temporaladk.TypeApprovalDenied:       &temporaladk.ApprovalDeniedError{},
		temporaladk.TypeScopeEscalation:      &temporaladk.ScopeEscalationError{},
		temporaladk.TypeProviderTimeout:      &temporaladk.ProviderTimeoutError{},
		temporaladk.TypeToolFailure:          &temporaladk.ToolFailureError{},
		temporaladk.TypeIndeterminateOutcome: &temporaladk.IndeterminateOutcomeError{},
	} {
		if e.Type() != typ {
			fmt.Println("mismatch:", typ)
		}
	}
	fmt.Println(temporaladk.TypeToolFailure)
	// Output:
	// TemporaladkToolFailure
}

// An agent workflow that books for a customer: keys are derived per
// tenant, and a retried booking carries the key of its logical call.
func ExampleWithIdempotencyKey() {
	_ = func(ctx workflow.Context, customer, bookingID string) error {
		ctx = temporaladk.WithTenant(ctx, customer)
		ctx = temporaladk.WithIdempotencyKey(temporaladk.WithClass(ctx, temporaladk.Tool), "booking-"+bookingID)
		return workflow.ExecuteActivity(ctx, "BookSeat", bookingID).Get(ctx, nil)
	}
}

// A failure the kit made before the user's code ran, as the server recorded
// it, is typed again by FromApplicationError: a child that outlived the run
// holding its budget learns so by its type.
func ExampleBudgetClosedError() {
	recorded := temporal.NewNonRetryableApplicationError("temporaladk: the run that holds this call's budget has closed", temporaladk.TypeBudgetClosed, nil)
	var closed *temporaladk.BudgetClosedError
	if errors.As(temporaladk.FromApplicationError(recorded), &closed) {
		fmt.Println(closed.Type(), closed.Retryable())
		fmt.Println(closed.Message)
	}
	// Output:
	// TemporaladkBudgetClosed false
	// temporaladk: the run that holds this call's budget has closed
}
