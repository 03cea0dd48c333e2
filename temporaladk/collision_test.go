package temporaladk_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	"github.com/temporaladk/adk-go/interceptors"
	"github.com/temporaladk/adk-go/internal/vocab"
	"github.com/temporaladk/adk-go/policies"
	"github.com/temporaladk/adk-go/temporaladk"
	kittest "github.com/temporaladk/adk-go/testsuite"
)

// BudgetExceededError is a user's own error that happens to share its name
// with a never-retryable kit error: it crosses as an ApplicationError of
// type "BudgetExceededError".
type BudgetExceededError struct{}

func (BudgetExceededError) Error() string { return "the user's own budget error" }

// QuotaError is a user's own error of a name the kit never used.
type QuotaError struct{}

func (QuotaError) Error() string { return "the user's own quota error" }

// ownErrorWorkflow calls activity under a retry policy of three attempts
// that lists nonRetryable, on no class of the kit's.
func ownErrorWorkflow(ctx workflow.Context, activityName string, nonRetryable []string) error {
	ctx = workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		StartToCloseTimeout: 10 * time.Second,
		RetryPolicy:         &temporal.RetryPolicy{MaximumAttempts: 3, InitialInterval: time.Millisecond, NonRetryableErrorTypes: nonRetryable},
	})
	return workflow.ExecuteActivity(ctx, activityName).Get(ctx, nil)
}

// What the package doc says of errors outside the hierarchy holds whatever
// their name: the kit's type strings are its own ("Temporaladk..."), so a
// user's error named as a kit error was named before is retried as its
// policy says with the kit registered, and the kit's own error still is
// not retried.
func TestOwnErrorNamedLikeAKitErrorIsRetried(t *testing.T) {
	t.Parallel()
	attempts := func(t *testing.T, name string, fail error) int64 {
		t.Helper()
		var s testsuite.WorkflowTestSuite
		env, err := kittest.NewKitTestEnvironment(&s, interceptors.Options{})
		require.NoError(t, err)
		var n atomic.Int64
		env.RegisterActivityWithOptions(func(context.Context) error { n.Add(1); return fail }, activity.RegisterOptions{Name: name})
		env.RegisterWorkflow(ownErrorWorkflow)
		env.ExecuteWorkflow(ownErrorWorkflow, name, []string(nil))
		require.Error(t, env.GetWorkflowError())
		return n.Load()
	}
	assert.Equal(t, int64(3), attempts(t, "Quota", QuotaError{}), "an error of a name of its own is retried as its policy says")
	assert.Equal(t, int64(3), attempts(t, "Budget", BudgetExceededError{}), "so is one whose Go type is named like a kit error")
	assert.Equal(t, int64(3), attempts(t, "Schema", temporal.NewApplicationError("the user's own schema error", "SchemaViolationError")),
		"and an ApplicationError of a type the kit recorded before")
	assert.Equal(t, int64(1), attempts(t, "KitSchema", &temporaladk.SchemaViolationError{Schema: "Booking"}), "the kit's own error is never retried")
}

// decoded is app after a trip through history: what the SDK's default
// failure converter makes of the failure it records, as a workflow's
// future or a history reader gets it.
func decoded(app error) error {
	fc := temporal.GetDefaultFailureConverter()
	return fc.FailureToError(fc.ErrorToFailure(app))
}

