package recorded_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	commonpb "go.temporal.io/api/common/v1"
	historypb "go.temporal.io/api/history/v1"
	updatepb "go.temporal.io/api/update/v1"
	"go.temporal.io/sdk/converter"

	"github.com/temporaladk/adk-go/internal/wire"
	"github.com/temporaladk/adk-go/observe"
	"github.com/temporaladk/adk-go/observe/recorded"
	"github.com/temporaladk/adk-go/providers"
	"github.com/temporaladk/adk-go/spend"
	"github.com/temporaladk/adk-go/temporaladk"
)

var dc = converter.GetDefaultDataConverter()

func started(fields map[string]*commonpb.Payload) *historypb.HistoryEvent {
	return &historypb.HistoryEvent{EventId: 1, Attributes: &historypb.HistoryEvent_WorkflowExecutionStartedEventAttributes{
		WorkflowExecutionStartedEventAttributes: &historypb.WorkflowExecutionStartedEventAttributes{Header: &commonpb.Header{Fields: fields}}}}
}

func scheduled(id int64, typ string, fields map[string]*commonpb.Payload) *historypb.HistoryEvent {
	return &historypb.HistoryEvent{EventId: id, Attributes: &historypb.HistoryEvent_ActivityTaskScheduledEventAttributes{
		ActivityTaskScheduledEventAttributes: &historypb.ActivityTaskScheduledEventAttributes{
			ActivityType: &commonpb.ActivityType{Name: typ}, Header: &commonpb.Header{Fields: fields}}}}
}

func accepted(id int64, name string, args *commonpb.Payloads) *historypb.HistoryEvent {
	return &historypb.HistoryEvent{EventId: id, Attributes: &historypb.HistoryEvent_WorkflowExecutionUpdateAcceptedEventAttributes{
		WorkflowExecutionUpdateAcceptedEventAttributes: &historypb.WorkflowExecutionUpdateAcceptedEventAttributes{
			AcceptedRequest: &updatepb.Request{Input: &updatepb.Input{Name: name, Args: args}}}}}
}

func payload(t *testing.T, v any) *commonpb.Payload {
	t.Helper()
	p, err := dc.ToPayload(v)
	require.NoError(t, err)
	return p
}

