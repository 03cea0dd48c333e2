package interceptors_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	historypb "go.temporal.io/api/history/v1"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	"github.com/temporaladk/adk-go/conversation"
	"github.com/temporaladk/adk-go/interceptors"
	"github.com/temporaladk/adk-go/internal/budget"
	"github.com/temporaladk/adk-go/internal/wire"
	"github.com/temporaladk/adk-go/observe/recorded"
	"github.com/temporaladk/adk-go/policies"
	"github.com/temporaladk/adk-go/providers"
	"github.com/temporaladk/adk-go/providers/providertest"
	"github.com/temporaladk/adk-go/spend"
	"github.com/temporaladk/adk-go/temporaladk"
	"github.com/temporaladk/adk-go/testsuite"
)

// spendChat is the model activity of the spend tests: one request to a
// stand-in whose answer is lines "usage INPUT CACHED OUTPUT", then "done";
// it reports the usage it read, also when the stream drops before "done".
const spendChat = "SpendChat"

// The stand-in's usage per call: 200 input tokens (50 cached) and 100
// output tokens, 300 in all.
const standInUsage = "usage 200 50 100\n"

type chatReply struct {
	Text   string `json:"text"`
	Tokens int64  `json:"tokens"`
}

type spendActs struct{ url string }

func (a *spendActs) Chat(ctx context.Context, prompt string) (chatReply, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, a.url+"/chat", strings.NewReader(prompt))
	if err != nil {
		return chatReply{}, err
	}
	resp, err := http.DefaultClient.Do(req)
	if kerr := providers.ClassifyHTTP("standin", resp, err, time.Now()); kerr != nil {
		return chatReply{}, kerr
	}
	defer resp.Body.Close()
	var u providers.Usage
	var lines int64
	done := false
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		lines++
		if sc.Text() == "done" {
			done = true
			continue
		}
		if _, err := fmt.Sscanf(sc.Text(), "usage %d %d %d", &u.InputTokens, &u.CachedInputTokens, &u.OutputTokens); err != nil {
			return chatReply{}, fmt.Errorf("stand-in line %q: %w", sc.Text(), err)
		}
	}
	if !u.IsZero() {
		if _, err := providers.ReportUsage(ctx, u); err != nil {
			return chatReply{}, err
		}
	}
	if !done {
		return chatReply{}, providers.DroppedStream("standin", lines)
	}
	return chatReply{Text: "ok " + prompt, Tokens: u.InputTokens + u.OutputTokens}, nil
}

// testPrices is the worker's price table of the spend tests: $2 per
// million input tokens, $0.50 cached, $8 output.
var testPrices = map[string]spend.Price{"m1": {Input: 2 * spend.Dollar, CachedInput: spend.Dollar / 2, Output: 8 * spend.Dollar}}

// capScale multiplies the caps the spend workflows set: a replay with
// another scale replays caps changed.
var capScale int64 = 1

// outcome is what one call of a spend workflow came to.
type outcome struct {
	OK       bool    `json:"ok"`
	Breached string  `json:"breached,omitempty"`
	Limit    float64 `json:"limit,omitempty"`
	Consumed float64 `json:"consumed,omitempty"`
	Err      string  `json:"err,omitempty"`
}

type spendReport struct {
	Outcomes  []outcome      `json:"outcomes"`
	Limit     int64          `json:"limit"`
	Reserved  int64          `json:"reserved"`
	Spent     int64          `json:"spent"`
	Remaining int64          `json:"remaining"`
	States    []spend.State  `json:"states,omitempty"`
	Reply     *chatReply     `json:"reply,omitempty"`
	Child     *spendReport   `json:"child,omitempty"`
	Extra     map[string]int `json:"extra,omitempty"`
}

// replaySink keeps the report each spend workflow computed, by run ID and
// by whether it replayed, so that a replay's decisions are compared with
// the run's.
var replaySink sync.Map

func sinkReport(ctx workflow.Context, r spendReport) {
	replaySink.Store(fmt.Sprintf("%s/%v", workflow.GetInfo(ctx).WorkflowExecution.RunID, workflow.IsReplaying(ctx)), r)
}

func outcomeOf(err error) outcome {
	if err == nil {
		return outcome{OK: true}
	}
	var be *temporaladk.BudgetExceededError
	if kit, ok := temporaladk.AsError(err); ok && errors.As(kit, &be) {
		return outcome{Breached: be.Breached, Limit: be.Limit, Consumed: be.Consumed}
	}
	return outcome{Err: err.Error()}
}

// onlyState returns the one budget attached to ctx; a workflow that has
// more, or none, is wrong.
func onlyState(ctx workflow.Context) (spend.State, error) {
	states := temporaladk.BudgetsOf(ctx)
	if len(states) != 1 {
		return spend.State{}, fmt.Errorf("want one budget on the context, got %+v", states)
	}
	return states[0], nil
}

