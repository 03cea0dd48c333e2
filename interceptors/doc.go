// Package interceptors puts the kit on a Temporal worker: NewPlugin returns
// the worker plugin that applies the class policies (package policies) to
// every activity call a workflow makes and serves the calls on the activity
// side (heartbeats, idempotency keys, retry waits drawn inside the activity,
// budget charges, approval grants). It is the one way to register the kit.
//
//	kit, err := interceptors.NewPlugin(interceptors.Options{
//		Activities: map[string]temporaladk.Declaration{
//			"BookSeat": {Class: temporaladk.Tool, Idempotency: temporaladk.Effectful, KeyFields: []string{"flight", "passenger"}},
//		},
//	})
//	if err != nil {
//		return err // a bad option, named
//	}
//	w := worker.New(c, "agents", worker.Options{Plugins: []worker.Plugin{kit}})
//	replayer, err := worker.NewWorkflowReplayerWithOptions(worker.WorkflowReplayerOptions{Plugins: []worker.Plugin{kit}})
//
// Give the same plugin to the replayer, so that workflows replay as they
// ran. The plugin also lowers the worker's MaxHeartbeatThrottleInterval to
// HeartbeatThrottle and ends the worker's identity with IdentityMark. It
// applies once however often it is given; with two plugins on one worker,
// worker.Start returns ErrRegisteredTwice. The kit's interceptor is not
// handed out otherwise: one that reaches a worker without its plugin fails
// its workflow tasks and activities, naming NewPlugin. With Options.Fleet
// (the worker's client, a logger and a metrics handler), a kit worker
// reports the workers without the kit that poll its task queue.
//
// Workflow code tags calls with temporaladk.WithClass and bounds them with
// temporaladk.WithBudgets; testsuite.NewKitTestEnvironment runs it under the
// kit in unit tests, and package observe reports each decision to an
// Options.Observer. The kit's own failures are typed errors of package
// temporaladk (temporaladk.BudgetClosedError, ...); the kit records the
// metrics named by observe's Metric constants through the client's metrics handler.
//
// ARCHITECTURE.md has the path of one call through this package, where each
// decision is made and every name the kit puts on the wire; README.md what
// the kit guarantees, and how it fails closed on a misconfigured fleet;
// RELIABILITY.md what the tests measured; UPGRADING.md what a change does to
// running workflows.
package interceptors
