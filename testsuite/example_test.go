package testsuite_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"os"
	"testing"
	"time"

	"go.temporal.io/sdk/client"
	sdktestsuite "go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	"github.com/temporaladk/adk-go/approvals"
	"github.com/temporaladk/adk-go/interceptors"
	"github.com/temporaladk/adk-go/policies"
	"github.com/temporaladk/adk-go/temporaladk"
	"github.com/temporaladk/adk-go/testsuite"
)

// A package's tests share one dev server: TestMain wraps m.Run, and each
// test asks for the server.
func ExampleRunWithDevServer() {
	testMain := func(m *testing.M) {
		os.Exit(testsuite.RunWithDevServer(m, testsuite.DevServerOptions{}))
	}
	testOrder := func(t *testing.T) {
		c := testsuite.DevServerFor(t).Client()
		_, err := c.ExecuteWorkflow(context.Background(), client.StartWorkflowOptions{TaskQueue: "orders-" + t.Name()}, "OrderWorkflow", "book")
		if err != nil {
			t.Fatal(err)
		}
	}
	_, _ = testMain, testOrder
}

// A server of its own for one test, stopped when the test ends, even when it
// fails or panics: DevServerFor with options.
func ExampleDevServerFor() {
	testRestart := func(t *testing.T) {
		s := testsuite.DevServerFor(t, testsuite.DevServerOptions{DBFile: t.TempDir() + "/temporal.db"})
		if err := s.Restart(context.Background()); err != nil { // same port, same database
			t.Fatal(err)
		}
	}
	_ = testRestart
}

// A server outside tests, such as a sample's -ui flag.
func ExampleStartDevServer() {
	s, err := testsuite.StartDevServer(context.Background(), testsuite.DevServerOptions{EnableUI: true})
	if err != nil {
		log.Fatal(err)
	}
	defer s.Stop()
	fmt.Println("Temporal at", s.Address(), "UI at http://"+s.UIAddress())
}

// A program pointed at a server that runs already, such as a -server flag:
// no process is started, and Stop only closes the client.
func ExampleStartDevServer_address() {
	s, err := testsuite.StartDevServer(context.Background(), testsuite.DevServerOptions{Address: "127.0.0.1:7233"})
	if err != nil {
		log.Fatal(err)
	}
	defer s.Stop()
	fmt.Println("Temporal at", s.Address())
}

func ExampleNewFakeClock() {
	clock := testsuite.NewFakeClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	_ = clock.Advance(30 * time.Second)
	_ = clock.Advance(15 * time.Second)
	fmt.Println(clock.Now().Format(time.TimeOnly))
	fmt.Println(clock.Advance(-time.Second))
	// Output:
	// 00:00:45
	// testsuite: FakeClock.Advance(-1s): the clock only moves forward
}

func ExampleFakeClock_WithDeadline() {
	clock := testsuite.NewFakeClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	// The kit's in-activity retry loop waits on the fake clock and reads the
	// deadline against it: one clock, so the test reads the same on any date.
	ctx, cancel := clock.WithDeadline(context.Background(), 1500*time.Millisecond)
	defer cancel()
	loop := policies.ActivityAttempts{
		Retry:  policies.RetryConfig{MaxAttempts: 3, InitialInterval: time.Second, BackoffCoefficient: 2},
		Random: func() float64 { return 0.9 },
		Clock:  clock,
	}
	var report policies.AttemptsReport
	var err error
	done := make(chan struct{})
	go func() {
		defer close(done)
		report, err = loop.Run(ctx, func(context.Context, int) error { return &temporaladk.ProviderError{StatusCode: 503} })
	}()
	// Two waits on the clock: the context's deadline, and the loop's 900ms
	// backoff after the first attempt. Moving the clock ends the backoff.
	_ = clock.BlockUntil(context.Background(), 2)
	_ = clock.Advance(900 * time.Millisecond)
	<-done
	fmt.Println(report.Attempts, err)
	last := report.Decisions[len(report.Decisions)-1]
	fmt.Println(last.Requested, last.Wait, last.Truncated, last.Final)
	// Output:
	// 2 provider error (HTTP 503)
	// 1.8s 600ms true true
}

// Record a finished workflow's history for a replay test.
func ExampleRecordHistory() {
	ctx := context.Background()
	c, err := client.Dial(client.Options{})
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close()
	run, err := c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{TaskQueue: "orders"}, "OrderWorkflow", "book")
	if err != nil {
		log.Fatal(err)
	}
	// Waits until the run has closed, then writes its JSON history.
	if err := testsuite.RecordHistory(ctx, c, run.GetID(), run.GetRunID(), "testdata/histories/order.json"); err != nil {
		log.Fatal(err)
	}
}

