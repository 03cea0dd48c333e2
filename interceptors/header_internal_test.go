package interceptors

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	commonpb "go.temporal.io/api/common/v1"

	"github.com/temporaladk/adk-go/internal/seam"
	"github.com/temporaladk/adk-go/internal/wire"
	"github.com/temporaladk/adk-go/temporaladk"
)

// A header without a key or a budget is encoded once and then shared: each
// call still gets a Payload of its own, which decodes to the same header. At
// most maxKeptHeaders are kept.
func TestEncodeHeaderKeepsTheEncodingOfFewHeaders(t *testing.T) {
	t.Parallel()
	i, err := newInterceptor(Options{}, seam.Seams{})
	require.NoError(t, err)
	h := wire.CallHeader{Class: temporaladk.Model, MaxRetryAfter: time.Minute}
	first, err := i.encodeHeader(h)
	require.NoError(t, err)
	second, err := i.encodeHeader(h)
	require.NoError(t, err)
	assert.NotSame(t, first, second, "a Payload per call")
	assert.Equal(t, first.GetData(), second.GetData())
	for _, p := range []*commonpb.Payload{first, second} {
		got, ok, err := wire.DecodeCallHeader(map[string]*commonpb.Payload{wire.HeaderKey: p})
		require.NoError(t, err)
		require.True(t, ok)
		assert.Equal(t, h, got)
	}
	_, kept := i.headers[h]
	assert.True(t, kept)

	keyed := h
	keyed.IdempotencyKey = "k"
	p, err := i.encodeHeader(keyed)
	require.NoError(t, err)
	got, _, err := wire.DecodeCallHeader(map[string]*commonpb.Payload{wire.HeaderKey: p})
	require.NoError(t, err)
	assert.Equal(t, keyed, got)
	_, kept = i.headers[keyed]
	assert.False(t, kept, "a header with a key is one of many: not kept")

	for n := range maxKeptHeaders + 10 {
		other := h
		other.MaxRetryAfter = time.Duration(n+1) * time.Second
		p, err := i.encodeHeader(other)
		require.NoError(t, err)
		got, _, err := wire.DecodeCallHeader(map[string]*commonpb.Payload{wire.HeaderKey: p})
		require.NoError(t, err)
		require.Equal(t, other, got, "encoded right whether kept or not")
	}
	assert.Len(t, i.headers, maxKeptHeaders, "bounded")
}

// A header without a key or a budget is decoded once and then read from the
// kept decodings; one with a key, and one that does not decode, are decoded
// every time, and at most maxKeptHeaders are kept.
func TestDecodeHeaderKeepsTheDecodingOfFewHeaders(t *testing.T) {
	t.Parallel()
	i, err := newInterceptor(Options{}, seam.Seams{})
	require.NoError(t, err)
	fields := func(h wire.CallHeader) map[string]*commonpb.Payload {
		p, err := wire.Converter.ToPayload(h)
		require.NoError(t, err)
		return map[string]*commonpb.Payload{wire.HeaderKey: p}
	}
	h := wire.CallHeader{Class: temporaladk.Memory, MaxRetryAfter: time.Minute}
	for range 2 {
		got, ok, err := i.decodeHeader(fields(h))
		require.NoError(t, err)
		require.True(t, ok)
		assert.Equal(t, h, got)
	}
	assert.Len(t, i.decoded, 1, "kept once")

	keyed := h
	keyed.IdempotencyKey = "k"
	got, ok, err := i.decodeHeader(fields(keyed))
	require.NoError(t, err)
	require.True(t, ok)
	assert.Equal(t, keyed, got)
	assert.Len(t, i.decoded, 1, "a header with a key is one of many: not kept")

	bad := fields(h)
	bad[wire.HeaderKey].Data = []byte(`{"class":"FAST"}`)
	for range 2 {
		_, _, err = i.decodeHeader(bad)
		require.ErrorContains(t, err, `unknown activity class "FAST"`, "never kept: refused every time")
	}

	_, ok, err = i.decodeHeader(map[string]*commonpb.Payload{})
	require.NoError(t, err)
	assert.False(t, ok, "no header")

	for n := range maxKeptHeaders + 10 {
		other := h
		other.MaxRetryAfter = time.Duration(n+1) * time.Second
		got, _, err := i.decodeHeader(fields(other))
		require.NoError(t, err)
		require.Equal(t, other, got, "decoded right whether kept or not")
	}
	assert.Len(t, i.decoded, maxKeptHeaders, "bounded")
}

// BenchmarkDecodeHeader is the activity side's reading of a plan's header:
// decoded every time, and kept.
func BenchmarkDecodeHeader(b *testing.B) {
	i, err := newInterceptor(Options{}, seam.Seams{})
	require.NoError(b, err)
	p, err := wire.Converter.ToPayload(wire.CallHeader{Class: temporaladk.Memory, MaxRetryAfter: time.Minute})
	require.NoError(b, err)
	fields := map[string]*commonpb.Payload{wire.HeaderKey: p}
	b.Run("decoded", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, _, err := wire.DecodeCallHeader(fields); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("kept", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, _, err := i.decodeHeader(fields); err != nil {
				b.Fatal(err)
			}
		}
	})
}
