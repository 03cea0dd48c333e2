package conversation_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/workflow"

	"github.com/temporaladk/adk-go/conversation"
	"github.com/temporaladk/adk-go/spend"
	"github.com/temporaladk/adk-go/temporaladk"
	"github.com/temporaladk/adk-go/testsuite"
)

// FanOutChainRequest configures FanOutChain.
type FanOutChainRequest struct {
	// Pool is the size of the retry pool "retries".
	Pool int
	// Branches are the branches each run fans out, by run; the chain has
	// as many runs.
	Branches []int
}

// FanOutChainResult is what the pool counted, run by run.
type FanOutChainResult struct {
	// Used and Left are the pool's retries taken and left as each run
	// left it; Size its size in the last run.
	Used, Left []int
	Size       int
	// Outcomes counts the branches of every run by the type of their error.
	Outcomes map[string]int
}

// FanOutChain fans out Branches[run] MEMORY calls that fail retryably on
// every attempt, under the retry pool "retries", waits for them all, and
// continues as new into the next run, until the last.
func FanOutChain(ctx workflow.Context, req FanOutChainRequest, done FanOutChainResult) (FanOutChainResult, error) {
	ctx, err := temporaladk.WithBudgets(ctx, temporaladk.Budgets{Name: "retries", Retries: req.Pool})
	if err != nil {
		return FanOutChainResult{}, err
	}
	if done.Outcomes == nil {
		done.Outcomes = map[string]int{}
	}
	ctx = temporaladk.WithClass(ctx, temporaladk.Memory)
	ctx = workflow.WithActivityOptions(ctx, workflow.ActivityOptions{StartToCloseTimeout: 10 * time.Second})
	branches := req.Branches[len(done.Used)]
	futures := make([]workflow.Future, branches)
	for i := range futures {
		futures[i] = workflow.ExecuteActivity(ctx, Flaky)
	}
	for _, f := range futures {
		done.Outcomes[typeOf(f.Get(ctx, nil))]++
	}
	pool := budgetOf(ctx, spend.KindRetries)
	done.Used = append(done.Used, int(pool.Spent))
	done.Left = append(done.Left, int(pool.Remaining))
	done.Size = int(pool.Limit)
	if len(done.Used) < len(req.Branches) {
		return FanOutChainResult{}, conversation.ContinueAsNew(ctx, FanOutChain, req, done)
	}
	return done, nil
}

// TestFanOutPoolHoldsAcrossContinueAsNew fans out ten calls that fail
// retryably (three attempts each) under a retry budget of 30 retries,
// continues as new and fans out ten more: the first run takes 20 retries,
// the second the 10 left of the pool, not 20. The retries the server
// recorded across both runs are the pool's size exactly, and every run
// replays.
func TestFanOutPoolHoldsAcrossContinueAsNew(t *testing.T) {
	began := time.Now()
	srv := testsuite.DevServerFor(t)
	c := srv.Client()
	queue, plugin := started(t, c)
	ctx := timeout(t, 3*time.Minute)

	const pool, branches = 30, 10
	id := queue
	wr, err := c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: id, TaskQueue: queue}, FanOutChain, FanOutChainRequest{Pool: pool, Branches: []int{branches, branches}}, FanOutChainResult{})
	require.NoError(t, err)
	firstRun := wr.GetRunID() // Get follows the chain to its last run
	var result FanOutChainResult
	require.NoError(t, wr.Get(ctx, &result))

	runs := chain(ctx, t, c, id, firstRun)
	require.Len(t, runs, 2, "the fan-out continued as new once")
	first, second := retries(runs[0]), retries(runs[1])
	_, calls := startedAttempts(runs...)
	demand := 2 * branches * (3 - 1)
	t.Logf("figure: pool=%d demand=%d retries recorded run 1=%d run 2=%d total=%d calls=%d attempts run in-process=%d pool used by run %v left %v outcomes=%v wall=%v",
		pool, demand, first, second, first+second, calls, ran.of(id), result.Used, result.Left, result.Outcomes, time.Since(began).Round(time.Millisecond))

	assert.Equal(t, branches*(3-1), first, "the first run's demand fits in the pool: every retry ran")
	assert.Equal(t, pool, first+second, "the retries across both runs are the pool's size exactly")
	assert.Equal(t, []int{first, first + second}, result.Used, "the pool in each run counted the retries recorded, carried across")
	assert.Equal(t, []int{pool - first, 0}, result.Left, "what the pool had left was carried across, and used up")
	assert.Equal(t, pool, result.Size, "the pool was not made larger")
	assert.Equal(t, 2*branches, calls, "every branch was scheduled")
	assert.Equal(t, 2*branches, result.Outcomes[temporaladk.TypeBudgetExceeded]+result.Outcomes[temporaladk.TypeProvider], "each branch ends refused or out of attempts")
	assert.Positive(t, result.Outcomes[temporaladk.TypeBudgetExceeded], "demand exceeds the pool: some branch is refused")
	replays(ctx, t, c, plugin, runs...)
}