// with returns r with the figures of s, and s as its one state.
func (r spendReport) with(s spend.State) spendReport {
	r.Limit, r.Reserved, r.Spent, r.Remaining = s.Limit, s.Reserved, s.Spent, s.Remaining
	r.States = []spend.State{s}
	return r
}

// SpendSequenceWorkflow makes one call per cap, in order, under a token
// budget of limit; each call sets its own cap on the budget's context,
// over the one the budget is set with (a token budget needs a cap).
func SpendSequenceWorkflow(ctx workflow.Context, limit int64, caps []int64) (spendReport, error) {
	ctx, err := temporaladk.WithBudgets(ctx, temporaladk.Budgets{Name: "sequence", Tokens: limit, MaxTokens: capScale, Model: "m1"})
	if err != nil {
		return spendReport{}, err
	}
	var r spendReport
	for i, c := range caps {
		cctx, err := temporaladk.WithBudgets(ctx, temporaladk.Budgets{MaxTokens: c * capScale})
		if err != nil {
			return spendReport{}, err
		}
		err = workflow.ExecuteActivity(cctx, spendChat, fmt.Sprintf("q%d", i)).Get(ctx, nil)
		r.Outcomes = append(r.Outcomes, outcomeOf(err))
	}
	s, err := onlyState(ctx)
	if err != nil {
		return spendReport{}, err
	}
	r = r.with(s)
	sinkReport(ctx, r)
	return r, nil
}

// SpendFanOutWorkflow makes n calls at once, capped at maxTokens each,
// under a cost budget of limit micro-dollars.
func SpendFanOutWorkflow(ctx workflow.Context, limit spend.Micros, n int, maxTokens int64) (spendReport, error) {
	ctx, err := temporaladk.WithBudgets(ctx, temporaladk.Budgets{Name: "fanout", Cost: limit, MaxTokens: maxTokens * capScale, Model: "m1"})
	if err != nil {
		return spendReport{}, err
	}
	futures := make([]workflow.Future, n)
	for i := range futures {
		futures[i] = workflow.ExecuteActivity(ctx, spendChat, fmt.Sprintf("q%d", i))
	}
	var r spendReport
	for _, f := range futures {
		r.Outcomes = append(r.Outcomes, outcomeOf(f.Get(ctx, nil)))
	}
	s, err := onlyState(ctx)
	if err != nil {
		return spendReport{}, err
	}
	r = r.with(s)
	r.States = nil
	sinkReport(ctx, r)
	return r, nil
}

// SpendNoCapWorkflow sets a token budget without a cap, on a context that
// has none, and returns WithBudgets' error.
func SpendNoCapWorkflow(ctx workflow.Context) (string, error) {
	_, err := temporaladk.WithBudgets(ctx, temporaladk.Budgets{Name: "nocap", Tokens: 1000, Model: "m1"})
	if err == nil {
		return "", errors.New("a token budget without a cap was set")
	}
	return err.Error(), nil
}

// SpendReplyWorkflow makes one call under a token and a cost budget and
// returns its reply, typed.
func SpendReplyWorkflow(ctx workflow.Context) (chatReply, error) {
	ctx, err := temporaladk.WithBudgets(ctx, temporaladk.Budgets{Name: "reply", Tokens: 10_000, Cost: spend.Dollar, MaxTokens: 1000, Model: "m1"})
	if err != nil {
		return chatReply{}, err
	}
	// A worker without the kit gives no timeout of its own.
	ctx = workflow.WithActivityOptions(ctx, workflow.ActivityOptions{StartToCloseTimeout: time.Minute})
	var reply chatReply
	err = workflow.ExecuteActivity(ctx, spendChat, "hello").Get(ctx, &reply)
	return reply, err
}

// SpendCANWorkflow makes two calls of cap 500 under the token budget "t" of
// maxTokens, then continues as new once with maxTokens 5,000.
func SpendCANWorkflow(ctx workflow.Context, run int, maxTokens int64) (spendReport, error) {
	ctx, err := temporaladk.WithBudgets(ctx, temporaladk.Budgets{Name: "t", Tokens: maxTokens, MaxTokens: 500, Model: "m1"})
	if err != nil {
		return spendReport{}, err
	}
	var r spendReport
	for i := range 2 {
		r.Outcomes = append(r.Outcomes, outcomeOf(workflow.ExecuteActivity(ctx, spendChat, fmt.Sprintf("r%d-%d", run, i)).Get(ctx, nil)))
	}
	if run == 0 {
		return spendReport{}, conversation.ContinueAsNew(ctx, SpendCANWorkflow, 1, int64(5000))
	}
	s, err := onlyState(ctx)
	if err != nil {
		return spendReport{}, err
	}
	r = r.with(s)
	r.States = nil
	return r, nil
}

// parentCap and parentModel are the cap and the model SpendParentWorkflow
// sets with its token budget.
const (
	parentCap   = 700
	parentModel = "m1-parent"
)

