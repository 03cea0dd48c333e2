package conversation_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/workflow"

	"github.com/temporaladk/adk-go/conversation"
	"github.com/temporaladk/adk-go/internal/wire"
	"github.com/temporaladk/adk-go/temporaladk"
	"github.com/temporaladk/adk-go/testsuite"
)

// KeyedArgs is the input of KeyedTool; its key is derived from Order.
type KeyedArgs struct {
	Order string `json:"order"`
}

// KeyedTool is an effectful tool keyed by its order: it succeeds.
func KeyedTool(ctx context.Context, args KeyedArgs) error { return nil }

// KeyedChain calls KeyedTool for order in each run, under the named budget
// "turns", and continues as new once.
func KeyedChain(ctx workflow.Context, order string, run int) error {
	ctx, err := temporaladk.WithBudgets(ctx, temporaladk.Budgets{Name: "turns", Attempts: 10})
	if err != nil {
		return err
	}
	ctx = workflow.WithActivityOptions(ctx, workflow.ActivityOptions{StartToCloseTimeout: 10 * time.Second})
	if err := workflow.ExecuteActivity(ctx, "KeyedTool", KeyedArgs{Order: order}).Get(ctx, nil); err != nil {
		return err
	}
	if run == 0 {
		return conversation.ContinueAsNew(ctx, KeyedChain, order, run+1)
	}
	return nil
}

// TestIdempotencyKeySurvivesContinueAsNew makes one keyed tool call in a
// run and the same call in the run it continues as new: the call headers
// the server recorded in the two ActivityTaskScheduled events carry one
// key, not empty, for two runs.
func TestIdempotencyKeySurvivesContinueAsNew(t *testing.T) {
	began := time.Now()
	srv := testsuite.DevServerFor(t)
	c := srv.Client()
	queue, plugin := started(t, c)
	ctx := timeout(t, time.Minute)

	id := queue
	wr, err := c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: id, TaskQueue: queue}, KeyedChain, "order-17", 0)
	require.NoError(t, err)
	firstRun := wr.GetRunID() // Get follows the chain to its last run
	require.NoError(t, wr.Get(ctx, nil))

	runs := chain(ctx, t, c, id, firstRun)
	require.Len(t, runs, 2, "the chain continued as new once")
	var keys []string
	for _, r := range runs {
		for _, e := range r.events {
			a := e.GetActivityTaskScheduledEventAttributes()
			if a == nil {
				continue
			}
			h, ok, err := wire.DecodeCallHeader(a.GetHeader().GetFields())
			require.NoError(t, err)
			require.True(t, ok, "the call carries the kit's header")
			keys = append(keys, h.IdempotencyKey)
		}
	}
	t.Logf("figure: runs=%d (%s, %s) keys=%q wall=%v", len(runs), runs[0].runID, runs[1].runID, keys, time.Since(began).Round(time.Millisecond))
	require.Len(t, keys, 2, "one keyed call in each run")
	assert.NotEqual(t, runs[0].runID, runs[1].runID)
	assert.NotEmpty(t, keys[0], "the call is keyed")
	assert.Equal(t, keys[0], keys[1], "the key is the same in the run continued as new")
	replays(ctx, t, c, plugin, runs...)
}
