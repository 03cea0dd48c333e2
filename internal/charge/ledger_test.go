package charge

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/temporal"
	sdktestsuite "go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/workflow"

	"github.com/temporaladk/adk-go/internal/budget"
	"github.com/temporaladk/adk-go/internal/vocab"
	"github.com/temporaladk/adk-go/internal/wire"
	"github.com/temporaladk/adk-go/temporaladk"
)

// inWorkflow runs f as a workflow in the SDK's test environment, without
// the kit's interceptors, and returns the workflow's error.
func inWorkflow(t *testing.T, f func(ctx workflow.Context) error) error {
	t.Helper()
	var s sdktestsuite.WorkflowTestSuite
	env := s.NewTestWorkflowEnvironment()
	env.ExecuteWorkflow(f)
	require.True(t, env.IsWorkflowCompleted())
	return env.GetWorkflowError()
}

// handedOver is the validator's rejection the kit gives the ledger: a
// BudgetClosedError, as interceptors raises it.
var handedOver = vocab.ToApplicationError(&temporaladk.BudgetClosedError{Message: "temporaladk: this run is continuing as new and charges nothing more"}, vocab.ConvertOptions{Final: true})

func newTestLedger() *Ledger { return NewLedger(Hooks{HandedOver: handedOver}) }

func TestLedgerChargesAChildsCallsToItsDelegation(t *testing.T) {
	err := inWorkflow(t, func(ctx workflow.Context) error {
		l := newTestLedger()
		l.chain = budget.NewChain(budget.Carried{})
		run, err := budget.NewAttemptBudget(3)
		if err != nil {
			return err
		}
		pool, err := budget.NewRetryBudget(1)
		if err != nil {
			return err
		}
		assert.Equal(t, "child-1", l.Delegate(Delegation{Attempts: run, Retries: pool}))
		assert.Equal(t, "child-2", l.Delegate(Delegation{Attempts: run}), "one name per child, in order")

		first := wire.ChargeRequest{Call: "child-1/r/1", Attempt: 1, Delegation: "child-1", Class: temporaladk.Model}
		assert.Equal(t, granted(2), l.charge(ctx, first), "a child's first attempt is charged at its parent; the run budget has 2 left")
		assert.Equal(t, 1, run.Spent())
		assert.Equal(t, 1, pool.FirstAttempts())
		assert.Equal(t, granted(2), l.charge(ctx, first), "asked again: granted")
		assert.Equal(t, 1, run.Spent(), "asked again: charged once")

		retry := first
		retry.Attempt = 2
		assert.Equal(t, granted(1), l.charge(ctx, retry))
		assert.Equal(t, 2, run.Spent())
		assert.Equal(t, 1, pool.Spent())

		retry.Attempt = 3
		res := l.charge(ctx, retry)
		require.NotNil(t, res.Refused, "the pool of 1 refuses a second retry")
		assert.False(t, res.Granted)
		assert.Equal(t, "retries", res.Refused.Breached)
		assert.Equal(t, 2, run.Spent(), "a refusal spends nothing")

		// The second child shares the run budget: one ceiling across the
		// family.
		other := wire.ChargeRequest{Call: "child-2/r2/1", Attempt: 1, Delegation: "child-2", Class: temporaladk.Tool}
		assert.Equal(t, granted(0), l.charge(ctx, other))
		assert.Equal(t, 3, run.Spent())
		other.Call = "child-2/r2/2"
		res = l.charge(ctx, other)
		require.NotNil(t, res.Refused, "the ceiling of 3 holds across the children")
		assert.Equal(t, "attempts", res.Refused.Breached)
		assert.Equal(t, 3, run.Spent(), "never past the ceiling")
		return nil
	})
	require.NoError(t, err)
}

func TestLedgerRefusesUnknownCallsAndDelegations(t *testing.T) {
	err := inWorkflow(t, func(ctx workflow.Context) error {
		l := newTestLedger()
		l.chain = budget.NewChain(budget.Carried{})
		res := l.charge(ctx, wire.ChargeRequest{Call: "child-9/r/1", Attempt: 1, Delegation: "child-9"})
		assert.False(t, res.Granted)
		assert.Nil(t, res.Refused)
		assert.Contains(t, res.Error, `"child-9"`, "the error names the unknown delegation")
		res = l.charge(ctx, wire.ChargeRequest{Call: "call-4", Attempt: 2})
		assert.False(t, res.Granted)
		assert.Contains(t, res.Error, `"call-4"`, "the error names the unknown call")
		assert.Empty(t, l.calls, "nothing recorded for an unknown request")
		return nil
	})
	require.NoError(t, err)
}

