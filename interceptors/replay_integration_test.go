package interceptors_test

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	commonpb "go.temporal.io/api/common/v1"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"
	"google.golang.org/protobuf/proto"

	"github.com/temporaladk/adk-go/interceptors"
	"github.com/temporaladk/adk-go/temporaladk"
	"github.com/temporaladk/adk-go/testsuite"
)

// GrowWorkflow is an agent that re-sends its whole conversation every turn:
// turns calls of Measure, the conversation growing by size bytes each, then,
// on the signal "go", one more.
func GrowWorkflow(ctx workflow.Context, turns, size int) (int, error) {
	ctx = temporaladk.WithClass(workflow.WithActivityOptions(ctx, workflow.ActivityOptions{StartToCloseTimeout: 30 * time.Second}), temporaladk.Model)
	var conversation []string
	total := 0
	turn := func(text string) error {
		conversation = append(conversation, text)
		var n int
		err := workflow.ExecuteActivity(ctx, "Measure", conversation).Get(ctx, &n)
		total += n
		return err
	}
	for i := range turns {
		if err := turn(strings.Repeat(string(rune('a'+i%26)), size)); err != nil {
			return 0, err
		}
	}
	workflow.GetSignalChannel(ctx, "go").Receive(ctx, nil)
	return total, turn("last")
}

// Measure returns how many bytes the conversation holds.
func Measure(_ context.Context, conversation []string) (int, error) {
	n := 0
	for _, m := range conversation {
		n += len(m)
	}
	return n, nil
}

// countingConverter is the SDK's default converter, counting the bytes of
// every payload it encodes.
type countingConverter struct {
	converter.DataConverter
	mu    *sync.Mutex
	bytes *int
}

func (c countingConverter) ToPayloads(values ...any) (*commonpb.Payloads, error) {
	ps, err := c.DataConverter.ToPayloads(values...)
	if err == nil {
		c.mu.Lock()
		*c.bytes += proto.Size(ps)
		c.mu.Unlock()
	}
	return ps, err
}

func (c countingConverter) encoded() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return *c.bytes
}

// A worker that takes an agent's run over replays every turn the run made
// in one workflow task. The kit hands the SDK a stand-in for what each
// replayed call scheduled (the server's copy is the one the activity gets),
// so the new worker encodes none of the conversation again: less than one
// turn's input, where the calls' inputs the server holds add up to the
// square of the turns. The run then goes on, on the new worker, to the same
// result.
func TestIntegrationTakeoverEncodesNoReplayedInput(t *testing.T) {
	t.Parallel()
	const turns, size = 12, 32 << 10
	srv := testsuite.DevServerFor(t)
	queue := "tq-" + t.Name()
	newWorker := func(c client.Client) worker.Worker {
		w := worker.New(c, queue, worker.Options{Plugins: []worker.Plugin{newKit(t, interceptors.Options{})},
			StickyScheduleToStartTimeout: time.Second})
		w.RegisterWorkflow(GrowWorkflow)
		w.RegisterActivityWithOptions(Measure, activity.RegisterOptions{Name: "Measure"})
		require.NoError(t, w.Start())
		return w
	}
	first := newWorker(srv.Client())
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	run, err := srv.Client().ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: queue, TaskQueue: queue}, GrowWorkflow, turns, size)
	require.NoError(t, err)
	// The first worker has made every turn when the run waits for "go": its
	// last workflow task is completed with no activity pending.
	require.Eventually(t, func() bool {
		d, err := srv.Client().DescribeWorkflowExecution(ctx, run.GetID(), run.GetRunID())
		return err == nil && len(d.GetPendingActivities()) == 0 && d.GetPendingWorkflowTask() == nil &&
			d.GetWorkflowExecutionInfo().GetHistoryLength() >= int64(3*turns)
	}, time.Minute, 10*time.Millisecond)
	first.Stop()

	counter := countingConverter{DataConverter: converter.GetDefaultDataConverter(), mu: &sync.Mutex{}, bytes: new(int)}
	c, err := client.Dial(client.Options{HostPort: srv.Address(), Namespace: srv.Namespace(), DataConverter: counter})
	require.NoError(t, err)
	defer c.Close()
	second := newWorker(c)
	defer second.Stop()
	require.NoError(t, srv.Client().SignalWorkflow(ctx, run.GetID(), run.GetRunID(), "go", nil))
	var total int
	require.NoError(t, run.Get(ctx, &total))
	want := 0
	for i := 1; i <= turns; i++ {
		want += i * size
	}
	assert.Equal(t, want+turns*size+len("last"), total, "the run ends on the second worker as it would have on the first")

	// What the server holds of the calls' inputs.
	held := 0
	it := srv.Client().GetWorkflowHistory(ctx, run.GetID(), run.GetRunID(), false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
	for it.HasNext() {
		e, err := it.Next()
		require.NoError(t, err)
		if a := e.GetActivityTaskScheduledEventAttributes(); a != nil {
			held += proto.Size(a.GetInput())
		}
	}
	require.Greater(t, held, turns*turns/2*size, "the server holds every turn's whole conversation")
	// The second worker encoded the last call's input (the whole
	// conversation, once), its results and, of the replayed turns, only
	// stand-ins: less than twice the conversation.
	conversation := (turns + 1) * size
	t.Logf("the second worker encoded %d bytes; the replayed calls' inputs the server holds are %d", counter.encoded(), held)
	assert.Less(t, counter.encoded(), 2*conversation, "the second worker encoded %d bytes; the replayed calls' inputs are %d", counter.encoded(), held)
}
