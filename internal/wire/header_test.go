package wire_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	commonpb "go.temporal.io/api/common/v1"
	"go.temporal.io/sdk/converter"

	"github.com/temporaladk/adk-go/internal/wire"
)

func TestDecodeCallHeader(t *testing.T) {
	t.Parallel()
	h, ok, err := wire.DecodeCallHeader(nil)
	require.NoError(t, err)
	assert.False(t, ok, "no header: not a kit call")
	assert.Equal(t, wire.CallHeader{}, h)
	_, ok, err = wire.DecodeCallHeader(map[string]*commonpb.Payload{wire.HeaderKey: {Data: []byte("{not json")}})
	assert.False(t, ok)
	assert.ErrorContains(t, err, `the call header "temporaladk-call" does not decode`)
	unknown, err := converter.GetDefaultDataConverter().ToPayload(wire.CallHeader{Class: "FAST"})
	require.NoError(t, err)
	_, ok, err = wire.DecodeCallHeader(map[string]*commonpb.Payload{wire.HeaderKey: unknown})
	assert.False(t, ok)
	assert.ErrorContains(t, err, `unknown activity class "FAST"`)
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
	h, ok, err := wire.DecodeCallHeader(map[string]*commonpb.Payload{wire.HeaderKey: p})
	require.NoError(t, err)
	require.True(t, ok)
	assert.Equal(t, wire.CallHeader{Class: "MEMORY", MaxRetryAfter: time.Minute, Budget: "call-4"}, h)
}
