package observe_test

import (
	"context"
	"fmt"

	"github.com/temporaladk/adk-go/interceptors"
	"github.com/temporaladk/adk-go/observe"
)

// attempts prints every attempt that ends with a retry decided.
type attempts struct{ observe.Base }

// AttemptEnded prints the attempt and the wait before the next.
func (attempts) AttemptEnded(_ context.Context, a observe.Attempt, o observe.Outcome) {
	if o.Retry != nil {
		fmt.Printf("%s attempt %d: %s, retry after %s\n", a.ActivityType, a.Number, o.ErrorType, o.Retry.Wait)
	}
}

// An observer embeds observe.Base, overrides what it needs, and is given to
// the kit in its options.
func Example() {
	plugin, err := interceptors.NewPlugin(interceptors.Options{Observer: attempts{}})
	if err != nil {
		panic(err)
	}
	fmt.Println(plugin.Name())
	// Output: temporaladk
}

// Join gives the kit several observers, called in order.
func ExampleJoin() {
	o, err := observe.Join(attempts{}, observe.Base{})
	if err != nil {
		panic(err)
	}
	_, err = interceptors.NewPlugin(interceptors.Options{Observer: o})
	fmt.Println(err)
	_, err = observe.Join(attempts{}, nil)
	fmt.Println(err)
	// Output:
	// <nil>
	// observe: Join: observer 2 of 2 is nil
}
