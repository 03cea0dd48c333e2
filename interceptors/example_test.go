package interceptors_test

import (
	"fmt"
	"time"

	"go.temporal.io/sdk/worker"

	"github.com/temporaladk/adk-go/interceptors"
	"github.com/temporaladk/adk-go/policies"
	"github.com/temporaladk/adk-go/temporaladk"
)

func Example() {
	// A MODEL policy tuned for a provider that blips often; the other
	// classes keep their defaults.
	model, _ := policies.Default(temporaladk.Model)
	model.Retry.MaxAttempts = 5

	kit, err := interceptors.NewPlugin(interceptors.Options{
		Policies: map[temporaladk.Class]policies.ActivityPolicy{temporaladk.Model: model},
		Activities: map[string]temporaladk.Declaration{
			// Declared once: workflow code calls it without a tag.
			"BookSeat":      {Class: temporaladk.Tool, Idempotency: temporaladk.Effectful, KeyFields: []string{"flight", "passenger"}},
			"SearchFlights": {Class: temporaladk.Tool, Idempotency: temporaladk.ReadOnly, Timeout: 20 * time.Second},
		},
	})
	if err != nil {
		panic(err)
	}
	// The kit's plugin: the interceptor, and the heartbeat throttle that
	// lets three beats per window reach the server.
	opts := worker.Options{Plugins: []worker.Plugin{kit}}
	fmt.Println(len(opts.Plugins), opts.Plugins[0].Name())

	_, err = interceptors.NewPlugin(interceptors.Options{DefaultClass: "REASONING"})
	fmt.Println(err)
	// Output:
	// 1 temporaladk
	// interceptors: Options.DefaultClass is "REASONING", which is not one of MODEL, TOOL, RETRIEVAL, MEMORY
}

func ExampleNewPlugin() {
	// The same options give the worker and the workflow replayer the kit.
	plugin, err := interceptors.NewPlugin(interceptors.Options{DefaultClass: temporaladk.Tool})
	if err != nil {
		panic(err)
	}
	_ = worker.Options{Plugins: []worker.Plugin{plugin}}
	_ = worker.WorkflowReplayerOptions{Plugins: []worker.Plugin{plugin}}
	fmt.Println(plugin.Name())
	// Output:
	// temporaladk
}
