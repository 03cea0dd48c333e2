package opentelemetry_test

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/attribute"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/client"
	temporalotel "go.temporal.io/sdk/contrib/opentelemetry"
	"go.temporal.io/sdk/interceptor"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	"github.com/temporaladk/adk-go/contrib/opentelemetry"
	"github.com/temporaladk/adk-go/interceptors"
	"github.com/temporaladk/adk-go/observe"
	"github.com/temporaladk/adk-go/policies"
	"github.com/temporaladk/adk-go/temporaladk"
	"github.com/temporaladk/adk-go/testsuite"
)

// budgetLimit is the attempts budget of RefusedWorkflow; secretKey its calls'
// idempotency key, which no span may carry.
const (
	budgetLimit = 3
	secretKey   = "booking-7f3a-secret"
	chatType    = "Chat"
	drawn       = 0.5
)

// Chat fails as an overloaded provider every time.
func Chat(ctx context.Context) error {
	return &temporaladk.ProviderError{Provider: "test", StatusCode: 503, Message: "overloaded"}
}

// RefusedWorkflow calls Chat under a budget of budgetLimit attempts: it
// runs budgetLimit attempts and the budget refuses the next retry. A second
// call's first attempt is then refused in workflow code.
func RefusedWorkflow(ctx workflow.Context) (string, error) {
	ctx, err := temporaladk.WithBudgets(ctx, temporaladk.Budgets{Name: "chat", Attempts: budgetLimit})
	if err != nil {
		return "", err
	}
	ctx = temporaladk.WithIdempotencyKey(ctx, secretKey)
	ctx = workflow.WithActivityOptions(ctx, workflow.ActivityOptions{StartToCloseTimeout: 10 * time.Second})
	var breached []string
	for range 2 {
		err := workflow.ExecuteActivity(ctx, chatType).Get(ctx, nil)
		var refused *temporaladk.BudgetExceededError
		if !errors.As(temporaladk.FromApplicationError(err), &refused) {
			return "", fmt.Errorf("want a budget's refusal, got %w", err)
		}
		breached = append(breached, refused.Breached)
	}
	return strings.Join(breached, ","), nil
}

// modelPolicy retries MODEL calls more often than the budget allows, with
// short waits.
func modelPolicy(t *testing.T) policies.ActivityPolicy {
	t.Helper()
	p, err := policies.Default(temporaladk.Model)
	require.NoError(t, err)
	p.Retry.MaxAttempts = budgetLimit + 2
	p.Retry.InitialInterval = 20 * time.Millisecond
	p.Retry.MaxInterval = 100 * time.Millisecond
	return p
}

func kitOptions(t *testing.T) interceptors.Options {
	return interceptors.Options{
		Policies:   map[temporaladk.Class]policies.ActivityPolicy{temporaladk.Model: modelPolicy(t)},
		Activities: map[string]temporaladk.Declaration{chatType: {Class: temporaladk.Model, Idempotency: temporaladk.ReadOnly}},
		Random:     func() float64 { return drawn },
	}
}

func attrs(kvs []attribute.KeyValue) map[attribute.Key]attribute.Value {
	out := map[attribute.Key]attribute.Value{}
	for _, kv := range kvs {
		out[kv.Key] = kv.Value
	}
	return out
}

func spansNamed(spans []sdktrace.ReadOnlySpan, name string) []sdktrace.ReadOnlySpan {
	var out []sdktrace.ReadOnlySpan
	for _, s := range spans {
		if s.Name() == name {
			out = append(out, s)
		}
	}
	return out
}

