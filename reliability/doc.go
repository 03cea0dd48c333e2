// Package reliability is temporaladk's reliability suite: the faults
// production brings, injected on a real Temporal dev server that each test
// starts, and the promises checked after each one. It has no API; its tests
// are the product, and RELIABILITY.md at the repository root tabulates what
// they showed.
//
//	go test -race -count=1 -v ./reliability/            # every fault, the sweep and the security checks
//	go test -race -count=1 -v -run WorkerKilled ./reliability/
//	./reliability/fuzz.sh 10s                            # every fuzz target, 10s each
//
// Where a crash is simulated the worker runs in a separate process: the test
// binary re-executes itself with RELIABILITY_WORKER set, runs a worker with
// the kit's interceptor on the given server and task queue, reports what its
// activities do as JSON lines on stdout, and is killed with SIGKILL
// (os.Process.Kill) at the moment that matters. The faults and their
// promises:
//
//   - a worker killed mid-MODEL-stream: the heartbeat timeout notices within
//     about one window, a second worker completes the retry, and the retry
//     reads the counts of the last heartbeat;
//   - a worker killed after an effectful tool's side effect and before it
//     returned: the tool never runs again and the workflow ends with an
//     IndeterminateOutcomeError;
//   - the dev server restarted on its database file in the middle of a
//     fan-out under a RunBudget: the run completes and no more attempts are
//     made than the budget allows;
//   - a 1,000-branch fan-out of failing calls under an AttemptBudget of 100:
//     exactly 1,000 first attempts and at most 100 retries, every branch
//     settled, the worker's memory bounded;
//   - bad input to every public constructor and entry point: a clear error,
//     no panic, no partial state;
//   - heartbeats and error details never carry argument values or model
//     text, and idempotency keys are tenant-scoped.
package reliability
