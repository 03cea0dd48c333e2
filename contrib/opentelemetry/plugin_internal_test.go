package opentelemetry

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/attribute"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/workflow"

	"github.com/temporaladk/adk-go/observe"
	"github.com/temporaladk/adk-go/temporaladk"
	kittest "github.com/temporaladk/adk-go/testsuite"
)

// TestApprovalEventsOnTheRunSpan: the observer adds an event to the run's
// span for an approval asked and one decided, each
// stamped with workflow time and carrying what the kit told it; without a
// run span on the context it adds nothing and does not fail.
func TestApprovalEventsOnTheRunSpan(t *testing.T) {
	t.Parallel()
	rec := tracetest.NewSpanRecorder()
	span := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec)).Tracer("test").Start
	approval := observe.Approval{Call: "approval-1", ActivityType: "Refund", Class: temporaladk.Tool, Required: 2}
	decision := observe.Decision{Outcome: observe.ApprovalRejected, By: "bo", Waited: 90 * time.Second}
	var s testsuite.WorkflowTestSuite
	env := s.NewTestWorkflowEnvironment()
	start := kittest.DefaultStartTime()
	env.SetStartTime(start)
	// The run's span starts and ends outside the workflow function, so
	// that the test's workflow code reads no clock (the guard checks it).
	_, run := span(t.Context(), "RunWorkflow:test")
	env.RegisterWorkflowWithOptions(func(ctx workflow.Context) error {
		var o spans
		o.ApprovalAsked(ctx, approval) // no run span: nothing
		ctx = workflow.WithValue(ctx, runSpanKey{}, run)
		o.ApprovalAsked(ctx, approval)
		o.ApprovalDecided(ctx, approval, decision)
		return nil
	}, workflow.RegisterOptions{Name: "Events"})
	env.ExecuteWorkflow("Events")
	require.NoError(t, env.GetWorkflowError())
	run.End()
	ended := rec.Ended()
	require.Len(t, ended, 1)
	events := ended[0].Events()
	require.Len(t, events, 2)
	attrs := func(i int) map[attribute.Key]attribute.Value {
		m := map[attribute.Key]attribute.Value{}
		for _, kv := range events[i].Attributes {
			m[kv.Key] = kv.Value
		}
		return m
	}
	assert.Equal(t, EventApprovalAsked, events[0].Name)
	assert.Equal(t, start, events[0].Time.UTC(), "workflow time")
	assert.Equal(t, "approval-1", attrs(0)[AttrApprovalCall].AsString())
	assert.Equal(t, "Refund", attrs(0)[AttrActivityType].AsString())
	assert.Equal(t, "TOOL", attrs(0)[AttrClass].AsString())
	assert.Equal(t, int64(2), attrs(0)[AttrApprovalRequired].AsInt64())
	assert.Equal(t, EventApprovalDecided, events[1].Name)
	assert.Equal(t, "rejected", attrs(1)[AttrApprovalOutcome].AsString())
	assert.Equal(t, "bo", attrs(1)[AttrApprovalBy].AsString())
	assert.Equal(t, int64(90_000), attrs(1)[AttrApprovalWaitMillis].AsInt64())
}
