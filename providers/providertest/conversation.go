package providertest

import (
	"testing"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/converter"
	sdktestsuite "go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/workflow"

	"github.com/temporaladk/adk-go/conversation"
	"github.com/temporaladk/adk-go/payloads"
)

// ByReference sends req, a provider's request that holds a
// conversation.Log, the way a workflow schedules it and an activity
// receives it: fill builds the request in workflow code (it appends to the
// Log and sets it in the request), the store's DataConverter encodes it, and
// the request is decoded twice, by a worker with a store over the same
// bucket (stored) and by one without any store (plain). It returns both
// decodings and the encoded request's size.
func ByReference[R any](t testing.TB, fill func(ctx workflow.Context, req *R) error) (stored, plain R, encoded int) {
	t.Helper()
	dir := t.TempDir()
	newStore := func() *payloads.Store {
		bucket, err := payloads.NewDirBucket(dir)
		require.NoError(t, err)
		store, err := payloads.NewStore(payloads.Options{Bucket: bucket})
		require.NoError(t, err)
		return store
	}
	var s sdktestsuite.WorkflowTestSuite
	env := s.NewTestWorkflowEnvironment()
	writer := newStore()
	var req R
	env.ExecuteWorkflow(func(ctx workflow.Context) error {
		if err := fill(ctx, &req); err != nil {
			return err
		}
		p, err := writer.DataConverter(nil).ToPayloads(req)
		if err != nil {
			return err
		}
		encoded = len(p.GetPayloads()[0].GetData())
		if err := newStore().DataConverter(nil).FromPayloads(p, &stored); err != nil {
			return err
		}
		return converter.GetDefaultDataConverter().FromPayloads(p, &plain)
	})
	require.NoError(t, env.GetWorkflowError())
	return stored, plain, encoded
}

// Conversation is a Log of msgs, appended in workflow code.
func Conversation[M any](ctx workflow.Context, msgs ...M) (*conversation.Log[M], error) {
	log := conversation.NewLog[M]()
	return log, log.Append(ctx, msgs...)
}