// SpendParentWorkflow starts SpendChildWorkflow under a token budget of
// 2,000 (its MODEL calls capped at parentCap, named parentModel), asking
// the child to set childCap and childModel on its own calls ("" and 0: none),
// and reports the budget after the child.
func SpendParentWorkflow(ctx workflow.Context, childCap int64, childModel string) (spendReport, error) {
	ctx, err := temporaladk.WithBudgets(ctx, temporaladk.Budgets{Name: "parent", Tokens: 2000, MaxTokens: parentCap, Model: parentModel})
	if err != nil {
		return spendReport{}, err
	}
	var child spendReport
	err = workflow.ExecuteChildWorkflow(workflow.WithChildOptions(ctx, workflow.ChildWorkflowOptions{}), SpendChildWorkflow, childCap, childModel).Get(ctx, &child)
	if err != nil {
		return spendReport{}, err
	}
	s, err := onlyState(ctx)
	if err != nil {
		return spendReport{}, err
	}
	return spendReport{Child: &child}.with(s), nil
}

// SpendChildWorkflow makes two calls under no budget of its own: its
// parent's token budget meters them. It sets maxTokens and model on its
// calls unless they are 0 and "": then its calls have its parent's.
func SpendChildWorkflow(ctx workflow.Context, maxTokens int64, model string) (spendReport, error) {
	if maxTokens != 0 || model != "" {
		var err error
		if ctx, err = temporaladk.WithBudgets(ctx, temporaladk.Budgets{MaxTokens: maxTokens, Model: model}); err != nil {
			return spendReport{}, err
		}
	}
	var r spendReport
	for i := range 2 {
		r.Outcomes = append(r.Outcomes, outcomeOf(workflow.ExecuteActivity(ctx, spendChat, fmt.Sprintf("c%d", i)).Get(ctx, nil)))
	}
	r.States = temporaladk.BudgetsOf(ctx)
	return r, nil
}

func registerSpend(r registry) {
	r.RegisterWorkflow(SpendSequenceWorkflow)
	r.RegisterWorkflow(SpendFanOutWorkflow)
	r.RegisterWorkflow(SpendNoCapWorkflow)
	r.RegisterWorkflow(SpendReplyWorkflow)
	r.RegisterWorkflow(SpendCANWorkflow)
	r.RegisterWorkflow(SpendParentWorkflow)
	r.RegisterWorkflow(SpendChildWorkflow)
}

func spendOptions(t *testing.T, prices map[string]spend.Price) interceptors.Options {
	return interceptors.Options{
		Policies:   map[temporaladk.Class]policies.ActivityPolicy{temporaladk.Model: fastModel(t)},
		Activities: map[string]temporaladk.Declaration{spendChat: {Class: temporaladk.Model}},
		Prices:     prices,
	}
}

type spendRun struct {
	c     client.Client
	queue string
	srv   *providertest.Server
}

// startSpend starts a stand-in serving respond and a worker for the spend
// workflows with the kit; its activities run on a worker without the kit when plain.
func startSpend(t *testing.T, plain bool, respond func(w http.ResponseWriter, r *http.Request, n int64)) *spendRun {
	t.Helper()
	return startSpendPriced(t, plain, testPrices, respond)
}

// startSpendPriced is startSpend with the kit's price table prices.
func startSpendPriced(t *testing.T, plain bool, prices map[string]spend.Price, respond func(w http.ResponseWriter, r *http.Request, n int64)) *spendRun {
	t.Helper()
	r := &spendRun{c: testsuite.DevServerFor(t).Client(), queue: "spend-" + strings.ReplaceAll(t.Name(), "/", "-"), srv: providertest.NewServer(t, "/chat", respond)}
	opts := worker.Options{Plugins: []worker.Plugin{newKit(t, spendOptions(t, prices))}}
	if plain {
		// The workflow code calls the kit, so its tasks run on a worker
		// with it; the activities run on one without.
		opts.LocalActivityWorkerOnly = true
		activities := worker.New(r.c, r.queue, worker.Options{DisableWorkflowWorker: true})
		activities.RegisterActivityWithOptions((&spendActs{url: r.srv.URL()}).Chat, activity.RegisterOptions{Name: spendChat})
		require.NoError(t, activities.Start())
		t.Cleanup(activities.Stop)
	}
	w := worker.New(r.c, r.queue, opts)
	registerSpend(w)
	if !plain {
		w.RegisterActivityWithOptions((&spendActs{url: r.srv.URL()}).Chat, activity.RegisterOptions{Name: spendChat})
	}
	require.NoError(t, w.Start())
	t.Cleanup(w.Stop)
	return r
}

func answer(w http.ResponseWriter, _ *http.Request, _ int64) {
	_, _ = fmt.Fprint(w, standInUsage+"done\n")
}

