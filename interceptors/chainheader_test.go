package interceptors_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	commonpb "go.temporal.io/api/common/v1"
	"go.temporal.io/sdk/converter"

	"github.com/temporaladk/adk-go/interceptors"
)

func TestDecodeChainHeader(t *testing.T) {
	t.Parallel()
	dc := converter.GetDefaultDataConverter()
	payload := func(v any) map[string]*commonpb.Payload {
		p, err := dc.ToPayload(v)
		require.NoError(t, err)
		return map[string]*commonpb.Payload{interceptors.ChainHeaderKey: p}
	}
	_, ok, err := interceptors.DecodeChainHeader(nil)
	require.NoError(t, err)
	assert.False(t, ok, "a header without the field holds no chain state")

	got, ok, err := interceptors.DecodeChainHeader(payload(map[string]any{
		"runs":  map[string]any{"turns": map[string]int{"limit": 30, "spent": 12}},
		"pools": map[string]any{"fanout": map[string]int{"size": 5, "used": 2, "firsts": 9}},
		"owner": map[string]string{"workflow_id": "parent", "run_id": "r1", "delegation": "child-1"},
	}))
	require.NoError(t, err)
	require.True(t, ok)
	assert.Equal(t, 30, got.Runs["turns"].Limit)
	assert.Equal(t, 12, got.Runs["turns"].Spent)
	assert.Equal(t, 2, got.Pools["fanout"].Used)
	assert.Equal(t, 9, got.Pools["fanout"].Firsts)
	require.NotNil(t, got.Owner)
	assert.Equal(t, "child-1", got.Owner.Delegation)

	for name, bad := range map[string]any{
		"not an object":        "garbage",
		"negative spent":       map[string]any{"runs": map[string]any{"turns": map[string]int{"limit": 3, "spent": -4}}},
		"negative pool":        map[string]any{"pools": map[string]any{"p": map[string]int{"size": -1}}},
		"owner without run ID": map[string]any{"owner": map[string]string{"workflow_id": "parent", "delegation": "child-1"}},
	} {
		_, ok, err := interceptors.DecodeChainHeader(payload(bad))
		require.Error(t, err, name)
		assert.False(t, ok, name)
		assert.Contains(t, err.Error(), interceptors.ChainHeaderKey, "%s: the error names the header", name)
	}
}

// TestDecodeCallHeaderOfAnEarlierBuild decodes a header as an earlier build
// wrote it, with a copy of the retry policy: the fields this build no longer
// has are ignored, and the rest reads as written.
func TestDecodeCallHeaderOfAnEarlierBuild(t *testing.T) {
	t.Parallel()
	p, err := converter.GetDefaultDataConverter().ToPayload(map[string]any{
		"class": "MEMORY", "max_retry_after": int64(60e9),
		"max_attempts": 3, "initial_interval": int64(250e6), "backoff_coefficient": 2, "max_interval": int64(5e9),
		"budget": "call-4",
	})
	require.NoError(t, err)
	h, ok, err := interceptors.DecodeCallHeader(map[string]*commonpb.Payload{interceptors.HeaderKey: p})
	require.NoError(t, err)
	require.True(t, ok)
	assert.Equal(t, interceptors.CallHeader{Class: "MEMORY", MaxRetryAfter: time.Minute, Budget: "call-4"}, h)
}
