package interceptors

import (
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	commonpb "go.temporal.io/api/common/v1"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/temporal"
	sdktestsuite "go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/workflow"

	"github.com/temporaladk/adk-go/internal/budget"
	"github.com/temporaladk/adk-go/internal/seam"
	"github.com/temporaladk/adk-go/internal/wire"
	"github.com/temporaladk/adk-go/temporaladk"
)

func TestChainHeaderRoundTrips(t *testing.T) {
	want := budget.Carried{
		Runs:   map[string]budget.RunState{"turns": {Limit: 30, Spent: 7}},
		Pools:  map[string]budget.PoolState{"fanout": {Size: 5, Used: 2, Firsts: 9}},
		Tokens: map[string]budget.MeterState{"agent": {Limit: 2000, Spent: 600}},
		Costs:  map[string]budget.MeterState{"agent": {Limit: 5_000_000, Spent: 1125}},
		Owner:  &budget.Owner{WorkflowID: "wf", RunID: "run", Delegation: "child-1", Tokens: true, Cost: true, MaxTokens: 700, Model: "m1"},
	}
	fields := map[string]*commonpb.Payload{}
	require.NoError(t, writeChainHeader(fields, want))
	require.Contains(t, fields, wire.ChainHeaderKey)
	got, err := readChainHeader(fields)
	require.NoError(t, err)
	assert.Equal(t, want, got)
}

// The owner a header of an earlier build wrote, without the cap and the
// model a child now inherits, reads as an owner without them.
func TestChainHeaderOfAnEarlierBuild(t *testing.T) {
	got, err := readChainHeader(map[string]*commonpb.Payload{wire.ChainHeaderKey: jsonPayload(`{"owner":{"workflow_id":"wf","run_id":"r","delegation":"child-1","tokens":true}}`)})
	require.NoError(t, err)
	assert.Equal(t, budget.Carried{Owner: &budget.Owner{WorkflowID: "wf", RunID: "r", Delegation: "child-1", Tokens: true}}, got)
}

func TestChainHeaderAbsentIsNothingCarried(t *testing.T) {
	for name, fields := range map[string]map[string]*commonpb.Payload{
		"nil fields":    nil,
		"no such field": {"other": {Data: []byte(`{}`)}},
		"nil payload":   {wire.ChainHeaderKey: nil},
	} {
		t.Run(name, func(t *testing.T) {
			got, err := readChainHeader(fields)
			require.NoError(t, err)
			assert.Equal(t, budget.Carried{}, got)
		})
	}
}

func TestWriteChainHeaderRefusesNoHeader(t *testing.T) {
	err := writeChainHeader(nil, budget.Carried{Runs: map[string]budget.RunState{"turns": {Limit: 1}}})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "no header")
}

// jsonPayload is a payload as the SDK's default converter writes JSON.
func jsonPayload(data string) *commonpb.Payload {
	return &commonpb.Payload{Metadata: map[string][]byte{"encoding": []byte("json/plain")}, Data: []byte(data)}
}

func TestBadChainHeaderIsAnErrorNamingIt(t *testing.T) {
	tests := []struct {
		name string
		p    *commonpb.Payload
		want string
	}{
		{"garbage bytes", jsonPayload(`{not json`), "does not decode"},
		{"unknown encoding", &commonpb.Payload{Metadata: map[string][]byte{"encoding": []byte("binary/gibberish")}, Data: []byte("x")}, "does not decode"},
		{"runs of the wrong type", jsonPayload(`{"runs":[1,2]}`), "does not decode"},
		{"negative spent", jsonPayload(`{"runs":{"turns":{"limit":5,"spent":-1}}}`), `run budget "turns": limit 5, spent -1`},
		{"zero limit", jsonPayload(`{"runs":{"turns":{"limit":0,"spent":0}}}`), `run budget "turns": limit 0`},
		{"negative limit", jsonPayload(`{"runs":{"turns":{"limit":-3,"spent":0}}}`), `run budget "turns": limit -3`},
		{"run budget without a name", jsonPayload(`{"runs":{"":{"limit":2,"spent":0}}}`), `run budget ""`},
		{"negative pool size", jsonPayload(`{"pools":{"p":{"size":-1,"used":0,"firsts":0}}}`), `retry pool "p": size -1`},
		{"negative pool used", jsonPayload(`{"pools":{"p":{"size":1,"used":-2,"firsts":0}}}`), `retry pool "p": size 1, used -2`},
		{"negative first attempts", jsonPayload(`{"pools":{"p":{"size":1,"used":0,"firsts":-4}}}`), "first attempts -4"},
		{"owner without a run ID", jsonPayload(`{"owner":{"workflow_id":"wf","delegation":"child-1"}}`), "owner"},
		{"owner without a delegation", jsonPayload(`{"owner":{"workflow_id":"wf","run_id":"r"}}`), "owner"},
		{"owner with a negative cap", jsonPayload(`{"owner":{"workflow_id":"wf","run_id":"r","delegation":"child-1","max_tokens":-1}}`), "a cap must not be negative"},
		{"negative token spending", jsonPayload(`{"tokens":{"t":{"limit":5,"spent":-1}}}`), `token budget "t": limit 5, spent -1`},
		{"a cost budget without a ceiling", jsonPayload(`{"costs":{"c":{"limit":0,"spent":0}}}`), `cost budget "c": limit 0`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := readChainHeader(map[string]*commonpb.Payload{wire.ChainHeaderKey: tt.p})
			require.Error(t, err)
			assert.Contains(t, err.Error(), wire.ChainHeaderKey, "the error names the header")
			assert.Contains(t, err.Error(), tt.want)
			assert.Equal(t, budget.Carried{}, got, "nothing half-read")
		})
	}
}