// execute runs wf to completion into out and returns its run and history.
func (r *spendRun) execute(t *testing.T, out any, wf any, args ...any) (client.WorkflowRun, []*historypb.HistoryEvent) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	run, err := r.c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: r.queue, TaskQueue: r.queue}, wf, args...)
	require.NoError(t, err)
	require.NoError(t, run.Get(ctx, out))
	h, err := testsuite.WorkflowHistory(ctx, r.c, run.GetID(), run.GetRunID())
	require.NoError(t, err)
	return run, h.GetEvents()
}

// charges are the charge Updates of a history, in order: each accepted
// Update's requests with the results it completed with.
type chargeUpdate struct {
	reqs []wire.ChargeRequest
	res  []wire.ChargeResult
}

func chargeUpdates(t *testing.T, events []*historypb.HistoryEvent) []chargeUpdate {
	t.Helper()
	dc := converter.GetDefaultDataConverter()
	byID := map[string]int{}
	var out []chargeUpdate
	for _, e := range events {
		if a := e.GetWorkflowExecutionUpdateAcceptedEventAttributes(); a != nil {
			var reqs []wire.ChargeRequest
			require.NoError(t, dc.FromPayloads(a.GetAcceptedRequest().GetInput().GetArgs(), &reqs))
			byID[a.GetProtocolInstanceId()] = len(out)
			out = append(out, chargeUpdate{reqs: reqs})
		}
		if a := e.GetWorkflowExecutionUpdateCompletedEventAttributes(); a != nil {
			i, ok := byID[a.GetMeta().GetUpdateId()]
			require.True(t, ok, "a completed Update that was accepted")
			var res []wire.ChargeResult
			require.NoError(t, dc.FromPayloads(a.GetOutcome().GetSuccess(), &res))
			out[i].res = res
		}
	}
	return out
}

// replayWith replays run's history with the spend workflows, a kit of the
// given prices and capScale set to scale, and returns the report the replay
// computed.
func replayWith(t *testing.T, c client.Client, run client.WorkflowRun, prices map[string]spend.Price, scale int64) spendReport {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	h, err := testsuite.WorkflowHistory(ctx, c, run.GetID(), run.GetRunID())
	require.NoError(t, err)
	plugin, err := interceptors.NewPlugin(spendOptions(t, prices))
	require.NoError(t, err)
	replayer, err := worker.NewWorkflowReplayerWithOptions(worker.WorkflowReplayerOptions{Plugins: []worker.Plugin{plugin}})
	require.NoError(t, err)
	registerSpend(replayer)
	old := capScale
	capScale = scale
	defer func() { capScale = old }()
	require.NoError(t, replayer.ReplayWorkflowHistory(nil, h))
	got, ok := replaySink.Load(run.GetRunID() + "/true")
	require.True(t, ok, "the replay reached the workflow's end")
	return got.(spendReport)
}

// Twelve calls capped at 1,000 that use 300 each: a call runs when its cap
// fits the limit less what settled before it, and a refused one makes no
// provider request. Under 4,000 the first ten all run (settled 3,000), the
// eleventh fits the 1,000 left exactly and runs, the twelfth does not fit
// the 700 left. Under 3,500 the tenth already does not fit: nine settled
// calls leave 800.
func TestIntegrationTokenBudgetSequence(t *testing.T) {
	const usage, cap = 300, 1000
	caps := make([]int64, 12)
	for i := range caps {
		caps[i] = cap
	}
	for _, limit := range []int64{4000, 3500} {
		t.Run(fmt.Sprint(limit), func(t *testing.T) {
			r := startSpend(t, false, answer)
			var rep spendReport
			run, events := r.execute(t, &rep, SpendSequenceWorkflow, limit, caps)

			settled, ran := int64(0), 0
			var want []outcome
			for _, c := range caps {
				if c <= limit-settled {
					want = append(want, outcome{OK: true})
					settled += usage
					ran++
					continue
				}
				want = append(want, outcome{Breached: "tokens", Limit: float64(limit), Consumed: float64(settled)})
			}
			t.Logf("limit %d: %d calls ran, settled %d, remaining %d", limit, ran, rep.Spent, rep.Remaining)
			assert.Equal(t, want, rep.Outcomes)
			if limit == 4000 {
				assert.Equal(t, 11, ran, "ten run, the eleventh runs, the twelfth is refused")
			}
			assert.Equal(t, settled, rep.Spent)
			assert.Zero(t, rep.Reserved, "every reservation settled")
			assert.Equal(t, limit-settled, rep.Remaining)
			assert.Equal(t, int64(ran), r.srv.Requests(), "the refused calls made no provider request")
			require.Len(t, rep.States, 1)
			assert.Equal(t, spend.State{Name: "sequence", Kind: spend.KindTokens, Limit: limit, Spent: settled, Remaining: limit - settled,
				By: []spend.Tally{{Class: "MODEL", Model: "m1", Spent: settled}}}, rep.States[0])

			// The Query reads the same.
			q, err := r.c.QueryWorkflow(context.Background(), run.GetID(), run.GetRunID(), spend.QueryName)
			require.NoError(t, err)
			var states []spend.State
			require.NoError(t, q.Get(&states))
			assert.Equal(t, rep.States, states)

			// Every attempt asked for its reservation; those that ran settled.
			reserves, settles := 0, 0
			for _, u := range chargeUpdates(t, events) {
				for _, req := range u.reqs {
					if req.Reserve != nil {
						reserves++
					}
					if req.Settle != nil {
						settles++
					}
				}
			}
			assert.Equal(t, len(caps), reserves)
			assert.Equal(t, ran, settles)

			// Replay with the prices and caps changed decides the same.
			doubled := map[string]spend.Price{"m1": {Input: 4 * spend.Dollar, Output: 16 * spend.Dollar}}
			assert.Equal(t, rep, replayWith(t, r.c, run, doubled, 3))
		})
	}
}

