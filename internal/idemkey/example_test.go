package idemkey_test

import (
	"fmt"

	"github.com/temporaladk/adk-go/internal/idemkey"
)

func ExampleDerive() {
	scope := idemkey.Scope{Tenant: "acme", Run: "trip-42", Tool: "book_seat"}
	a, _ := idemkey.Derive(scope, map[string]any{"flight": "LH400", "amount": 1.50}, nil)
	b, _ := idemkey.Derive(scope, map[string]any{"amount": 1.5, "flight": "LH400"}, nil)
	fmt.Println(a == b, len(a))

	_, err := idemkey.Derive(scope, map[string]any{"flight": "LH400"}, []string{"passenger"})
	fmt.Println(err)
	// Output:
	// true 64
	// temporaladk: no idempotency key: the arguments have no key field "passenger"
}