func TestClassifyChargeError(t *testing.T) {
	outOfUpdates := serviceerror.NewFailedPrecondition("The limit on the total number of distinct updates in this workflow has been reached.")
	otherPrecondition := serviceerror.NewFailedPrecondition("the workflow is not running on a compatible build")
	notFound := serviceerror.NewNotFound("workflow execution already completed")
	closedApp := temporal.NewNonRetryableApplicationError("handed over", TypeBudgetClosed, nil)
	otherApp := temporal.NewApplicationError("something else", "SomeType")
	plain := errors.New("connection reset")
	tests := []struct {
		name string
		err  error
		want error // the sentinel, or nil for "returned as it is"
	}{
		{"server out of Updates", outOfUpdates, errRunOutOfUpdates},
		{"server out of Updates, wrapped", fmt.Errorf("sending: %w", outOfUpdates), errRunOutOfUpdates},
		{"another failed precondition", otherPrecondition, nil},
		{"run closed", notFound, errBudgetClosed},
		{"run closed, wrapped", fmt.Errorf("sending: %w", notFound), errBudgetClosed},
		{"validator's rejection", closedApp, errBudgetClosed},
		{"validator's rejection, wrapped", fmt.Errorf("update: %w", closedApp), errBudgetClosed},
		{"another application error", otherApp, nil},
		{"a transport error", plain, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := classifyChargeError(tt.err)
			if tt.want == nil {
				assert.Same(t, tt.err, got, "returned as it is")
				assert.False(t, finalCharge(got), "the next attempt asks again")
				return
			}
			assert.ErrorIs(t, got, tt.want)
			assert.True(t, finalCharge(got))
			assert.Contains(t, got.Error(), tt.err.Error(), "the server's own words are kept")
		})
	}
}

func TestUnchargedError(t *testing.T) {
	failed := errors.New("the attempt's own failure")
	tests := []struct {
		name      string
		cerr      error
		typ       string
		retryable bool
	}{
		{"out of Updates", fmt.Errorf("charging: %w (x)", errRunOutOfUpdates), TypeRunOutOfUpdates, false},
		{"budget closed", fmt.Errorf("charging: %w (x)", errBudgetClosed), TypeBudgetClosed, false},
		{"no answer", errors.New("charging: context deadline exceeded"), TypeBudgetUnavailable, true},
	}
	for _, tt := range tests {
		for _, withFailure := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s, attempt failed %v", tt.name, withFailure), func(t *testing.T) {
				var f error
				if withFailure {
					f = failed
				}
				err := unchargedError(tt.cerr, f)
				var app *temporal.ApplicationError
				require.ErrorAs(t, err, &app)
				assert.Equal(t, tt.typ, app.Type())
				assert.Equal(t, !tt.retryable, app.NonRetryable())
				assert.Equal(t, tt.cerr.Error(), app.Message(), "the charge's error is the message")
				if withFailure {
					assert.ErrorIs(t, err, failed, "the attempt's own failure is the cause")
				} else {
					assert.Nil(t, errors.Unwrap(err), "an attempt that did not run has no failure to keep")
				}
			})
		}
	}
}

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

func newTestRoot(t *testing.T) *kitInterceptor {
	t.Helper()
	root, err := newInterceptor(Options{}, seam.Seams{})
	require.NoError(t, err)
	return root
}

func TestLedgerChargesAChildsCallsToItsDelegation(t *testing.T) {
	root := newTestRoot(t)
	err := inWorkflow(t, func(ctx workflow.Context) error {
		l := newLedger(root)
		l.chain = budget.NewChain(budget.Carried{})
		run, err := budget.NewRunBudget(3)
		if err != nil {
			return err
		}
		pool, err := budget.NewAttemptBudget(1)
		if err != nil {
			return err
		}
		assert.Equal(t, "child-1", l.delegate(delegation{run: run, pool: pool}))
		assert.Equal(t, "child-2", l.delegate(delegation{run: run}), "one name per child, in order")

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
		assert.Equal(t, 1, pool.Used())

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
	root := newTestRoot(t)
	err := inWorkflow(t, func(ctx workflow.Context) error {
		l := newLedger(root)
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
	root := newTestRoot(t)
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
		l := newLedger(root)
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
	assert.Equal(t, TypeBudgetClosed, app.Type())
	assert.ErrorIs(t, classifyChargeError(rejected[0]), errBudgetClosed, "the activity side reads the rejection as a closed budget")
}

// granted is a granted charge whose budget has n left.
func granted(n int) wire.ChargeResult { return wire.ChargeResult{Granted: true, Remaining: &n} }
