package wire_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	commonpb "go.temporal.io/api/common/v1"

	"github.com/temporaladk/adk-go/internal/budget"
	"github.com/temporaladk/adk-go/internal/wire"
)

// TestDecodeChainHeaderReadsWhatTheKitWrites: the reader's mirror of the
// chain header decodes the budgets and owner as internal/budget writes
// them, so that the two cannot drift apart unnoticed.
func TestDecodeChainHeaderReadsWhatTheKitWrites(t *testing.T) {
	t.Parallel()
	written := budget.Carried{
		Attempts: map[string]budget.AttemptState{"turns": {Limit: 10, Spent: 4}},
		Retries:  map[string]budget.RetryState{"retries": {Limit: 3, Spent: 1, Firsts: 2}},
		Tokens:   map[string]budget.MeterState{"tokens": {Limit: 1000, Spent: 250}},
		Costs:    map[string]budget.MeterState{"cost": {Limit: 5000, Spent: 10}},
		Owner:    &budget.Owner{WorkflowID: "parent", RunID: "r1", Delegation: "child-1", Tokens: true},
	}
	p, err := wire.Converter.ToPayload(written)
	require.NoError(t, err)
	h, ok, err := wire.DecodeChainHeader(map[string]*commonpb.Payload{wire.ChainHeaderKey: p})
	require.NoError(t, err)
	require.True(t, ok)
	assert.Equal(t, 10, h.Attempts["turns"].Limit)
	assert.Equal(t, 4, h.Attempts["turns"].Spent)
	assert.Equal(t, 3, h.Retries["retries"].Limit)
	assert.Equal(t, 1, h.Retries["retries"].Spent)
	assert.Equal(t, wire.MeterHeader{Limit: 1000, Spent: 250}, h.Tokens["tokens"])
	assert.Equal(t, wire.MeterHeader{Limit: 5000, Spent: 10}, h.Costs["cost"])
	require.NotNil(t, h.Owner)
	assert.Equal(t, "parent", h.Owner.WorkflowID)
	assert.Equal(t, "r1", h.Owner.RunID)
	assert.Equal(t, "child-1", h.Owner.Delegation)

	_, ok, err = wire.DecodeChainHeader(nil)
	require.NoError(t, err)
	assert.False(t, ok, "no header: nothing carried")
}