// A failure recorded under a type the kit used before (the Go type's name)
// is still the kit's error when it is read back from history: errors.As
// finds the typed error with its fields and its cause, and the kit's
// answers are those of its row. The same ApplicationError made by the
// user's code, never recorded, is not the kit's.
func TestFormerTypeReadFromHistory(t *testing.T) {
	t.Parallel()
	for _, e := range kitErrors() {
		row, ok := vocab.LookupErrorType(e.Type())
		require.True(t, ok)
		t.Run(row.Formerly, func(t *testing.T) {
			t.Parallel()
			cause := temporal.NewApplicationErrorWithOptions("the provider's reason", "ProviderError",
				temporal.ApplicationErrorOptions{Details: []any{temporaladk.ProviderError{Provider: "openai", StatusCode: 503}}})
			made := temporal.NewApplicationErrorWithOptions(e.Error(), row.Formerly, temporal.ApplicationErrorOptions{
				NonRetryable: !e.Retryable(), Details: []any{e}, Cause: cause,
			})
			recorded := decoded(made)

			got, ok := temporaladk.AsError(temporaladk.FromApplicationError(recorded))
			require.True(t, ok, "%s recorded is the kit's", row.Formerly)
			assert.Equal(t, e.Type(), got.Type(), "read as the row's type")
			wantFields, err := json.Marshal(e)
			require.NoError(t, err)
			gotFields, err := json.Marshal(got)
			require.NoError(t, err)
			assert.JSONEq(t, string(wantFields), string(gotFields), "with its fields")
			assert.Equal(t, e.Retryable(), policies.Retryable(recorded), "the row's retry answer")
			recordedRow, ok := vocab.ErrorTypeOf(recorded)
			require.True(t, ok)
			assert.Equal(t, row.Type, recordedRow.Type)
			if unwrapped := errors.Unwrap(got); unwrapped != nil {
				var provider *temporaladk.ProviderError
				require.ErrorAs(t, unwrapped, &provider, "a recorded cause under a former type is typed too")
				assert.Equal(t, 503, provider.StatusCode)
			}

			_, ok = temporaladk.AsError(made)
			assert.False(t, ok, "made by the user's code under %s, it is not the kit's", row.Formerly)
			_, ok = vocab.ErrorTypeOf(made)
			assert.False(t, ok)
			assert.Same(t, made, temporaladk.FromApplicationError(made), "and is left alone")
		})
	}
}

// A RetryDecision an earlier build recorded beside a former type is read
// back.
func TestRetryDecisionOfFormerType(t *testing.T) {
	t.Parallel()
	want := temporaladk.RetryDecision{Source: "jitter", Requested: time.Second, Wait: time.Second}
	made := temporal.NewApplicationErrorWithOptions("provider error", "ProviderError", temporal.ApplicationErrorOptions{
		Details: []any{temporaladk.ProviderError{Provider: "openai", StatusCode: 503}, want},
	})
	got, ok := temporaladk.RetryDecisionOf(decoded(made))
	require.True(t, ok)
	assert.Equal(t, want, got)
	_, ok = temporaladk.RetryDecisionOf(made)
	assert.False(t, ok, "not from an error the user's code made under the former type")
}

// ownServerActivities are the activities of
// TestServerOwnErrorNamedLikeAKitError, each failing every attempt; the
// server's history counts them.
type ownServerActivities struct{}

// OwnSchema fails as a user's own ApplicationError of type
// "SchemaViolationError".
func (*ownServerActivities) OwnSchema(context.Context) error {
	return temporal.NewApplicationError("the user's own schema error", "SchemaViolationError")
}

// OwnBudget fails as a user's own ApplicationError of type
// "BudgetExceededError".
func (*ownServerActivities) OwnBudget(context.Context) error {
	return temporal.NewApplicationError("the user's own budget error", "BudgetExceededError")
}

// KitSchema fails with the kit's own SchemaViolationError.
func (*ownServerActivities) KitSchema(context.Context) error {
	return &temporaladk.SchemaViolationError{Schema: "Booking", Path: "$.seat", Reason: "missing"}
}

