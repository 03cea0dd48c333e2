package approvals_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	commonpb "go.temporal.io/api/common/v1"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/serviceerror"
	workflowpb "go.temporal.io/api/workflow/v1"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/converter"

	"github.com/temporaladk/adk-go/approvals"
)

// answers is a client whose approvals Query answers, in turn, with errs
// (nil: the pending calls) and whose run is running: the server's side of
// WaitPending, turn by turn. The rest of client.Client is not used.
type answers struct {
	client.Client
	errs    []error
	pending []approvals.Pending
	asked   int
}

func (a *answers) QueryWorkflow(context.Context, string, string, string, ...any) (converter.EncodedValue, error) {
	err := a.errs[a.asked]
	a.asked++
	if err != nil {
		return nil, err
	}
	p, perr := converter.GetDefaultDataConverter().ToPayloads(a.pending)
	if perr != nil {
		return nil, perr
	}
	return encoded{p}, nil
}

func (a *answers) DescribeWorkflowExecution(context.Context, string, string) (*workflowservice.DescribeWorkflowExecutionResponse, error) {
	return &workflowservice.DescribeWorkflowExecutionResponse{WorkflowExecutionInfo: &workflowpb.WorkflowExecutionInfo{
		Status: enumspb.WORKFLOW_EXECUTION_STATUS_RUNNING}}, nil
}

// encoded is a Query's answer as the SDK hands it over.
type encoded struct{ p *commonpb.Payloads }

func (e encoded) HasValue() bool { return e.p != nil }

func (e encoded) Get(valuePtr any) error {
	return converter.GetDefaultDataConverter().FromPayloads(e.p, valuePtr)
}

// TestWaitPendingAsksAgainWhenNoWorkerAnswered: the server's answer that
// the Query timed out before a worker could process it (a worker starting
// or busy, as on a loaded machine) is asked again, not returned; any other
// error is returned at once.
func TestWaitPendingAsksAgainWhenNoWorkerAnswered(t *testing.T) {
	t.Parallel()
	digest, err := approvals.Digest("order-7")
	require.NoError(t, err)
	pending := []approvals.Pending{{WorkflowID: "trip-1", RunID: "run-1", Call: "approval-1", ActivityType: "Refund", Digest: digest, Args: []any{"order-7"}}}
	timedOut := serviceerror.NewDeadlineExceeded("query timed out before a worker could process it")

	a := &answers{errs: []error{timedOut, timedOut, nil}, pending: pending}
	got, err := approvals.WaitPending(t.Context(), a, "trip-1", 1)
	require.NoError(t, err)
	assert.Equal(t, 3, a.asked, "asked until a worker answered")
	require.Len(t, got, 1)
	assert.Equal(t, "approval-1", got[0].Call)

	gone := serviceerror.NewNotFound("workflow not found")
	a = &answers{errs: []error{gone}, pending: pending}
	_, err = approvals.WaitPending(t.Context(), a, "trip-1", 1)
	assert.ErrorIs(t, err, gone)
	assert.Equal(t, 1, a.asked, "any other error is returned at once")
}