// A stream that fails retryably after reporting 400 tokens, then succeeds
// with 300: 700 settled, in two settled attempts.
func TestIntegrationTokenBudgetSettlesAFailedStream(t *testing.T) {
	r := startSpend(t, false, func(w http.ResponseWriter, req *http.Request, n int64) {
		if n == 1 {
			providertest.DropMidStream(t, w, "usage 300 0 100\n")
			return
		}
		answer(w, req, n)
	})
	var rep spendReport
	run, events := r.execute(t, &rep, SpendSequenceWorkflow, int64(10_000), []int64{1000})
	require.Equal(t, []outcome{{OK: true}}, rep.Outcomes)
	assert.Equal(t, []int32{2}, testsuite.StartedAttempts(events), "the second attempt completed")
	assert.Equal(t, int64(400+300), rep.Spent)
	assert.Zero(t, rep.Reserved)
	var settled []int64
	for _, u := range chargeUpdates(t, events) {
		for _, req := range u.reqs {
			if req.Settle != nil {
				require.NotNil(t, req.Settle.Usage)
				settled = append(settled, req.Settle.Usage.InputTokens+req.Settle.Usage.OutputTokens)
			}
		}
	}
	assert.Equal(t, []int64{400, 300}, settled, "two settled attempts")
	assert.Equal(t, rep, replayWith(t, r.c, run, nil, 2))
}

// Twenty calls at once under one cost budget: at every point of the
// history what is settled, and settled plus reserved, is within the
// ceiling; the refused calls made no provider request.
func TestIntegrationCostBudgetFanOut(t *testing.T) {
	r := startSpend(t, false, answer)
	const limit, n, maxTokens = spend.Micros(30_000), 20, int64(1000)
	price := testPrices["m1"]
	perReservation, err := budget.ReservationCost(maxTokens, price)
	require.NoError(t, err)
	perCall, err := budget.CostOf(spend.Usage{InputTokens: 200, CachedInputTokens: 50, OutputTokens: 100}, price)
	require.NoError(t, err)
	var rep spendReport
	run, events := r.execute(t, &rep, SpendFanOutWorkflow, limit, n, maxTokens)

	ran, refused := 0, 0
	for _, o := range rep.Outcomes {
		switch {
		case o.OK:
			ran++
		case o.Breached == "cost":
			refused++
		default:
			t.Errorf("an outcome neither ran nor was refused: %+v", o)
		}
	}
	assert.Equal(t, n, ran+refused)
	assert.Equal(t, int64(ran), r.srv.Requests(), "refused calls made no provider request")
	assert.Equal(t, int64(ran)*int64(perCall), rep.Spent)
	assert.Positive(t, refused, "the ceiling refused some: %d reservations of %d do not fit %d", n, perReservation, limit)

	// Walk the history: reservations granted and settlements, in order.
	var reserved, settled spend.Micros
	grants := 0
	for _, u := range chargeUpdates(t, events) {
		require.Len(t, u.res, len(u.reqs))
		for i, req := range u.reqs {
			switch {
			case req.Reserve != nil && u.res[i].Granted:
				c, err := budget.ReservationCost(req.Reserve.MaxTokens, *req.Reserve.Price)
				require.NoError(t, err)
				reserved += c
				grants++
			case req.Settle != nil:
				require.NotNil(t, req.Settle.Usage)
				c, err := budget.CostOf(*req.Settle.Usage, price)
				require.NoError(t, err)
				reserved -= perReservation
				settled += c
			}
			assert.LessOrEqual(t, settled, limit, "settled within the ceiling")
			assert.LessOrEqual(t, settled+reserved, limit, "settled and reserved within the ceiling")
		}
	}
	assert.Equal(t, ran, grants)
	assert.Equal(t, spend.Micros(rep.Spent), settled)
	t.Logf("%d calls: %d ran, %d refused; reservation %d µ$, settled %d µ$ each, %d µ$ of %d", n, ran, refused, perReservation, perCall, settled, limit)
	assert.Equal(t, rep, replayWith(t, r.c, run, map[string]spend.Price{"m1": {Input: 1, Output: 1}}, 5))
}

