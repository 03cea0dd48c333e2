package temporaladk_test

import (
	"errors"
	"fmt"
	"time"

	"github.com/temporaladk/adk-go/temporaladk"
)

func ExampleParseClass() {
	c, err := temporaladk.ParseClass("model")
	fmt.Println(c, err)
	_, err = temporaladk.ParseClass("reasoning")
	fmt.Println(err)
	// Output:
	// MODEL <nil>
	// temporaladk: unknown activity class "reasoning" (want one of MODEL, TOOL, RETRIEVAL, MEMORY)
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

func ExampleDeriveIdempotencyKey() {
	scope := temporaladk.KeyScope{Tenant: "acme", Run: "trip-42", Tool: "book_seat"}
	a, _ := temporaladk.DeriveIdempotencyKey(scope, map[string]any{"flight": "LH400", "amount": 1.50}, nil)
	b, _ := temporaladk.DeriveIdempotencyKey(scope, map[string]any{"amount": 1.5, "flight": "LH400"}, nil)
	fmt.Println(a == b, len(a))

	_, err := temporaladk.DeriveIdempotencyKey(scope, map[string]any{"flight": "LH400"}, []string{"passenger"})
	fmt.Println(err)
	// Output:
	// true 64
	// temporaladk: no idempotency key: the arguments have no key field "passenger"
}

func ExampleFromApplicationError() {
	// What an activity returns crosses the boundary as an ApplicationError...
	crossed := temporaladk.ToApplicationError(&temporaladk.BudgetExceededError{Breached: "attempts", Limit: 2, Consumed: 2, Attempts: 2}, temporaladk.ConvertOptions{})
	// ...and the workflow finds the typed error again.
	var budget *temporaladk.BudgetExceededError
	if errors.As(temporaladk.FromApplicationError(crossed), &budget) {
		fmt.Println(budget.Details()["attempts"])
	}
	// Output:
	// 2
}
