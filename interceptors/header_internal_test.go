package interceptors

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	commonpb "go.temporal.io/api/common/v1"

	"github.com/temporaladk/adk-go/temporaladk"
)

// A header without a key or a budget is encoded once and then shared: each
// call still gets a Payload of its own, which decodes to the same header.
func TestEncodeHeaderKeepsTheEncodingOfFewHeaders(t *testing.T) {
	t.Parallel()
	i, err := New(Options{})
	require.NoError(t, err)
	h := CallHeader{Class: temporaladk.Model, MaxAttempts: 3, InitialInterval: time.Second, BackoffCoefficient: 2}
	first, err := i.encodeHeader(h)
	require.NoError(t, err)
	second, err := i.encodeHeader(h)
	require.NoError(t, err)
	assert.NotSame(t, first, second, "a Payload per call")
	assert.Equal(t, first.GetData(), second.GetData())
	for _, p := range []*commonpb.Payload{first, second} {
		got, ok, err := DecodeCallHeader(map[string]*commonpb.Payload{HeaderKey: p})
		require.NoError(t, err)
		require.True(t, ok)
		assert.Equal(t, h, got)
	}
	_, kept := i.headers.Load(h)
	assert.True(t, kept)

	keyed := h
	keyed.IdempotencyKey = "k"
	p, err := i.encodeHeader(keyed)
	require.NoError(t, err)
	got, _, err := DecodeCallHeader(map[string]*commonpb.Payload{HeaderKey: p})
	require.NoError(t, err)
	assert.Equal(t, keyed, got)
	_, kept = i.headers.Load(keyed)
	assert.False(t, kept, "a header with a key is one of many: not kept")
}