// On a real server, with the kit registered: a user's own ApplicationError
// of a type the kit used before is retried as its retry policy says (three
// attempts in history), the kit's own error is not (one): also when the
// call was scheduled by a workflow worker without the kit whose retry
// policy lists only the former types, as an earlier build's did (the
// activity side marks the failure non-retryable itself), and when an
// activity worker without the kit returns it raw (it crosses under its Go
// type's name, which is its type, listed by the kit's retry policy).
func TestServerOwnErrorNamedLikeAKitError(t *testing.T) {
	t.Parallel()
	c := kittest.DevServerFor(t).Client()
	kitQueue, plainQueue, plainActsQueue := "temporaladk-collision-kit", "temporaladk-collision-plain", "temporaladk-collision-plain-acts"
	plugin, err := interceptors.NewPlugin(interceptors.Options{})
	require.NoError(t, err)
	kitWorker := worker.New(c, kitQueue, worker.Options{Plugins: []worker.Plugin{plugin}})
	kitWorker.RegisterWorkflowWithOptions(callOnQueue, workflow.RegisterOptions{Name: "KitCaller"})
	kitWorker.RegisterActivity(&ownServerActivities{})
	require.NoError(t, kitWorker.Start())
	t.Cleanup(kitWorker.Stop)
	plainWorker := worker.New(c, plainQueue, worker.Options{})
	plainWorker.RegisterWorkflowWithOptions(callOnQueue, workflow.RegisterOptions{Name: "EarlierCaller"})
	require.NoError(t, plainWorker.Start())
	t.Cleanup(plainWorker.Stop)
	plainActs := worker.New(c, plainActsQueue, worker.Options{})
	plainActs.RegisterActivity(&ownServerActivities{})
	require.NoError(t, plainActs.Start())
	t.Cleanup(plainActs.Stop)

	formerNever := []string{"SchemaViolationError", "GuardrailViolationError", "GuardrailEvaluationError", "BudgetExceededError", "ApprovalDeniedError", "ScopeEscalationError"}
	for _, tt := range []struct {
		name, queue, caller, activity, activityQueue string
		nonRetryable                                 []string
		want                                         int32
		wantType                                     string
	}{
		{"own SchemaViolationError", kitQueue, "KitCaller", "OwnSchema", "", nil, 3, "SchemaViolationError"},
		{"own BudgetExceededError", kitQueue, "KitCaller", "OwnBudget", "", nil, 3, "BudgetExceededError"},
		{"the kit's SchemaViolationError", kitQueue, "KitCaller", "KitSchema", "", nil, 1, temporaladk.TypeSchemaViolation},
		{"the kit's, scheduled by an earlier worker", plainQueue, "EarlierCaller", "KitSchema", kitQueue, formerNever, 1, temporaladk.TypeSchemaViolation},
		{"the kit's, returned raw without the kit", kitQueue, "KitCaller", "KitSchema", plainActsQueue, nil, 1, temporaladk.TypeSchemaViolation},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			id := fmt.Sprintf("collision-%s-%d", strings.ReplaceAll(tt.name, " ", "-"), time.Now().UnixNano())
			run, err := c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: id, TaskQueue: tt.queue}, tt.caller, tt.activity, tt.activityQueue, tt.nonRetryable)
			require.NoError(t, err)
			werr := run.Get(ctx, nil)
			var app *temporal.ApplicationError
			require.ErrorAs(t, werr, &app)
			assert.Equal(t, tt.wantType, app.Type(), "the type the server recorded")
			h, err := kittest.WorkflowHistory(ctx, c, run.GetID(), run.GetRunID())
			require.NoError(t, err)
			assert.Equal(t, []int32{tt.want}, kittest.StartedAttempts(h.GetEvents()), "attempts in history")
		})
	}
}

// callOnQueue calls activity on queue ("" for the workflow's own) under a
// retry policy of three attempts listing nonRetryable. Registered on a
// worker without the kit, it schedules the call as a workflow worker of an
// earlier build did, its policy listing what that build listed.
func callOnQueue(ctx workflow.Context, activityName, queue string, nonRetryable []string) error {
	ctx = workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		TaskQueue:           queue,
		StartToCloseTimeout: 10 * time.Second,
		RetryPolicy:         &temporal.RetryPolicy{MaximumAttempts: 3, InitialInterval: time.Millisecond, NonRetryableErrorTypes: nonRetryable},
	})
	return workflow.ExecuteActivity(ctx, activityName).Get(ctx, nil)
}

// The package doc's table of error types says what the error table says:
// each row's Go type, the type the server records and whether it is
// retried, for every row that had a former name.
func TestDocErrorTableMatchesTheCode(t *testing.T) {
	t.Parallel()
	src, err := os.ReadFile("doc.go")
	require.NoError(t, err)
	documented := map[string]bool{}
	for _, line := range strings.Split(string(src), "\n") {
		fields := strings.Fields(strings.TrimPrefix(line, "//"))
		if !strings.HasPrefix(line, "//\t*") || len(fields) < 3 {
			continue
		}
		row, ok := vocab.LookupErrorType(fields[1])
		require.True(t, ok, "doc.go: %s is no type of the error table", fields[1])
		assert.Equal(t, "*"+row.Formerly, fields[0], "doc.go: %s", fields[1])
		want := vocab.RetryByFields
		switch strings.Join(fields[2:], " ") {
		case "never":
			want = vocab.RetryNever
		case "yes":
			want = vocab.RetryYes
		case "no":
			want = vocab.RetryNo
		}
		assert.Equal(t, want, row.Retry, "doc.go: %s is retried %q", fields[1], strings.Join(fields[2:], " "))
		documented[row.Type] = true
	}
	for _, row := range vocab.ErrorTypes() {
		if row.Formerly != "" {
			assert.True(t, documented[row.Type], "doc.go's table lacks %s", row.Type)
		}
	}
}
