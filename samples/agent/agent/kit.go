package agent

import (
	"github.com/temporaladk/adk-go/interceptors"
	"github.com/temporaladk/adk-go/policies"
	"github.com/temporaladk/adk-go/temporaladk"
)

// ToolMaxAttempts is the TOOL policy's attempts in this sample. The default
// is 1 (a tool is assumed to change the world); read-only tools, and the
// effectful booking called with an idempotency key, get these.
const ToolMaxAttempts = 3

// KitOptions are the kit's options for the sample's worker and replayer: the
// TOOL policy tuned to ToolMaxAttempts, and the tools' declarations. The
// booking's idempotency key is derived from its flight and passenger, so two
// attempts of one booking share it and two bookings never do.
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
	}, nil
}
