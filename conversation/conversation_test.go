package conversation_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	commonpb "go.temporal.io/api/common/v1"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/converter"
	sdktestsuite "go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/workflow"

	"github.com/temporaladk/adk-go/conversation"
	"github.com/temporaladk/adk-go/interceptors"
	"github.com/temporaladk/adk-go/internal/budget"
	"github.com/temporaladk/adk-go/internal/wire"
	"github.com/temporaladk/adk-go/spend"
	"github.com/temporaladk/adk-go/temporaladk"
	"github.com/temporaladk/adk-go/testsuite"
)

// flakyName is an activity whose first attempt fails retryably and whose
// second succeeds: each call costs two attempts of a run budget, one
// retry of a pool.
const flakyName = "Flaky"

func flaky(ctx context.Context) error {
	if activity.GetInfo(ctx).Attempt == 1 {
		return &temporaladk.ProviderUnavailableError{Provider: "stand-in", Message: "first attempt fails"}
	}
	return nil
}

// flakyCtx is ctx with the options of a MODEL call of Flaky.
func flakyCtx(ctx workflow.Context) workflow.Context {
	ctx = workflow.WithActivityOptions(ctx, workflow.ActivityOptions{StartToCloseTimeout: 10 * time.Second})
	return temporaladk.WithClass(ctx, temporaladk.Model)
}

// newEnv is a kit test environment with Flaky and the test workflows.
func newEnv(t *testing.T) *testsuite.KitTestEnvironment {
	t.Helper()
	var s sdktestsuite.WorkflowTestSuite
	env, err := testsuite.NewKitTestEnvironment(&s, interceptors.Options{})
	require.NoError(t, err)
	env.RegisterActivityWithOptions(flaky, activity.RegisterOptions{Name: flakyName})
	env.RegisterWorkflow(ChainAgent)
	env.RegisterWorkflow(Parent)
	env.RegisterWorkflow(Child)
	return env
}

// ChainInput is one run of ChainAgent.
type ChainInput struct {
	// Max and Pool are the sizes the run asks its named budgets for.
	Max, Pool int
	// Calls is how many Flaky calls the run makes, one after the other.
	Calls int
	// Unnamed makes the run name no budget at all.
	Unnamed bool
	// Next, when not nil, is the input of the run this one continues as
	// new into.
	Next *ChainInput
	// Plain continues as new with workflow.NewContinueAsNewError instead
	// of conversation.ContinueAsNew.
	Plain bool
}

// ChainState is the run's named budgets as they stood at its end, and the
// Updates it accepted.
type ChainState struct {
	Limit, Spent       int
	Size, Used, Firsts int
	Updates            int
}

// ChainAgent names the budgets "turns" and "fan", makes its calls under
// them and continues as new into in.Next, or returns the budgets' state.
func ChainAgent(ctx workflow.Context, in ChainInput) (ChainState, error) {
	var st ChainState
	if !in.Unnamed {
		bctx, err := temporaladk.WithBudgets(flakyCtx(ctx), temporaladk.Budgets{Name: "turns", Attempts: in.Max})
		if err != nil {
			return st, err
		}
		if bctx, err = temporaladk.WithBudgets(bctx, temporaladk.Budgets{Name: "fan", Retries: in.Pool}); err != nil {
			return st, err
		}
		for range in.Calls {
			if err := workflow.ExecuteActivity(bctx, flakyName).Get(bctx, nil); err != nil {
				return st, err
			}
		}
		if st, err = chainStateOf(bctx); err != nil {
			return st, err
		}
	}
	st.Updates = conversation.Updates(ctx)
	if in.Next != nil {
		if in.Plain {
			return st, workflow.NewContinueAsNewError(ctx, ChainAgent, *in.Next)
		}
		return st, conversation.ContinueAsNew(ctx, ChainAgent, *in.Next)
	}
	return st, nil
}

// chainStateOf reads the budgets "turns" and "fan" attached to ctx.
func chainStateOf(ctx workflow.Context) (ChainState, error) {
	var st ChainState
	states := temporaladk.BudgetsOf(ctx)
	if len(states) != 2 || states[0].Name != "turns" || states[0].Kind != spend.KindAttempts || states[1].Name != "fan" || states[1].Kind != spend.KindRetries {
		return st, fmt.Errorf("want the attempts of \"turns\" and the retries of \"fan\", got %+v", states)
	}
	st.Limit, st.Spent = int(states[0].Limit), int(states[0].Spent)
	st.Size, st.Used = int(states[1].Limit), int(states[1].Spent)
	// The first attempts a pool counted cross continue-as-new with it, and
	// no State reports them.
	_, pool := budget.From(ctx)
	st.Firsts = pool.FirstAttempts()
	return st, nil
}