// A token budget without a cap, on a context without one, is refused by
// WithBudgets, naming MaxTokens, and nothing is scheduled. (A MODEL call
// can no longer be made under a token budget without a cap: the check that
// fails it at scheduling is reached only by a child of an earlier build,
// see spend's TestAChildOfAnEarlierBuildNeedsACapAndAModel.)
func TestIntegrationTokenBudgetNeedsACap(t *testing.T) {
	r := startSpend(t, false, answer)
	var msg string
	_, events := r.execute(t, &msg, SpendNoCapWorkflow)
	assert.Contains(t, msg, "temporaladk: WithBudgets")
	assert.Contains(t, msg, "MaxTokens is 0")
	for _, e := range events {
		assert.Nil(t, e.GetActivityTaskScheduledEventAttributes(), "nothing is scheduled")
	}
	assert.Zero(t, r.srv.Requests())
}

// The user's result decodes unchanged from an activity worker with the kit,
// which reserves and settles, and from one without it (the workflow worker
// has the kit: workflow code that calls it runs nowhere else).
func TestIntegrationSpendMixedFleetResult(t *testing.T) {
	var withKit, without chatReply
	ran := 0 // subtests that got past their dev server: under -short, none
	t.Run("kit", func(t *testing.T) {
		startSpend(t, false, answer).execute(t, &withKit, SpendReplyWorkflow)
		ran++
	})
	t.Run("plain", func(t *testing.T) {
		startSpend(t, true, answer).execute(t, &without, SpendReplyWorkflow)
		ran++
	})
	if ran < 2 {
		// A failed subtest has failed this test already; a skipped one
		// leaves nothing to compare.
		t.Skip("a subtest did not run to its end, so there are no two results to compare")
	}
	assert.Equal(t, chatReply{Text: "ok hello", Tokens: 300}, withKit)
	assert.Equal(t, withKit, without)
}

// A named token budget carries across continue-as-new: the second run
// starts with the 600 the first settled, and its larger maxTokens does not
// widen the ceiling.
func TestIntegrationTokenBudgetAcrossContinueAsNew(t *testing.T) {
	r := startSpend(t, false, answer)
	var rep spendReport
	r.execute(t, &rep, SpendCANWorkflow, 0, int64(2000))
	assert.Equal(t, []outcome{{OK: true}, {OK: true}}, rep.Outcomes)
	assert.Equal(t, int64(2000), rep.Limit, "never widened")
	assert.Equal(t, int64(4*300), rep.Spent, "two calls of each run")
	assert.Equal(t, int64(2000-4*300), rep.Remaining)
}

// reservations are the reservations asked in a history's charge Updates,
// in order.
func reservations(t *testing.T, events []*historypb.HistoryEvent) []wire.Reservation {
	t.Helper()
	var out []wire.Reservation
	for _, u := range chargeUpdates(t, events) {
		for _, req := range u.reqs {
			if req.Reserve != nil {
				out = append(out, *req.Reserve)
			}
		}
	}
	return out
}

// A child's calls are reserved and settled at the parent's token budget,
// at the cap and the model the child set on them.
func TestIntegrationTokenBudgetChargesTheParent(t *testing.T) {
	r := startSpend(t, false, answer)
	var rep spendReport
	_, events := r.execute(t, &rep, SpendParentWorkflow, int64(500), "m1")
	require.NotNil(t, rep.Child)
	assert.Equal(t, []outcome{{OK: true}, {OK: true}}, rep.Child.Outcomes)
	assert.Equal(t, int64(2*300), rep.Spent)
	assert.Zero(t, rep.Reserved)
	require.Len(t, rep.States, 1)
	assert.Equal(t, []spend.Tally{{Class: "MODEL", Model: "m1", Spent: 600}}, rep.States[0].By)
	assert.Equal(t, []wire.Reservation{{Model: "m1", MaxTokens: 500}, {Model: "m1", MaxTokens: 500}}, reservations(t, events),
		"the child's own cap and model, not the parent's")
}

// A child started under a token budget whose own code sets no cap and no
// model makes its MODEL calls at the cap and the model of the context it
// was started on: they are reserved at the parent's cap, and tallied under
// the parent's model. (Before, the child had to repeat the cap.)
func TestIntegrationAChildInheritsTheParentsCapAndModel(t *testing.T) {
	r := startSpend(t, false, answer)
	var rep spendReport
	_, events := r.execute(t, &rep, SpendParentWorkflow, int64(0), "")
	require.NotNil(t, rep.Child)
	assert.Equal(t, []outcome{{OK: true}, {OK: true}}, rep.Child.Outcomes, "the child's calls are capped: none fails at scheduling")
	assert.Empty(t, rep.Child.States, "the child has no budget of its own")
	assert.Equal(t, []wire.Reservation{{Model: parentModel, MaxTokens: parentCap}, {Model: parentModel, MaxTokens: parentCap}}, reservations(t, events),
		"each attempt of the child is reserved at the parent's cap")
	assert.Equal(t, int64(2*300), rep.Spent)
	assert.Zero(t, rep.Reserved)
	require.Len(t, rep.States, 1)
	assert.Equal(t, spend.State{Name: "parent", Kind: spend.KindTokens, Limit: 2000, Spent: 600, Remaining: 1400,
		By: []spend.Tally{{Class: "MODEL", Model: parentModel, Spent: 600}}}, rep.States[0])
	assert.Equal(t, int64(2), r.srv.Requests())
}