func TestLedgerValidatorRejectsChargesAfterTheHandOver(t *testing.T) {
	var s sdktestsuite.WorkflowTestSuite
	env := s.NewTestWorkflowEnvironment()
	var rejected, completed []error
	send := func(id string) {
		env.UpdateWorkflow(wire.ChargeUpdateName, id, &sdktestsuite.TestUpdateCallback{
			OnReject:   func(err error) { rejected = append(rejected, err) },
			OnAccept:   func() {},
			OnComplete: func(_ any, err error) { completed = append(completed, err) },
		}, []wire.ChargeRequest{{Call: "call-1", Attempt: 2}})
	}
	env.RegisterDelayedCallback(func() { send("before") }, 1)
	env.RegisterDelayedCallback(func() { send("after") }, 3)
	env.ExecuteWorkflow(func(ctx workflow.Context) error {
		l := newTestLedger()
		l.chain = budget.NewChain(budget.Carried{})
		if err := l.register(ctx); err != nil {
			return err
		}
		if err := workflow.Sleep(ctx, 2); err != nil {
			return err
		}
		l.chain.Close()
		return workflow.Sleep(ctx, 2)
	})
	require.NoError(t, env.GetWorkflowError())
	require.Len(t, completed, 1, "the charge before the hand-over is handled")
	assert.NoError(t, completed[0])
	require.Len(t, rejected, 1, "the charge after the hand-over is rejected")
	var app *temporal.ApplicationError
	require.ErrorAs(t, rejected[0], &app)
	assert.Equal(t, temporaladk.TypeBudgetClosed, app.Type())
	assert.ErrorIs(t, classifyChargeError(rejected[0]), ErrBudgetClosed, "the activity side reads the rejection as a closed budget")
}

// granted is a granted charge whose budget has n left.
func granted(n int) wire.ChargeResult { return wire.ChargeResult{Granted: true, Remaining: &n} }

// TestExhaustedRetryablyReadsOnlyARetryableFailureOfTheUsersCode holds the
// evidence the ledger reads at versions 3 and 4: only a failure of the user's
// code that the call's retry policy retries ends a call by running out of
// attempts. A refusal or an unanswered charge of the kit's, a failure
// marked non-retryable or of a type the policy lists, a timeout (its
// ScheduleToClose ends a call with attempts left) and a cancellation are
// not, and neither is a success.
func TestExhaustedRetryablyReadsOnlyARetryableFailureOfTheUsersCode(t *testing.T) {
	activityErr := func(cause error) error {
		return temporal.NewApplicationErrorWithCause("activity error", "", cause)
	}
	provider := temporal.NewApplicationError("503", temporaladk.TypeProvider)
	never := []string{temporaladk.TypeBudgetExceeded, "LedgerLocked"}
	for _, c := range []struct {
		name string
		err  error
		want bool
	}{
		{"a retryable failure of the user's code", activityErr(provider), true},
		{"a plain error of the user's code", temporal.NewApplicationError("disk full", ""), true},
		{"a success", nil, false},
		{"marked non-retryable", temporal.NewNonRetryableApplicationError("no", temporaladk.TypeProvider, nil), false},
		{"of a type the policy does not retry", temporal.NewApplicationError("locked", "LedgerLocked"), false},
		{"the budget's refusal", temporal.NewNonRetryableApplicationError("refused", temporaladk.TypeBudgetExceeded, nil), false},
		{"a charge unanswered, before the user's code", temporal.NewApplicationError("no answer", temporaladk.TypeBudgetUnavailable), false},
		{"a timeout whose last failure was retryable", temporal.NewTimeoutError(0, provider), false},
		{"a cancellation", temporal.NewCanceledError(), false},
	} {
		assert.Equal(t, c.want, exhaustedRetryably(c.err, never, budgetVersion), c.name)
		assert.Equal(t, c.want, exhaustedRetryably(c.err, never, countedVersion), "%s, in a run of version 3", c.name)
	}
	// A failure of a never-retryable type's former name, not marked
	// non-retryable (returned raw on a worker without the kit): the retry
	// policies of a run before namespacedVersion listed it, so the server
	// did not retry it; a later run's policies do not, and it did.
	raw := temporal.NewApplicationError("schema", "SchemaViolationError")
	assert.False(t, exhaustedRetryably(raw, never, countedVersion), "listed by the policy of a version 3 run")
	assert.True(t, exhaustedRetryably(raw, never, namespacedVersion), "retried by a later run's policy")
	assert.True(t, exhaustedRetryably(temporal.NewApplicationError("x", "ProviderError"), never, countedVersion),
		"a former type that was retryable was not listed")
}
