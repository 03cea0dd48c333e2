// Package testsuite holds the helpers for testing agent workflows the way
// they run: on a real Temporal dev server, with a fake clock for activity
// code, and by replaying recorded histories after every change.
//
//	func TestMain(m *testing.M) { os.Exit(testsuite.RunWithDevServer(m, testsuite.DevServerOptions{})) }
//
//	func TestOrder(t *testing.T) {
//		c := testsuite.SharedDevServer(t).Client() // real server, started once per test binary
//		// ... run a worker and a workflow, then record its history:
//		err := testsuite.RecordHistory(ctx, c, "order-1", "", "testdata/histories/order.json")
//	}
//
//	func TestReplay(t *testing.T) { // fails with a *NondeterminismError when the code changed incompatibly
//		err := testsuite.ReplayDir("testdata/histories", testsuite.ReplayOptions{Workflows: []testsuite.ReplayWorkflow{{Func: Order}}})
//	}
//
// The dev server is the Temporal CLI's `temporal server start-dev`. The CLI is
// looked for in TEMPORAL_CLI, PATH, GOBIN and GOPATH/bin; when it is nowhere,
// it is built once with `go install github.com/temporalio/cli/cmd/temporal@v1.5.1`
// (a few minutes, one progress line on stderr), never downloaded as a binary.
// It runs with FastDevServerArgs, which lift the server's own pacing of its
// task queues and timers, unless DevServerOptions.PlainStartDev is set.
package testsuite