// TestIntegrationRefusedCallInTraces: on the dev server, a MODEL call that
// fails, retries twice after a drawn wait and is then refused by its
// budget of attempts carries the kit's attributes on its three RunActivity
// spans; the run's span has one refusal event per refused call; no span carries the
// key; and replaying the history with the plugin ends no span (the SDK's
// tracing interceptor alone ends the run's span again).
func TestIntegrationRefusedCallInTraces(t *testing.T) {
	srv := testsuite.DevServerFor(t, testsuite.DevServerOptions{})
	recorder := tracetest.NewSpanRecorder()
	provider := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(recorder))
	tracing := temporalotel.TracerOptions{Tracer: provider.Tracer("temporaladk-test")}
	kitPlugin, err := interceptors.NewPlugin(kitOptions(t))
	require.NoError(t, err)
	own := &refusalCount{}
	kitOpts := kitOptions(t)
	kitOpts.Observer = own
	plugin, err := opentelemetry.New(opentelemetry.Options{Kit: kitOpts, Tracing: tracing})
	require.NoError(t, err)

	queue := "otel-refused"
	w := worker.New(srv.Client(), queue, worker.Options{Plugins: []worker.Plugin{plugin}})
	w.RegisterWorkflow(RefusedWorkflow)
	w.RegisterActivityWithOptions(Chat, activityOptions(chatType))
	require.NoError(t, w.Start())
	t.Cleanup(w.Stop)

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	run, err := srv.Client().ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: "otel-refused", TaskQueue: queue}, RefusedWorkflow)
	require.NoError(t, err)
	var breached string
	require.NoError(t, run.Get(ctx, &breached))
	require.Equal(t, "attempts,attempts", breached)
	w.Stop()

	ended := recorder.Ended()
	activities := spansNamed(ended, "RunActivity:"+chatType)
	require.Len(t, activities, budgetLimit, "one span per attempt run")
	slices.SortFunc(activities, func(a, b sdktrace.ReadOnlySpan) int {
		return int(attrs(a.Attributes())[opentelemetry.AttrAttemptNumber].AsInt64() - attrs(b.Attributes())[opentelemetry.AttrAttemptNumber].AsInt64())
	})
	retry := modelPolicy(t).Retry
	for i, span := range activities {
		n := i + 1
		got := attrs(span.Attributes())
		t.Run(fmt.Sprintf("attempt %d", n), func(t *testing.T) {
			assert.Equal(t, int64(n), got[opentelemetry.AttrAttemptNumber].AsInt64())
			assert.Equal(t, "MODEL", got[opentelemetry.AttrClass].AsString())
			// The server holds the call's attempts to what its budget of
			// attempts had left when it was scheduled (its first attempt charged): the
			// fewer of the class's attempts and the budget's.
			assert.Equal(t, int64(min(retry.MaxAttempts, budgetLimit)), got[opentelemetry.AttrAttemptPlanned].AsInt64())
			assert.False(t, got[opentelemetry.AttrAttemptSingle].AsBool())
			assert.Equal(t, "READ_ONLY", got[opentelemetry.AttrIdempotencyKind].AsString())
			assert.True(t, got[opentelemetry.AttrIdempotencyKeyPresent].AsBool())
			assert.Equal(t, "call-1", got[opentelemetry.AttrBudgetCall].AsString())
			if n < budgetLimit {
				want, err := retry.JitterDecision(n, drawn)
				require.NoError(t, err)
				assert.Equal(t, temporaladk.TypeProvider, got[opentelemetry.AttrErrorType].AsString())
				assert.Equal(t, "jitter", got[opentelemetry.AttrRetrySource].AsString())
				assert.Equal(t, want.Wait.Milliseconds(), got[opentelemetry.AttrRetryWaitMillis].AsInt64())
				assert.Positive(t, got[opentelemetry.AttrRetryWaitMillis].AsInt64(), "a drawn wait")
				assert.Equal(t, want.Requested.Milliseconds(), got[opentelemetry.AttrRetryRequestedMillis].AsInt64())
				assert.False(t, got[opentelemetry.AttrRetryTruncated].AsBool())
				assert.False(t, got[opentelemetry.AttrRetryFinal].AsBool())
				_, present := got[opentelemetry.AttrBudgetRemaining]
				assert.True(t, present, "the span says what the budget has left")
				assert.Equal(t, float64(budgetLimit-n-1), got[opentelemetry.AttrBudgetRemaining].AsFloat64(),
					"what the budget has left once the next attempt is charged")
				return
			}
			assert.Equal(t, temporaladk.TypeBudgetExceeded, got[opentelemetry.AttrErrorType].AsString())
			assert.Equal(t, "attempts", got[opentelemetry.AttrBudgetBreached].AsString())
			assert.Equal(t, float64(budgetLimit), got[opentelemetry.AttrBudgetLimit].AsFloat64())
			assert.Equal(t, float64(budgetLimit), got[opentelemetry.AttrBudgetConsumed].AsFloat64())
			assert.Equal(t, float64(0), got[opentelemetry.AttrBudgetRemaining].AsFloat64())
			assert.Equal(t, int64(budgetLimit), got[opentelemetry.AttrBudgetAttempts].AsInt64())
		})
	}

	runs := spansNamed(ended, "RunWorkflow:RefusedWorkflow")
	require.Len(t, runs, 1)
	var refusals []map[attribute.Key]attribute.Value
	for _, e := range runs[0].Events() {
		if e.Name == opentelemetry.EventBudgetRefused {
			refusals = append(refusals, attrs(e.Attributes))
		}
	}
	require.Len(t, refusals, 2, "the refused retry and the refused first attempt")
	assert.Equal(t, "call-1", refusals[0][opentelemetry.AttrBudgetCall].AsString())
	assert.Equal(t, int64(budgetLimit+1), refusals[0][opentelemetry.AttrBudgetRefusedAttempt].AsInt64())
	assert.Equal(t, chatType, refusals[1][opentelemetry.AttrActivityType].AsString())
	assert.Equal(t, int64(1), refusals[1][opentelemetry.AttrBudgetRefusedAttempt].AsInt64())
	for _, r := range refusals {
		assert.Equal(t, "attempts", r[opentelemetry.AttrBudgetBreached].AsString())
		assert.Equal(t, float64(0), r[opentelemetry.AttrBudgetRemaining].AsFloat64())
		assert.Equal(t, int64(budgetLimit), r[opentelemetry.AttrBudgetAttempts].AsInt64())
	}

	assert.Equal(t, int64(2), own.n.Load(), "the user's own observer sees the refusals too")

	for _, span := range ended {
		for _, kv := range span.Attributes() {
			assert.NotContains(t, kv.Value.Emit(), secretKey, "span %s attribute %s", span.Name(), kv.Key)
		}
		for _, e := range span.Events() {
			for _, kv := range e.Attributes {
				assert.NotContains(t, kv.Value.Emit(), secretKey, "span %s event %s", span.Name(), e.Name)
			}
		}
	}

	path := filepath.Join(t.TempDir(), "refused.json")
	require.NoError(t, testsuite.RecordHistory(ctx, srv.Client(), run.GetID(), run.GetRunID(), path))
	workflows := []testsuite.ReplayWorkflow{{Func: RefusedWorkflow}}

	t.Run("replay with the plugin", func(t *testing.T) {
		before, started := len(recorder.Ended()), len(recorder.Started())
		require.NoError(t, testsuite.ReplayFile(path, testsuite.ReplayOptions{Workflows: workflows, Plugins: []worker.Plugin{plugin}}))
		assert.Equal(t, before, len(recorder.Ended()), "no span ended twice: %v", names(recorder.Ended()[before:]))
		assert.Equal(t, started+1+budgetLimit, len(recorder.Started()), "the replay started the run's span and each charge Update's, and dropped them")
		assert.Equal(t, len(ended), before)
	})

	t.Run("replay with the SDK's tracing interceptor alone", func(t *testing.T) {
		sdkTracing, err := temporalotel.NewTracingInterceptor(tracing)
		require.NoError(t, err)
		before := len(recorder.Ended())
		require.NoError(t, testsuite.ReplayFile(path, testsuite.ReplayOptions{
			Workflows:    workflows,
			Interceptors: []interceptor.WorkerInterceptor{sdkTracing},
			Plugins:      []worker.Plugin{kitPlugin},
		}))
		assert.Equal(t, []string{"HandleUpdate:temporaladk.charges", "HandleUpdate:temporaladk.charges", "HandleUpdate:temporaladk.charges", "RunWorkflow:RefusedWorkflow"},
			names(recorder.Ended()[before:]), "the SDK ends the run's span and its charge Updates' again on replay")
	})
}

// refusalCount is a user's own observer, given in the kit's options beside
// the plugin's: it counts the refusals.
type refusalCount struct {
	observe.Base
	n atomic.Int64
}

// BudgetRefused counts the refusal.
func (r *refusalCount) BudgetRefused(workflow.Context, observe.Refusal) { r.n.Add(1) }

func activityOptions(name string) activity.RegisterOptions {
	return activity.RegisterOptions{Name: name}
}

func names(spans []sdktrace.ReadOnlySpan) []string {
	var out []string
	for _, s := range spans {
		out = append(out, s.Name())
	}
	return out
}