// A call under a cost budget whose model has no price fails non-retryably,
// naming the model, with nothing reserved and no provider request.
func TestIntegrationCostBudgetUnpricedModel(t *testing.T) {
	r := startSpendPriced(t, false, map[string]spend.Price{"other": {Input: 1}}, answer)
	var rep spendReport
	_, events := r.execute(t, &rep, SpendFanOutWorkflow, spend.Dollar, 1, int64(1000))
	require.Len(t, rep.Outcomes, 1)
	assert.Contains(t, rep.Outcomes[0].Err, `"m1"`)
	assert.Contains(t, rep.Outcomes[0].Err, temporaladk.TypeModelUnpriced)
	assert.Equal(t, []int32{1}, testsuite.StartedAttempts(events), "one attempt: not retried")
	assert.Zero(t, r.srv.Requests())
	assert.Zero(t, rep.Reserved)
	assert.Zero(t, rep.Spent)
	assert.Empty(t, chargeUpdates(t, events), "nothing asked of the ledger")
}

// TestIntegrationObserverSeesReservationsAndSettlements: under a token budget
// of 4,000 with a cap of 1,000, eleven of twelve MODEL calls run. The
// observer is told each reservation at its cap and each settlement with the
// usage the provider reported; they add up to what the budget spent, they
// are the values observe/recorded reads out of the history, and a replay of
// that history tells the observer nothing.
func TestIntegrationObserverSeesReservationsAndSettlements(t *testing.T) {
	const limit, cap = 4000, 1000
	caps := slices.Repeat([]int64{cap}, 12)
	observed := func(rec *recording) interceptors.Options {
		opts := spendOptions(t, testPrices)
		opts.Observer = rec
		return opts
	}
	live := &recording{}
	r := &spendRun{c: testsuite.DevServerFor(t).Client(), queue: "spend-" + t.Name(), srv: providertest.NewServer(t, "/chat", answer)}
	w := worker.New(r.c, r.queue, worker.Options{Plugins: []worker.Plugin{newKit(t, observed(live))}})
	registerSpend(w)
	w.RegisterActivityWithOptions((&spendActs{url: r.srv.URL()}).Chat, activity.RegisterOptions{Name: spendChat})
	require.NoError(t, w.Start())
	t.Cleanup(w.Stop)
	var rep spendReport
	_, events := r.execute(t, &rep, SpendSequenceWorkflow, int64(limit), caps)
	w.Stop()

	live.mu.Lock()
	reservations, settlements := slices.Clone(live.reservations), slices.Clone(live.settlements)
	live.mu.Unlock()
	ran := 0
	for _, o := range rep.Outcomes {
		if o.OK {
			ran++
		}
	}
	assert.Equal(t, 11, ran, "ten run, the eleventh runs, the twelfth is refused")
	require.Len(t, reservations, ran, "one reservation per call that ran")
	for _, res := range reservations {
		assert.Equal(t, int64(cap), res.MaxTokens, "reserved at the cap")
		assert.Equal(t, temporaladk.Model, res.Class)
		assert.Equal(t, 1, res.Attempt)
	}
	require.Len(t, settlements, ran, "one settlement per call that ran")
	var spent int64
	for _, s := range settlements {
		require.NotNil(t, s.Usage, "settled with the provider's usage")
		tokens, err := s.Usage.Tokens()
		require.NoError(t, err)
		spent += tokens
		assert.True(t, s.Succeeded)
		assert.False(t, s.Unsettled)
	}
	assert.Equal(t, rep.Spent, spent, "the settlements add up to what the budget spent")

	read, err := recorded.Read(events)
	require.NoError(t, err)
	assert.Equal(t, read.Reservations, reservations, "the live reservations are the recorded ones")
	assert.Equal(t, read.Settlements, settlements, "the live settlements are the recorded ones")

	replayed := &recording{}
	replayer, err := worker.NewWorkflowReplayerWithOptions(worker.WorkflowReplayerOptions{Plugins: []worker.Plugin{newKit(t, observed(replayed))}})
	require.NoError(t, err)
	registerSpend(replayer)
	require.NoError(t, replayer.ReplayWorkflowHistory(nil, &historypb.History{Events: events}))
	assert.Zero(t, replayed.events(), "a replay observes nothing")
}

