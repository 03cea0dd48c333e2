// Package reliability is temporaladk's reliability suite: the faults
// production brings, injected on a real Temporal dev server that each test
// starts, and the promises checked after each one. It has no API; its tests
// are the product, and RELIABILITY.md at the repository root tabulates what
// they showed.
//
//	go test -race -count=1 -v ./reliability/            # every fault, the sweep and the security checks
//	go test -race -count=1 -v -run WorkerKilled ./reliability/
//	./reliability/fuzz.sh                                # every fuzz target, 20,000 executions each
//
// Where a crash, a deploy or a fleet is simulated the workers run in separate
// processes: the test binary re-executes itself with RELIABILITY_WORKER set,
// runs a worker in the role RELIABILITY_ROLE names (the kit with the suite's
// options, the kit with changed options, no kit, or no kit and workflows
// only) on the given server and task queue, reports what its activities do
// as JSON lines on stdout and its metrics' counters on request, and is
// killed with SIGKILL (os.Process.Kill) at the moment that matters. The
// faults and their promises:
//
//   - a worker killed mid-MODEL-stream: the heartbeat timeout notices within
//     about one window, a second worker completes the retry, and the retry
//     reads the counts of the last heartbeat;
//   - a worker killed after an effectful tool's side effect and before it
//     returned: the tool never runs again and the workflow ends with an
//     IndeterminateOutcomeError;
//   - the dev server restarted on its database file in the middle of a
//     fan-out under an attempt budget: the run completes and no more attempts are
//     made than the budget allows;
//   - a 1,000-branch fan-out of failing calls under a retry budget of 100:
//     exactly 1,000 first attempts and at most 100 retries, every branch
//     settled, the worker's memory bounded;
//   - a mixed fleet (a kit and a plain worker process on one task queue):
//     a never-retryable error is not retried by any attempt the kit ran nor
//     for any tagged call a kit workflow task scheduled, and the kit
//     worker's MetricUnplannedCalls counts the calls the plain worker's
//     workflow tasks scheduled;
//   - a live deploy mid-retry (a kit worker process killed while budgeted
//     retries wait on the server, a process with other options started):
//     every workflow completes with the result its budget allows, no
//     workflow task fails, each retry is charged once and none past a
//     budget;
//   - the upgrade matrix: histories with and without budgets, recorded
//     once, replay under changed options and without the kit;
//   - bad input to every public constructor and entry point: a clear error,
//     no panic, no partial state;
//   - heartbeats and error details never carry argument values or model
//     text, and idempotency keys are tenant-scoped.
package reliability
