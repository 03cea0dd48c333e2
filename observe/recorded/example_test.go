package recorded_test

import (
	"fmt"
	"os"

	"go.temporal.io/sdk/client"

	"github.com/temporaladk/adk-go/observe/recorded"
)

// Read a recorded history (testsuite.RecordHistory or `temporal workflow
// show --output json` writes one) and print what the kit decided: here a
// MODEL call under a ceiling of three attempts, each retried until the
// budget refused the fourth. The history was recorded by a build that
// named the kit's error types after their Go types ("ProviderError"): they
// are read, and reported, as the kit's types of today.
func Example() {
	f, err := os.Open("testdata/observed.json")
	if err != nil {
		panic(err)
	}
	defer f.Close()
	h, err := client.HistoryFromJSON(f, client.HistoryJSONOptions{})
	if err != nil {
		panic(err)
	}
	run, err := recorded.Read(h.GetEvents())
	if err != nil {
		panic(err)
	}
	for _, c := range run.Calls {
		fmt.Printf("call %d: %s %s, budget %s, %d attempts allowed\n", c.Seq, c.Class, c.ActivityType, c.Budget, c.MaxAttempts)
		for _, a := range c.Attempts {
			if a.Outcome != nil {
				fmt.Printf("  attempt %d %s: %s\n", a.Number, a.End, a.Outcome.ErrorType)
			} else {
				fmt.Printf("  attempt %d %s\n", a.Number, a.End)
			}
		}
		fmt.Printf("  ended %s: %s after %d attempts\n", c.End.Outcome, c.End.ErrorType, c.End.Attempts)
	}
	for _, ch := range run.Charges {
		fmt.Printf("charged %s attempt %d, %d left\n", ch.Call, ch.Attempt, *ch.Remaining)
	}
	for _, r := range run.Refusals {
		fmt.Printf("refused %s attempt %d: %s\n", r.Call, r.Attempt, r.Err.Breached)
	}
	// Output:
	// call 1: MODEL ObservedChat, budget call-1, 3 attempts allowed
	//   attempt 1 failed
	//   attempt 2 failed: TemporaladkProvider
	//   attempt 3 failed: TemporaladkBudgetExceeded
	//   ended failed: TemporaladkBudgetExceeded after 3 attempts
	// charged call-1 attempt 2, 1 left
	// charged call-1 attempt 3, 0 left
	// refused call-1 attempt 4: attempts
}