// budgetedCalls is how BudgetedCallsWorkflow's calls ended, and what its
// ceiling on attempts read after them.
type budgetedCalls struct {
	runResult
	Spent, Remaining int
}

// BudgetedCallsWorkflow makes calls RETRIEVAL calls that always fail
// retryably, one after the other, under a ceiling of attempts.
func BudgetedCallsWorkflow(ctx workflow.Context, calls, attempts int) (budgetedCalls, error) {
	var out budgetedCalls
	ctx = temporaladk.WithClass(workflow.WithActivityOptions(ctx, workflow.ActivityOptions{StartToCloseTimeout: 10 * time.Second}), temporaladk.Retrieval)
	ctx, err := temporaladk.WithBudgets(ctx, temporaladk.Budgets{Name: "sequence", Attempts: attempts})
	if err != nil {
		return out, err
	}
	for i := range calls {
		out.addErr(temporaladk.FromApplicationError(workflow.ExecuteActivity(ctx, (*Activities).Fail, fmt.Sprintf("sequence/%d", i), "provider").Get(ctx, nil)))
	}
	for _, s := range temporaladk.BudgetsOf(ctx) {
		if s.Kind == spend.KindAttempts {
			out.Spent, out.Remaining = int(s.Spent), int(s.Remaining)
		}
	}
	return out, nil
}

// TestIntegrationAttemptsRunWithoutTheKitAreCounted runs budgeted calls on
// an activity worker without the kit, the workflow on one with it, under a
// ceiling of 3 attempts. The first call's retries ask no charge there: the
// server holds it to the 3 attempts the ceiling had left, which run and
// fail retryably. Its end is evidence of that, read in workflow code from
// history: the run counts the attempts it did not charge (the ceiling reads
// 3 spent, not 1), and refuses the next call, not retryable, naming the
// worker without the kit, instead of giving it attempts that were spent.
// The history replays.
func TestIntegrationAttemptsRunWithoutTheKitAreCounted(t *testing.T) {
	t.Parallel()
	c := testsuite.DevServerFor(t).Client()
	queue := "tq-" + t.Name()
	retrieval := mustPolicy(t, temporaladk.Retrieval)
	retrieval.Retry.InitialInterval, retrieval.Retry.MaxInterval = time.Millisecond, 5*time.Millisecond
	wf := worker.New(c, queue, worker.Options{LocalActivityWorkerOnly: true, Plugins: []worker.Plugin{newKit(t, interceptors.Options{Policies: policiesOf(retrieval)})}})
	wf.RegisterWorkflow(BudgetedCallsWorkflow)
	acts := &Activities{log: newAttemptLog()}
	plain := worker.New(c, queue, worker.Options{DisableWorkflowWorker: true})
	plain.RegisterActivity(acts)
	for _, w := range []worker.Worker{wf, plain} {
		require.NoError(t, w.Start())
		t.Cleanup(w.Stop)
	}
	ctx := testsuite.Context(t)
	run, err := c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: queue, TaskQueue: queue}, BudgetedCallsWorkflow, 2, 3)
	require.NoError(t, err)
	var out budgetedCalls
	require.NoError(t, testsuite.WorkflowResult(ctx, t, c, run, &out))
	h, err := testsuite.WorkflowHistory(ctx, c, run.GetID(), run.GetRunID())
	require.NoError(t, err)
	events := h.GetEvents()

	assert.Len(t, acts.log.get("sequence/0"), 3, "the first call ran the 3 attempts the server held it to, on the worker without the kit")
	assert.Equal(t, []int32{3}, testsuite.StartedAttempts(events), "as the server recorded them")
	require.Len(t, out.Types, 2)
	assert.Equal(t, temporaladk.TypeProvider, out.Types[0], "the first call ends with its own failure")
	assert.Equal(t, temporaladk.TypeMisconfigured, out.Types[1], "the second is refused: %s", out.Errors[1])
	assert.Contains(t, out.Errors[1], "failed retryably after the 3 attempts its retry policy gives, of which the run charged 1, so an activity worker without the kit ran the others")
	assert.Contains(t, out.Errors[1], "register the kit's plugin on every activity worker of its task queue")
	assert.Empty(t, acts.log.get("sequence/1"), "the second call never ran")
	assert.Len(t, testsuite.ScheduledActivities(events, ""), 1, "nor was it scheduled")
	assert.Equal(t, 3, out.Spent, "the attempts run without the kit are counted")
	assert.Zero(t, out.Remaining)

	replayer, err := worker.NewWorkflowReplayerWithOptions(worker.WorkflowReplayerOptions{Plugins: []worker.Plugin{newKit(t, interceptors.Options{})}})
	require.NoError(t, err)
	replayer.RegisterWorkflow(BudgetedCallsWorkflow)
	require.NoError(t, replayer.ReplayWorkflowHistory(nil, h), "the history replays with the kit")
}
