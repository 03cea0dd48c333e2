// Package testsuite holds the helpers for testing agent workflows the way
// they run: on a real Temporal dev server, with a fake clock for activity
// code, and by replaying recorded histories after every change.
//
//	func TestMain(m *testing.M) { os.Exit(testsuite.RunWithDevServer(m, testsuite.DevServerOptions{})) }
//
//	func TestOrder(t *testing.T) {
//		c := testsuite.DevServerFor(t).Client() // real server, started once per test binary
//		own := testsuite.DevServerFor(t, testsuite.DevServerOptions{DBFile: dbFile}) // one of its own, to Restart
//		// ... run a worker and a workflow, then record its history:
//		err := testsuite.RecordHistory(ctx, c, "order-1", "", "testdata/histories/order.json")
//	}
//
//	func TestReplay(t *testing.T) { // fails with a *NondeterminismError when the code changed incompatibly
//		err := testsuite.ReplayDir("testdata/histories", testsuite.ReplayOptions{Workflows: []testsuite.ReplayWorkflow{{Func: Order}}})
//	}
//
// A workflow that continues as new and starts children is recorded whole,
// in one call, as soon as it has completed, and replayed with what its
// worker took: the worker's own options, the kit's plugin among them.
//
//	wopts := worker.Options{Plugins: []worker.Plugin{kit}} // the worker's options, kit included
//	w := worker.New(c, "trips", wopts)                      // ... run "trip-1" to completion, then:
//	files, err := testsuite.RecordFamily(ctx, c, "trip-1", "testdata/histories/trip")
//	opts := testsuite.ReplayOptions{Worker: wopts, Workflows: []testsuite.ReplayWorkflow{{Func: Trip}, {Func: Booking}}}
//	err = testsuite.ReplayDir("testdata/histories/trip", opts) // or RecordAndReplay: both in one call
//
// A wait on a run is bounded by the test binary's -timeout, less a minute:
// a run that never ends fails its own test, with what its workflow tasks did
// (timeouts, failures, the pending attempt), not the binary's timeout panic.
//
//	ctx := testsuite.Context(t)
//	err := testsuite.WorkflowResult(ctx, t, c, run, &result) // the run's error, as run.Get
//
// RecordFamily writes one file per run, named by its place in the family
// (run-1.json, run-1.child-1-Booking.run-1.json, run-2.json), and finds the
// runs in the histories themselves, not through visibility, which lags.
//
// An approval-gated tool is tested in the kit's test environment with one
// call per decision, on the call and digest the run lists:
//
//	env, err := testsuite.NewKitTestEnvironment(&suite, kitOptions)
//	env.Signers = []*approvals.Signer{ana} // for signed approvers; open ones need none
//	env.Approve(t, time.Minute, "approval-1", "ana")
//	env.Deny(t, time.Minute, "approval-2", "ana", "one seat is enough")
//	env.ExecuteWorkflow(Trip, seats)
//
// The dev server is the Temporal CLI's `temporal server start-dev`. The CLI is
// looked for in TEMPORAL_CLI, PATH, GOBIN and GOPATH/bin; when it is nowhere,
// it is built once with `go install github.com/temporalio/cli/cmd/temporal@v1.5.1`
// (a few minutes, one progress line on stderr), never downloaded as a binary.
// It runs with FastDevServerArgs, which lift the server's own pacing of its
// task queues and timers, unless DevServerOptions.PlainStartDev is set.
//
// ARCHITECTURE.md draws the path of one call that these environments run,
// and lists the one header only the SDK test environment writes.
package testsuite
