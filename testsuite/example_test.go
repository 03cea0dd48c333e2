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
	"go.temporal.io/sdk/workflow"

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
		c := testsuite.SharedDevServer(t).Client()
		_, err := c.ExecuteWorkflow(context.Background(), client.StartWorkflowOptions{TaskQueue: "orders-" + t.Name()}, "OrderWorkflow", "book")
		if err != nil {
			t.Fatal(err)
		}
	}
	_, _ = testMain, testOrder
}

// A server of its own for one test, stopped when the test ends, even when it
// fails or panics.
func ExampleStartTestDevServer() {
	testRestart := func(t *testing.T) {
		s := testsuite.StartTestDevServer(t, testsuite.DevServerOptions{DBFile: t.TempDir() + "/temporal.db"})
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
		// Interceptors: the same worker interceptors as in worker.Options.
	})
	fmt.Println(err)
	// Output: <nil>
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
