package agent

import (
	"github.com/temporaladk/adk-go/interceptors"
	"github.com/temporaladk/adk-go/policies"
	"github.com/temporaladk/adk-go/spend"
	"github.com/temporaladk/adk-go/temporaladk"
)

// ToolMaxAttempts is the TOOL policy's attempts in this sample, raised from
// the default of 1 because the sample shows two tool retries: the first
// booking loses its confirmation and is retried under its key, landing on
// the ledger's first booking, and the seat maps fail their first attempt
// and are retried under the fan-out's pool. Under the default neither would
// be retried, key or no key: a key lifts an effectful tool's one-attempt cap
// to the policy's attempts and adds none. Read-only tools get these
// attempts without a key; an effectful tool without one still gets one.
const ToolMaxAttempts = 3

// StandInModel is the model name the sample's client sends by default, and
// the entry of the price table its MODEL calls are priced at.
const StandInModel = "standin"

// StandInPrice is the sample's price for StandInModel, per million tokens:
// made-up figures in the range of a hosted model's, so that the cost budget
// has something to count. The stand-in itself charges nothing.
var StandInPrice = spend.Price{Input: 2_500_000, CachedInput: 1_250_000, Output: 10_000_000}

// KitOptions are the kit's options for the sample's worker and replayer: the
// TOOL policy tuned to ToolMaxAttempts, the tools' declarations and the
// price table (StandInModel at StandInPrice). The booking's idempotency key
// is derived from its flight and passenger, so two attempts of one booking
// share it and two bookings never do.
func KitOptions() (interceptors.Options, error) {
	tool, err := policies.Default(temporaladk.Tool)
	if err != nil {
		return interceptors.Options{}, err
	}
	tool.Retry.MaxAttempts = ToolMaxAttempts
	return interceptors.Options{
		Policies: map[temporaladk.Class]policies.ActivityPolicy{temporaladk.Tool: tool},
		Activities: map[string]temporaladk.Declaration{
			"BookSeat": {Class: temporaladk.Tool, Idempotency: temporaladk.Effectful, KeyFields: []string{"flight", "passenger"}, Input: Booking{}},
			"SeatMap":  {Class: temporaladk.Tool, Idempotency: temporaladk.ReadOnly},
		},
		Prices: map[string]spend.Price{StandInModel: StandInPrice},
	}, nil
}