// TestReadRefusesBadHistories: a history that is empty, does not begin
// with the run's start, or holds a kit header or charge Update that does
// not decode is an error naming what is wrong.
func TestReadRefusesBadHistories(t *testing.T) {
	t.Parallel()
	notJSON := &commonpb.Payload{Metadata: map[string][]byte{"encoding": []byte("json/plain")}, Data: []byte("{not json")}
	for _, tc := range []struct {
		name   string
		events []*historypb.HistoryEvent
		want   string
	}{
		{"empty", nil, "recorded: the history has no event"},
		{"no start", []*historypb.HistoryEvent{scheduled(1, "Chat", nil)}, "does not begin with WorkflowExecutionStarted"},
		{"bad call header", []*historypb.HistoryEvent{started(nil), scheduled(5, "Chat", map[string]*commonpb.Payload{"temporaladk-call": notJSON})},
			`recorded: event 5: temporaladk: the call header "temporaladk-call" does not decode`},
		{"unknown class", []*historypb.HistoryEvent{started(nil), scheduled(5, "Chat", map[string]*commonpb.Payload{"temporaladk-call": payload(t, map[string]any{"class": "FAST"})})},
			`unknown activity class "FAST"`},
		{"bad chain header", []*historypb.HistoryEvent{started(map[string]*commonpb.Payload{"temporaladk-chain": notJSON})},
			`recorded: event 1: temporaladk: the chain header "temporaladk-chain" does not decode`},
		{"bad charge requests", []*historypb.HistoryEvent{started(nil), accepted(7, "temporaladk.charges", &commonpb.Payloads{Payloads: []*commonpb.Payload{notJSON}})},
			"recorded: event 7: the kit's charge Update's requests do not decode"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			run, err := recorded.Read(tc.events)
			assert.Nil(t, run)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
}

// TestReadCallsAndCarry: a call is read from its scheduled event's header,
// numbered among the kit's calls; a call without the kit's header is not
// numbered; the start header's budgets and owner are the run's Carried;
// another Update is counted and not read.
func TestReadCallsAndCarry(t *testing.T) {
	t.Parallel()
	chain := payload(t, map[string]any{
		"runs":  map[string]any{"turns": map[string]int{"limit": 10, "spent": 4}},
		"pools": map[string]any{"retries": map[string]int{"size": 3, "used": 1}},
		"owner": map[string]string{"workflow_id": "parent", "run_id": "r1", "delegation": "child-1"},
	})
	header := payload(t, map[string]any{"class": "MODEL", "idempotency": "READ_ONLY", "key": "k1", "budget": "call-1",
		"spend": map[string]any{"max_tokens": 100, "model": "m", "tokens": true}})
	run, err := recorded.Read([]*historypb.HistoryEvent{
		started(map[string]*commonpb.Payload{"temporaladk-chain": chain}),
		scheduled(5, "Plain", nil),
		scheduled(6, "Chat", map[string]*commonpb.Payload{"temporaladk-call": header}),
		accepted(7, "somebody.else", nil),
	})
	require.NoError(t, err)
	require.NotNil(t, run.Carried)
	assert.Equal(t, map[string]recorded.Count{"turns": {Limit: 10, Spent: 4}}, run.Carried.Attempts)
	assert.Equal(t, int64(6), run.Carried.Attempts["turns"].Remaining())
	assert.Equal(t, map[string]recorded.Count{"retries": {Limit: 3, Spent: 1}}, run.Carried.Retries)
	assert.Equal(t, &observe.Owner{WorkflowID: "parent", RunID: "r1", Delegation: "child-1"}, run.Carried.Owner)
	require.Len(t, run.Calls, 2)
	assert.Zero(t, run.Calls[0].Seq, "not scheduled by the kit")
	assert.False(t, run.Calls[0].Attempts[0].Header)
	c := run.Calls[1]
	assert.Equal(t, 1, c.Seq)
	assert.Equal(t, temporaladk.Model, c.Class)
	assert.Equal(t, temporaladk.ReadOnly, c.Idempotency)
	assert.Equal(t, "k1", c.Key)
	assert.Equal(t, "call-1", c.Budget)
	assert.Equal(t, int64(100), c.MaxTokens)
	assert.Equal(t, "m", c.Model)
	require.Len(t, c.Attempts, 1)
	assert.Equal(t, observe.Attempt{ActivityType: "Chat", Number: 1, Header: true, Class: temporaladk.Model, RetryPolicy: true,
		Idempotency: temporaladk.ReadOnly, KeyPresent: true, BudgetCall: "call-1", Call: 1}, c.Attempts[0].Attempt)
	assert.Nil(t, c.End, "still open")
	assert.Equal(t, 1, run.Updates)
	assert.Zero(t, run.ChargeUpdates)
}

// TestCountRemainingIsNeverNegative: a budget overspent reads as nothing
// left.
func TestCountRemainingIsNeverNegative(t *testing.T) {
	t.Parallel()
	assert.Equal(t, int64(0), recorded.Count{Limit: 2, Spent: 3}.Remaining())
}

func completedUpdate(id, acceptedID int64, out *commonpb.Payloads) *historypb.HistoryEvent {
	return &historypb.HistoryEvent{EventId: id, Attributes: &historypb.HistoryEvent_WorkflowExecutionUpdateCompletedEventAttributes{
		WorkflowExecutionUpdateCompletedEventAttributes: &historypb.WorkflowExecutionUpdateCompletedEventAttributes{
			AcceptedEventId: acceptedID, Outcome: &updatepb.Outcome{Value: &updatepb.Outcome_Success{Success: out}}}}}
}

// TestReadChargeUpdates: the charge Update's answers are read as the
// ledger told its observer: a retry's charge once, with what is left; a
// reservation once per attempt, settling the attempt before it whole when
// it never settled; a settlement of the attempt reserved, once; a refusal
// once; a child's call named by its first charge.
func TestReadChargeUpdates(t *testing.T) {
	t.Parallel()
	header := payload(t, map[string]any{"class": "MODEL", "budget": "call-1", "spend": map[string]any{"max_tokens": 100, "model": "m", "tokens": true}})
	price := &spend.Price{Input: 1, Output: 2}
	usage := &providers.Usage{InputTokens: 10, OutputTokens: 3}
	reqs := []wire.ChargeRequest{
		{Call: "call-1", Attempt: 1, Reserve: &wire.Reservation{Model: "m", MaxTokens: 100, Price: price}},
		{Call: "call-1", Attempt: 2, Reserve: &wire.Reservation{Model: "m", MaxTokens: 100, Price: price}},
		{Call: "call-1", Attempt: 2, Reserve: &wire.Reservation{Model: "m", MaxTokens: 100, Price: price}},
		{Call: "call-1", Attempt: 2, Settle: &wire.Settlement{Usage: usage, Succeeded: true}},
		{Call: "call-1", Attempt: 2, Settle: &wire.Settlement{Usage: usage, Succeeded: true}},
		{Call: "call-1", Attempt: 3, Reserve: &wire.Reservation{Model: "m", MaxTokens: 100}},
		{Call: "call-1", Attempt: 3, Reserve: &wire.Reservation{Model: "m", MaxTokens: 100}},
		{Call: "child-1/run/1", Attempt: 1, Delegation: "child-1", Class: temporaladk.Tool},
	}
	left := 4
	refused := &temporaladk.BudgetExceededError{Breached: "tokens", Limit: 250, Consumed: 200, Asked: 100}
	results := []wire.ChargeResult{
		{Granted: true}, {Granted: true, Remaining: &left}, {Granted: true, Remaining: &left},
		{Granted: true}, {Granted: true}, {Refused: refused}, {Refused: refused}, {Granted: true, Remaining: &left},
	}
	args, err := dc.ToPayloads(reqs)
	require.NoError(t, err)
	out, err := dc.ToPayloads(results)
	require.NoError(t, err)
	run, err := recorded.Read([]*historypb.HistoryEvent{
		started(nil),
		scheduled(5, "Chat", map[string]*commonpb.Payload{"temporaladk-call": header}),
		accepted(8, "temporaladk.charges", args),
		completedUpdate(9, 8, out),
	})
	require.NoError(t, err)
	assert.Equal(t, 1, run.ChargeUpdates)
	four := 4
	assert.Equal(t, []observe.Charge{
		{ActivityType: "Chat", Class: temporaladk.Model, Call: "call-1", Attempt: 2, Remaining: &four},
		{Class: temporaladk.Tool, Call: "child-1/run/1", Attempt: 1, Remaining: &four},
	}, run.Charges)
	assert.Equal(t, []observe.Reservation{
		{ActivityType: "Chat", Class: temporaladk.Model, Call: "call-1", Attempt: 1, Model: "m", MaxTokens: 100, Price: price},
		{ActivityType: "Chat", Class: temporaladk.Model, Call: "call-1", Attempt: 2, Model: "m", MaxTokens: 100, Price: price},
	}, run.Reservations)
	assert.Equal(t, []observe.Settlement{
		{ActivityType: "Chat", Class: temporaladk.Model, Call: "call-1", Attempt: 1, Unsettled: true},
		{ActivityType: "Chat", Class: temporaladk.Model, Call: "call-1", Attempt: 2, Usage: usage, Succeeded: true},
	}, run.Settlements)
	require.Len(t, run.Refusals, 1, "the same attempt refused twice is one refusal")
	assert.Equal(t, observe.Refusal{ActivityType: "Chat", Class: temporaladk.Model, Call: "call-1", Attempt: 3, Err: refused}, run.Refusals[0])
}

// TestReadRefusesMismatchedChargeResults: a charge Update whose results do
// not answer its requests one for one is an error naming the event.
func TestReadRefusesMismatchedChargeResults(t *testing.T) {
	t.Parallel()
	args, err := dc.ToPayloads([]wire.ChargeRequest{{Call: "call-1", Attempt: 2}})
	require.NoError(t, err)
	out, err := dc.ToPayloads([]wire.ChargeResult{})
	require.NoError(t, err)
	_, err = recorded.Read([]*historypb.HistoryEvent{started(nil), accepted(8, "temporaladk.charges", args), completedUpdate(9, 8, out)})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "recorded: event 9: the kit's charge Update has 0 results for 1 requests")
}