func ExampleReplayFile() {
	opts := testsuite.ReplayOptions{Workflows: []testsuite.ReplayWorkflow{
		{Func: orderWorkflowReordered, Options: workflow.RegisterOptions{Name: "OrderWorkflow"}},
	}}
	err := testsuite.ReplayFile("testdata/histories/order_workflow.json", opts)
	var nd *testsuite.NondeterminismError
	if errors.As(err, &nd) {
		fmt.Println(nd.Workflow, nd.CommandIndex, nd.Expected, "->", nd.Actual)
	}
	// Output: OrderWorkflow 0 ScheduleActivityTask(Reserve) -> ScheduleActivityTask(Charge)
}

func ExampleReplayDir() {
	err := testsuite.ReplayDir("testdata/histories", testsuite.ReplayOptions{
		Workflows: []testsuite.ReplayWorkflow{
			{Func: orderWorkflow, Options: workflow.RegisterOptions{Name: "OrderWorkflow"}},
		},
		// Worker: the worker.Options the workers ran with.
	})
	fmt.Println(err)
	// Output: <nil>
}

// A workflow's whole family, its continue-as-new chain and every child
// with theirs, recorded in one call right after it completes.
func ExampleRecordFamily() {
	testTrip := func(t *testing.T) {
		c := testsuite.DevServerFor(t).Client()
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		run, err := c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: "trip-1", TaskQueue: "trips"}, "Trip")
		if err == nil {
			err = run.Get(ctx, nil)
		}
		if err != nil {
			t.Fatal(err)
		}
		// run-1.json, run-1.child-1-Booking.run-1.json, run-2.json, ...
		files, err := testsuite.RecordFamily(ctx, c, "trip-1", "testdata/histories/trip")
		if err != nil {
			t.Fatal(err)
		}
		t.Log(files)
	}
	_ = testTrip
}

// The replayer takes the worker's own options: the kit's plugin in them
// registers the kit as it did on the worker, with nothing beside it.
func ExampleReplayOptions_worker() {
	kit, err := interceptors.NewPlugin(interceptors.Options{})
	if err != nil {
		log.Fatal(err)
	}
	wopts := worker.Options{Plugins: []worker.Plugin{kit}} // what worker.New was given
	err = testsuite.ReplayFile("testdata/histories/order_workflow.json", testsuite.ReplayOptions{
		Worker:    wopts,
		Workflows: []testsuite.ReplayWorkflow{{Func: orderWorkflow, Options: workflow.RegisterOptions{Name: "OrderWorkflow"}}},
	})
	fmt.Println(err)
	// Output: <nil>
}

// Record a family and replay it with the current code, in one call.
func ExampleRecordAndReplay() {
	testReplay := func(t *testing.T, wopts worker.Options, trip, booking any) {
		c := testsuite.DevServerFor(t).Client()
		// ... run "trip-1" on a worker built with wopts, to completion, then:
		opts := testsuite.ReplayOptions{Worker: wopts, Workflows: []testsuite.ReplayWorkflow{{Func: trip}, {Func: booking}}}
		if _, err := testsuite.RecordAndReplay(context.Background(), c, "trip-1", t.TempDir(), opts); err != nil {
			t.Fatal(err) // errors.As finds a *NondeterminismError per file that diverged
		}
	}
	_ = testReplay
}

// An approval-gated tool in the kit's test environment: one call per
// decision, on the call and digest the run lists.
func ExampleKitTestEnvironment_Approve() {
	testTrip := func(t *testing.T, kitOptions interceptors.Options, ana *approvals.Signer, trip, bookSeat any) {
		var suite sdktestsuite.WorkflowTestSuite
		env, err := testsuite.NewKitTestEnvironment(&suite, kitOptions)
		if err != nil {
			t.Fatal(err)
		}
		env.RegisterWorkflow(trip)
		env.RegisterActivity(bookSeat)
		env.Signers = []*approvals.Signer{ana} // for signed approvers; open ones need none
		env.Approve(t, time.Minute, "approval-1", "ana")
		env.Deny(t, time.Minute, "approval-2", "ana", "one seat is enough")
		env.ExecuteWorkflow(trip, []string{"12A", "12B"})
		if err := env.GetWorkflowError(); err != nil {
			t.Fatal(err)
		}
	}
	_ = testTrip
}

func ExampleHistoryCommands() {
	commands, err := testsuite.HistoryCommands("testdata/histories/order_workflow.json")
	if err != nil {
		log.Fatal(err)
	}
	for _, c := range commands {
		fmt.Println(c)
	}
	// Output:
	// ScheduleActivityTask(Reserve)
	// StartTimer(500ms)
	// ScheduleActivityTask(Charge)
	// CompleteWorkflowExecution
}

func ExampleCompareCommands() {
	expected := []string{"ScheduleActivityTask(Reserve)", "StartTimer(500ms)", "ScheduleActivityTask(Charge)"}
	if diff, ok := testsuite.CompareCommands(expected, expected[:2]); !ok {
		fmt.Println(diff) // stops short
	}
	if diff, ok := testsuite.CompareCommands(expected[:2], expected); !ok {
		fmt.Println(diff) // asks for more
	}
	// Output:
	// command 2: expected ScheduleActivityTask(Charge), actual nothing
	// command 2: expected nothing, actual ScheduleActivityTask(Charge)
}