// runChain runs ChainAgent with in and header, and returns the
// continue-as-new it ended with (nil when it completed) and its state when
// it completed.
func runChain(t *testing.T, in ChainInput, header *commonpb.Header) (*workflow.ContinueAsNewError, ChainState) {
	t.Helper()
	env := newEnv(t)
	if header != nil {
		env.SetHeader(header)
	}
	env.ExecuteWorkflow(ChainAgent, in)
	require.True(t, env.IsWorkflowCompleted())
	err := env.GetWorkflowError()
	var st ChainState
	if in.Next != nil {
		var can *workflow.ContinueAsNewError
		require.ErrorAs(t, err, &can, "the run continued as new")
		var next ChainInput
		require.NoError(t, converter.GetDefaultDataConverter().FromPayloads(can.Input, &next))
		assert.Equal(t, *in.Next, next, "the next run's input")
		return can, st
	}
	require.NoError(t, err)
	require.NoError(t, env.GetWorkflowResult(&st))
	return nil, st
}

func TestRunBudgetCarriesAcrossContinueAsNew(t *testing.T) {
	tests := []struct {
		name     string
		max2     int
		pool2    int
		want     ChainState
		plainCAN bool
	}{
		// Run 1 spends 4 of 10 (two calls of two attempts) and 2 retries of
		// a pool of 5; run 2 makes one more call.
		{name: "same sizes", max2: 10, pool2: 5, want: ChainState{Limit: 10, Spent: 6, Size: 5, Used: 3, Firsts: 3, Updates: 1}},
		{name: "larger sizes never widen", max2: 1000, pool2: 1000, want: ChainState{Limit: 10, Spent: 6, Size: 5, Used: 3, Firsts: 3, Updates: 1}},
		{name: "smaller sizes narrow", max2: 6, pool2: 3, want: ChainState{Limit: 6, Spent: 6, Size: 3, Used: 3, Firsts: 3, Updates: 1}},
		{name: "plain workflow.NewContinueAsNewError carries too", max2: 10, pool2: 5, plainCAN: true, want: ChainState{Limit: 10, Spent: 6, Size: 5, Used: 3, Firsts: 3, Updates: 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			run2 := ChainInput{Max: tt.max2, Pool: tt.pool2, Calls: 1}
			can, _ := runChain(t, ChainInput{Max: 10, Pool: 5, Calls: 2, Next: &run2, Plain: tt.plainCAN}, nil)
			require.NotNil(t, can.Header)
			require.Contains(t, can.Header.GetFields(), wire.ChainHeaderKey, "the kit wrote the chain header")
			_, got := runChain(t, run2, can.Header)
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestRunBudgetRestoredIsNeverPassed(t *testing.T) {
	// Run 1 spends 4 of 5; run 2's first call gets one attempt, and its
	// retry is refused: the ceiling holds across the chain.
	run2 := ChainInput{Max: 5, Pool: 5, Calls: 1}
	can, _ := runChain(t, ChainInput{Max: 5, Pool: 5, Calls: 2, Next: &run2}, nil)
	env := newEnv(t)
	env.SetHeader(can.Header)
	env.ExecuteWorkflow(ChainAgent, run2)
	require.True(t, env.IsWorkflowCompleted())
	err := env.GetWorkflowError()
	require.Error(t, err)
	var refused *temporaladk.BudgetExceededError
	require.ErrorAs(t, temporaladk.FromApplicationError(err), &refused, "the retry is refused: %v", err)
	assert.Equal(t, "attempts", refused.Breached)
	assert.Equal(t, float64(5), refused.Limit)
}

func TestBudgetsNotNamedInARunAreCarriedToTheNext(t *testing.T) {
	for _, plain := range []bool{false, true} {
		t.Run(fmt.Sprintf("plain %v", plain), func(t *testing.T) {
			run3 := ChainInput{Max: 10, Pool: 5, Calls: 1}
			run2 := ChainInput{Unnamed: true, Next: &run3, Plain: plain}
			can1, _ := runChain(t, ChainInput{Max: 10, Pool: 5, Calls: 2, Next: &run2}, nil)
			can2, _ := runChain(t, run2, can1.Header)
			require.Contains(t, can2.Header.GetFields(), wire.ChainHeaderKey, "run 2 hands on what it did not name")
			_, got := runChain(t, run3, can2.Header)
			assert.Equal(t, ChainState{Limit: 10, Spent: 6, Size: 5, Used: 3, Firsts: 3, Updates: 1}, got)
		})
	}
}

func TestAChainWithoutNamedBudgetsWritesNoHeader(t *testing.T) {
	run2 := ChainInput{Unnamed: true}
	can, _ := runChain(t, ChainInput{Unnamed: true, Next: &run2}, nil)
	assert.NotContains(t, can.Header.GetFields(), wire.ChainHeaderKey)
}

func TestBadChainHeaderFailsTheWorkflowNamingIt(t *testing.T) {
	payload := func(data string) *commonpb.Payload {
		return &commonpb.Payload{Metadata: map[string][]byte{converter.MetadataEncoding: []byte(converter.MetadataEncodingJSON)}, Data: []byte(data)}
	}
	tests := []struct {
		name string
		p    *commonpb.Payload
		want string
	}{
		{"garbage", payload(`}{garbage`), "does not decode"},
		{"negative numbers", payload(`{"runs":{"turns":{"limit":-5,"spent":-1}}}`), `attempt budget "turns": limit -5, spent -1`},
		{"no ceiling", payload(`{"runs":{"turns":{"limit":0,"spent":0}}}`), `attempt budget "turns": limit 0, spent 0`},
		{"a pool of negative size", payload(`{"pools":{"fan":{"size":-1,"used":0,"firsts":0}}}`), `retry budget "fan": limit -1, spent 0`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env := newEnv(t)
			env.SetHeader(&commonpb.Header{Fields: map[string]*commonpb.Payload{wire.ChainHeaderKey: tt.p}})
			env.ExecuteWorkflow(ChainAgent, ChainInput{Max: 10, Pool: 5, Calls: 1})
			require.True(t, env.IsWorkflowCompleted())
			err := env.GetWorkflowError()
			require.Error(t, err)
			assert.Contains(t, err.Error(), wire.ChainHeaderKey, "the error names the header")
			assert.Contains(t, err.Error(), tt.want)
			assert.Contains(t, err.Error(), temporaladk.TypeBadCallHeader)
			assert.Empty(t, env.Recorder.Calls(), "nothing scheduled")
		})
	}
}

// UpdateLimited counts the user's "ping" Updates (a negative argument is
// rejected by the validator) against an Update limit of limit and returns,
// when ShouldContinueAsNew turns true, the Updates the run accepted. Each
// ping answers what conversation.Updates reads on the handler's context.
func UpdateLimited(ctx workflow.Context, limit int) (int, error) {
	lctx, err := conversation.WithUpdateLimit(ctx, limit)
	if err != nil {
		return 0, err
	}
	err = workflow.SetUpdateHandlerWithOptions(ctx, "ping", func(ctx workflow.Context, n int) (int, error) {
		return conversation.Updates(ctx), nil
	}, workflow.UpdateHandlerOptions{Validator: func(ctx workflow.Context, n int) error {
		if n < 0 {
			return errors.New("negative")
		}
		return nil
	}})
	if err != nil {
		return 0, err
	}
	if err := workflow.Await(lctx, func() bool { return conversation.ShouldContinueAsNew(lctx) }); err != nil {
		return 0, err
	}
	return conversation.Updates(lctx), nil
}

// pingResult is what runUpdateLimited saw.
type pingResult struct {
	// updates is the workflow's result: the Updates accepted when
	// ShouldContinueAsNew turned true.
	updates int
	// answers are the accepted pings' answers, in order.
	answers []int
	// rejected counts the pings the validator rejected.
	rejected int
}

// runUpdateLimited runs UpdateLimited with limit, sending pings one
// millisecond apart, every third one rejected, the first of them first.
func runUpdateLimited(t *testing.T, limit int) pingResult {
	t.Helper()
	env := newEnv(t)
	env.RegisterWorkflow(UpdateLimited)
	var res pingResult
	// Enough pings to pass the limit with a third of them rejected.
	for i := range 2*limit + 2 {
		env.RegisterDelayedCallback(func() {
			arg := i
			if i%3 == 0 {
				arg = -1
			}
			env.UpdateWorkflow("ping", fmt.Sprintf("ping-%d", i), &sdktestsuite.TestUpdateCallback{
				OnReject: func(error) { res.rejected++ },
				OnAccept: func() {},
				OnComplete: func(v any, err error) {
					if n, ok := v.(int); ok && err == nil {
						res.answers = append(res.answers, n)
					}
				},
			}, arg)
		}, time.Duration(i+1)*time.Millisecond)
	}
	env.ExecuteWorkflow(UpdateLimited, limit)
	require.True(t, env.IsWorkflowCompleted())
	require.NoError(t, env.GetWorkflowError())
	require.NoError(t, env.GetWorkflowResult(&res.updates))
	return res
}

func TestShouldContinueAsNewByTheUpdateCount(t *testing.T) {
	tests := []struct {
		limit, want int
	}{
		{limit: 10, want: 9},
		{limit: 1, want: 1},
		{limit: 15, want: 14}, // nine tenths of 15 is 13.5, rounded up
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("limit %d", tt.limit), func(t *testing.T) {
			got := runUpdateLimited(t, tt.limit)
			// The workflow waits on ShouldContinueAsNew, checked after each
			// Update: it returns at the first count that makes it true.
			assert.Equal(t, tt.want, got.updates, "ShouldContinueAsNew turns true at nine tenths of the limit, not before")
			assert.Len(t, got.answers, tt.want, "every accepted ping was answered")
			assert.Positive(t, got.rejected, "rejected pings were sent, and not counted")
		})
	}
}

// TestUpdatesInAnUpdateHandler reads conversation.Updates on the context
// the SDK gives an Update handler: the doc says it is the run's count on a
// kit worker, 0 only without the kit.
func TestUpdatesInAnUpdateHandler(t *testing.T) {
	got := runUpdateLimited(t, 10)
	require.Len(t, got.answers, 9)
	for n, a := range got.answers {
		assert.Equal(t, n+1, a, "the handler's own Update included")
	}
}

func TestUpdatesCountsTheKitsCharges(t *testing.T) {
	// Three calls that retry once each: three charge Updates.
	_, got := runChain(t, ChainInput{Max: 10, Pool: 5, Calls: 3}, nil)
	assert.Equal(t, 3, got.Updates)
}

// Limits reports UpdateLimit on a plain context and on one WithUpdateLimit
// set, and the errors of bad limits.
func Limits(ctx workflow.Context) ([]string, error) {
	out := []string{fmt.Sprint(conversation.UpdateLimit(ctx))}
	lctx, err := conversation.WithUpdateLimit(ctx, 500)
	if err != nil {
		return nil, err
	}
	out = append(out, fmt.Sprint(conversation.UpdateLimit(lctx)))
	for _, bad := range []int{0, -1} {
		bctx, err := conversation.WithUpdateLimit(lctx, bad)
		out = append(out, fmt.Sprint(err), fmt.Sprint(conversation.UpdateLimit(bctx)))
	}
	return out, nil
}

func TestUpdateLimit(t *testing.T) {
	env := newEnv(t)
	env.RegisterWorkflow(Limits)
	env.ExecuteWorkflow(Limits)
	require.NoError(t, env.GetWorkflowError())
	var got []string
	require.NoError(t, env.GetWorkflowResult(&got))
	assert.Equal(t, []string{
		fmt.Sprint(conversation.DefaultUpdateLimit), "500",
		"conversation: WithUpdateLimit: limit is 0: it must be at least 1", "500",
		"conversation: WithUpdateLimit: limit is -1: it must be at least 1", "500",
	}, got, "a bad limit is an error and leaves the context as it was")
	assert.Equal(t, 2000, conversation.DefaultUpdateLimit, "the server's default history.maxTotalUpdates")
}

// BadContinue calls ContinueAsNew with a nil workflow function, with
// arguments the workflow does not take, and with something that is not a
// workflow, and returns the errors' messages.
func BadContinue(ctx workflow.Context) ([]string, error) {
	var out []string
	for _, call := range []func() error{
		func() error { return conversation.ContinueAsNew(ctx, nil) },
		func() error { return conversation.ContinueAsNew(ctx, ChainAgent, "not an input", 2, 3) },
		func() error { return conversation.ContinueAsNew(ctx, 42) },
	} {
		err := call()
		var can *workflow.ContinueAsNewError
		if errors.As(err, &can) {
			return nil, errors.New("a bad call continued as new")
		}
		out = append(out, fmt.Sprint(err))
	}
	return out, nil
}

func TestContinueAsNewRefusesBadArgumentsWithoutPanicking(t *testing.T) {
	env := newEnv(t)
	env.RegisterWorkflow(BadContinue)
	env.ExecuteWorkflow(BadContinue)
	require.True(t, env.IsWorkflowCompleted())
	require.NoError(t, env.GetWorkflowError(), "no panic: the workflow goes on")
	var got []string
	require.NoError(t, env.GetWorkflowResult(&got))
	require.Len(t, got, 3)
	assert.Equal(t, "conversation: ContinueAsNew: the workflow function is nil", got[0])
	assert.Contains(t, got[1], "conversation: ContinueAsNew:")
	assert.Contains(t, got[1], "expected 1 args", "the error says what is wrong with the arguments")
	assert.Contains(t, got[2], "conversation: ContinueAsNew:")
}

// ChargeAfterBadContinue names a budget, calls ContinueAsNew with
// arguments the SDK refuses, and goes on with a budgeted call that
// retries: the run did not continue as new, so its budget must still
// charge.
func ChargeAfterBadContinue(ctx workflow.Context) (ChainState, error) {
	bctx, err := temporaladk.WithBudgets(flakyCtx(ctx), temporaladk.Budgets{Name: "turns", Attempts: 10})
	if err != nil {
		return ChainState{}, err
	}
	if err := conversation.ContinueAsNew(ctx, ChainAgent, "not an input", 2); err == nil {
		return ChainState{}, errors.New("a bad ContinueAsNew returned no error")
	}
	if err := workflow.ExecuteActivity(bctx, flakyName).Get(bctx, nil); err != nil {
		return ChainState{}, err
	}
	turns := temporaladk.BudgetsOf(bctx)[0]
	return ChainState{Limit: int(turns.Limit), Spent: int(turns.Spent)}, nil
}

func TestARefusedContinueAsNewLeavesTheBudgetCharging(t *testing.T) {
	env := newEnv(t)
	env.RegisterWorkflow(ChargeAfterBadContinue)
	env.ExecuteWorkflow(ChargeAfterBadContinue)
	require.True(t, env.IsWorkflowCompleted())
	require.NoError(t, env.GetWorkflowError(), "the retry after a refused ContinueAsNew is charged")
	var got ChainState
	require.NoError(t, env.GetWorkflowResult(&got))
	assert.Equal(t, ChainState{Limit: 10, Spent: 2}, got)
}

// ParentInput configures Parent.
type ParentInput struct {
	// Max is the parent's run budget.
	Max int
	// ChildCalls is how many Flaky calls the child makes.
	ChildCalls int
}

// ParentResult is what Parent saw.
type ParentResult struct {
	// Spent is the parent's budget after the child ended.
	Spent int
	// ChildError is the type of the child's failure, "" for none.
	ChildError string
}

// Parent starts Child on a context with its budget "turns" and returns
// what the budget spent.
func Parent(ctx workflow.Context, in ParentInput) (ParentResult, error) {
	cctx, err := temporaladk.WithBudgets(ctx, temporaladk.Budgets{Name: "turns", Attempts: in.Max})
	if err != nil {
		return ParentResult{}, err
	}
	cerr := workflow.ExecuteChildWorkflow(cctx, Child, in.ChildCalls).Get(cctx, nil)
	res := ParentResult{Spent: int(temporaladk.BudgetsOf(cctx)[0].Spent)}
	if cerr != nil {
		res.ChildError = "untyped: " + cerr.Error()
		if kit, ok := temporaladk.AsError(temporaladk.FromApplicationError(cerr)); ok {
			res.ChildError = kit.Type()
		}
	}
	return res, nil
}

// Child makes calls Flaky calls, without a budget of its own.
func Child(ctx workflow.Context, calls int) error {
	ctx = flakyCtx(ctx)
	for range calls {
		if err := workflow.ExecuteActivity(ctx, flakyName).Get(ctx, nil); err != nil {
			return err
		}
	}
	return nil
}

func TestAChildIsChargedToItsParent(t *testing.T) {
	tests := []struct {
		name string
		in   ParentInput
		want ParentResult
	}{
		// Each call of the child is two attempts, both charged at the
		// parent.
		{"within the budget", ParentInput{Max: 10, ChildCalls: 2}, ParentResult{Spent: 4}},
		{"the parent's ceiling holds in the child", ParentInput{Max: 3, ChildCalls: 2}, ParentResult{Spent: 3, ChildError: temporaladk.TypeBudgetExceeded}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env := newEnv(t)
			env.ExecuteWorkflow(Parent, tt.in)
			require.True(t, env.IsWorkflowCompleted())
			require.NoError(t, env.GetWorkflowError())
			var got ParentResult
			require.NoError(t, env.GetWorkflowResult(&got))
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestWithHistoryByteLimitRejectsALimitBelowOne(t *testing.T) {
	t.Parallel()
	_, err := conversation.WithHistoryByteLimit(nil, 10)
	require.ErrorContains(t, err, "ctx is nil")
	limit, ok := conversation.HistoryByteLimit(nil)
	require.False(t, ok)
	require.Zero(t, limit)
}
