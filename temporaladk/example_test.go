package temporaladk_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"go.temporal.io/sdk/temporal"

	"github.com/temporaladk/adk-go/temporaladk"
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

func ExampleClassifyHTTP() {
	resp := &http.Response{
		StatusCode: 429,
		Header:     http.Header{"Retry-After": {"2"}},
		Body:       io.NopCloser(strings.NewReader(`{"error":{"code":"rate_limit_exceeded"}}`)),
	}
	err := temporaladk.ClassifyHTTP("openai", resp, nil, time.Now())
	var limited *temporaladk.RateLimitError
	if errors.As(err, &limited) {
		fmt.Println(limited.RetryAfter, limited.Retryable())
	}
	// Output:
	// 2s true
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
