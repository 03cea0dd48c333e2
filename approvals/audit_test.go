package approvals_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/workflow"

	"github.com/temporaladk/adk-go/approvals"
	"github.com/temporaladk/adk-go/conversation"
)

// Relay books seat n with PairSeat in run n, then continues as new through
// the conversation package, until run last, which waits for its booking
// and ends.
func Relay(ctx workflow.Context, n, last int) (string, error) {
	ctx = workflow.WithActivityOptions(ctx, workflow.ActivityOptions{StartToCloseTimeout: 30 * time.Second})
	var booked string
	if err := workflow.ExecuteActivity(ctx, "PairSeat", Seat{"LX8", string(rune('A' + n - 1))}).Get(ctx, &booked); err != nil {
		return "", err
	}
	if n == last {
		return booked, nil
	}
	return "", conversation.ContinueAsNew(ctx, Relay, n+1, last)
}

// rawDecision is a decision as the test reads it from the raw history,
// without the package's code: the JSON of the Update's argument.
type rawDecision struct {
	RunID, UpdateID string
	EventID         int64
	Time            time.Time
	Input           map[string]any
}

// TestAuditOfAChain: a chain whose first run had its call approved by ana
// and bo (and a rejected attempt by eve), continued as new, and whose
// second run waits with one approval of two. Audit reads back exactly the
// accepted Updates of both runs' histories, in order, with who, what,
// when and which key.
func TestAuditOfAChain(t *testing.T) {
	e := startWorker(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	first := e.start(ctx, Relay, 1, 2)
	p := pending(t, ctx, e.c, first.GetID(), 1)[0]
	require.NoError(t, approvals.Decide(ctx, e.c, first.GetID(), sign(t, "ana", p, true, "fine")))
	rejectedType(t, approvals.Decide(ctx, e.c, first.GetID(), sign(t, "eve", p, true, "")))
	require.NoError(t, approvals.Decide(ctx, e.c, first.GetID(), sign(t, "bo", p, true, "")))

	var q approvals.Pending
	require.Eventually(t, func() bool {
		list, err := approvals.List(ctx, e.c, first.GetID())
		if err != nil || len(list) != 1 || list[0].RunID == first.GetRunID() {
			return false
		}
		q = list[0]
		return true
	}, time.Minute, 50*time.Millisecond, "the second run lists its call")
	require.Equal(t, first.GetRunID(), q.Chain, "the chain is named by its first run")
	require.Equal(t, []any{map[string]any{"flight": "LX8", "seat": "B"}}, q.Args)
	require.NoError(t, approvals.Decide(ctx, e.c, first.GetID(), sign(t, "cy", q, true, "")))

	got, err := approvals.Audit(ctx, e.c, first.GetID(), approvals.AuditOptions{})
	require.NoError(t, err)

	// The raw histories of both runs, read without the package.
	var raw []rawDecision
	for _, runID := range []string{first.GetRunID(), q.RunID} {
		it := e.c.GetWorkflowHistory(ctx, first.GetID(), runID, false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
		for it.HasNext() {
			ev, err := it.Next()
			require.NoError(t, err)
			a := ev.GetWorkflowExecutionUpdateAcceptedEventAttributes()
			if a == nil {
				continue
			}
			args := a.GetAcceptedRequest().GetInput().GetArgs().GetPayloads()
			require.Len(t, args, 1)
			var in map[string]any
			require.NoError(t, json.Unmarshal(args[0].GetData(), &in))
			raw = append(raw, rawDecision{RunID: runID, UpdateID: a.GetAcceptedRequest().GetMeta().GetUpdateId(), EventID: ev.GetEventId(), Time: ev.GetEventTime().AsTime(), Input: in})
		}
	}
	require.Len(t, raw, 3, "ana and bo in the first run, cy in the second; eve's rejected attempt is in neither")
	require.Len(t, got, len(raw))
	for i, r := range raw {
		a := got[i]
		require.Equal(t, first.GetID(), a.WorkflowID)
		require.Equal(t, r.RunID, a.RunID, i)
		require.Equal(t, r.UpdateID, a.UpdateID, i)
		require.Equal(t, r.EventID, a.EventID, i)
		require.True(t, r.Time.Equal(a.Time), i)
		require.Equal(t, r.Input["by"], a.Request.By, i)
		require.Equal(t, r.Input["key"], a.Request.Key, i)
		require.Equal(t, r.Input["call"], a.Request.Call, i)
		require.Equal(t, r.Input["digest"], a.Request.Digest, i)
		require.Equal(t, r.Input["approve"], a.Request.Approves(), i)
		require.Equal(t, r.Input["expires"], a.Request.Expires.UTC().Format(time.RFC3339Nano), i)
		require.Equal(t, r.Input["signature"], base64(a.Request.Signature), i)
	}
	var who []string
	for _, a := range got {
		who = append(who, a.Request.By+"/"+a.Request.Key)
		require.True(t, a.Applied)
	}
	require.Equal(t, []string{"ana/ana-test", "bo/bo-test", "cy/cy-test"}, who)

	// The second run's call still waits for its second approval.
	left, err := approvals.List(ctx, e.c, first.GetID())
	require.NoError(t, err)
	require.Len(t, left, 1)
	require.Equal(t, []string{"cy"}, left[0].Approvals)
	require.NoError(t, approvals.Decide(ctx, e.c, first.GetID(), sign(t, "ana", q, true, "")))
	var booked string
	require.NoError(t, e.c.GetWorkflow(ctx, first.GetID(), "").Get(ctx, &booked))
	require.Equal(t, "booked LX8/B", booked)
}
