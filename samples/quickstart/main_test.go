package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	historypb "go.temporal.io/api/history/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/converter"

	"github.com/temporaladk/adk-go/approvals"
	"github.com/temporaladk/adk-go/testsuite"
)

// TestQuickstart runs the sample as written and checks, from the files it
// recorded and from the server, what it promises: three runs of the agent
// (two continued as new) and one of its sub-agent, recorded and replayed;
// the booking approved by two of the three approvers, each decision signed
// and accepted before the booking was scheduled; the budgets kept across
// the chain, the sub-agent's MODEL call charged to them at the parent's cap.
func TestQuickstart(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	dir := t.TempDir()
	var out bytes.Buffer
	require.NoError(t, run(ctx, dir, &out))
	assert.Contains(t, out.String(), "ana approves Book [map[Seat:12A Trip:lisbon]]\nbo approves Book [map[Seat:12A Trip:lisbon]]\n")
	assert.Contains(t, out.String(), "[reply 1 reply 2 reply 3 summary: reply 3 booked 12A budgets")
	// What the budgets hold at the end, computed from the activities: each
	// turn makes a Search and a Chat, the sub-agent a Chat, then Book, each
	// attempt charged once; Chat reports 10 input tokens per message and 20
	// output tokens, its prompts holding 1, 2 and 3 messages, the summary's
	// 3.
	attempts := 2*Turns + 1 + 1
	var settled int64
	for _, messages := range []int64{1, 2, 3, Turns} {
		settled += 10*messages + 20
	}
	assert.Contains(t, out.String(), fmt.Sprintf("{Name:agent Kind:attempts Limit:30 Reserved:0 Spent:%d Remaining:%d By:[]}", attempts, 30-attempts))
	assert.Contains(t, out.String(), fmt.Sprintf("{Name:agent Kind:tokens Limit:5000 Reserved:0 Spent:%d Remaining:%d", settled, 5000-settled))
	assert.Contains(t, out.String(), "4 runs recorded and replayed")

	files, err := filepath.Glob(filepath.Join(dir, "*.json"))
	require.NoError(t, err)
	assert.Len(t, files, 4, "three runs of the chain and the sub-agent's: %v", files)
	var chats int64
	for _, f := range files {
		cmds, err := testsuite.HistoryCommands(f)
		require.NoError(t, err)
		for _, c := range cmds {
			if strings.Contains(c, "Chat") {
				chats++
			}
		}
	}
	assert.Equal(t, int64(4), chats, "three turns and the summary, each one MODEL call")

	// The decisions the run accepted, in its history: ana's and bo's, each
	// signed with its own key, both before Book was scheduled.
	var decided []string
	for _, f := range files {
		booked := false
		for _, e := range historyEvents(t, f) {
			if a := e.GetWorkflowExecutionUpdateAcceptedEventAttributes(); a != nil && a.GetAcceptedRequest().GetInput().GetName() == approvals.UpdateName {
				var req approvals.Request
				require.NoError(t, converter.GetDefaultDataConverter().FromPayload(a.GetAcceptedRequest().GetInput().GetArgs().GetPayloads()[0], &req))
				assert.False(t, booked, "%s's decision came after the booking was scheduled", req.By)
				assert.True(t, req.Approves())
				assert.NotEmpty(t, req.Signature, "%s's decision is signed", req.By)
				decided = append(decided, req.By+"/"+req.Key)
			}
			if a := e.GetActivityTaskScheduledEventAttributes(); a != nil && a.GetActivityType().GetName() == "Book" {
				booked = true
			}
		}
	}
	assert.Equal(t, []string{"ana/ana-1", "bo/bo-1"}, decided, "two of the three approved, and no one else")
}

// historyEvents reads a history file RecordAndReplay wrote.
func historyEvents(t *testing.T, path string) []*historypb.HistoryEvent {
	t.Helper()
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	h, err := client.HistoryFromJSON(f, client.HistoryJSONOptions{})
	require.NoError(t, err)
	return h.GetEvents()
}
