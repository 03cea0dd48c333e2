package interceptors

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	commonpb "go.temporal.io/api/common/v1"

	"github.com/temporaladk/adk-go/internal/budget"
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

func TestChainHeaderRoundTrips(t *testing.T) {
	want := budget.Carried{
		Attempts: map[string]budget.AttemptState{"turns": {Limit: 30, Spent: 7}},
		Retries:  map[string]budget.RetryState{"fanout": {Limit: 5, Spent: 2, Firsts: 9}},
		Tokens:   map[string]budget.MeterState{"agent": {Limit: 2000, Spent: 600}},
		Costs:    map[string]budget.MeterState{"agent": {Limit: 5_000_000, Spent: 1125}},
		Owner:    &budget.Owner{WorkflowID: "wf", RunID: "run", Delegation: "child-1", Tokens: true, Cost: true, MaxTokens: 700, Model: "m1"},
	}
	fields := map[string]*commonpb.Payload{}
	require.NoError(t, writeChainHeader(fields, want))
	require.Contains(t, fields, wire.ChainHeaderKey)
	got, err := readChainHeader(fields)
	require.NoError(t, err)
	assert.Equal(t, want, got)
}

// The owner a header of an earlier build wrote, without the cap and the
// model a child now inherits, reads as an owner without them.
func TestChainHeaderOfAnEarlierBuild(t *testing.T) {
	got, err := readChainHeader(map[string]*commonpb.Payload{wire.ChainHeaderKey: jsonPayload(`{"owner":{"workflow_id":"wf","run_id":"r","delegation":"child-1","tokens":true}}`)})
	require.NoError(t, err)
	assert.Equal(t, budget.Carried{Owner: &budget.Owner{WorkflowID: "wf", RunID: "r", Delegation: "child-1", Tokens: true}}, got)
}

func TestChainHeaderAbsentIsNothingCarried(t *testing.T) {
	for name, fields := range map[string]map[string]*commonpb.Payload{
		"nil fields":    nil,
		"no such field": {"other": {Data: []byte(`{}`)}},
		"nil payload":   {wire.ChainHeaderKey: nil},
	} {
		t.Run(name, func(t *testing.T) {
			got, err := readChainHeader(fields)
			require.NoError(t, err)
			assert.Equal(t, budget.Carried{}, got)
		})
	}
}

func TestWriteChainHeaderRefusesNoHeader(t *testing.T) {
	err := writeChainHeader(nil, budget.Carried{Attempts: map[string]budget.AttemptState{"turns": {Limit: 1}}})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "no header")
}

// jsonPayload is a payload as the SDK's default converter writes JSON.
func jsonPayload(data string) *commonpb.Payload {
	return &commonpb.Payload{Metadata: map[string][]byte{"encoding": []byte("json/plain")}, Data: []byte(data)}
}

func TestBadChainHeaderIsAnErrorNamingIt(t *testing.T) {
	tests := []struct {
		name string
		p    *commonpb.Payload
		want string
	}{
		{"garbage bytes", jsonPayload(`{not json`), "does not decode"},
		{"unknown encoding", &commonpb.Payload{Metadata: map[string][]byte{"encoding": []byte("binary/gibberish")}, Data: []byte("x")}, "does not decode"},
		{"runs of the wrong type", jsonPayload(`{"runs":[1,2]}`), "does not decode"},
		{"negative spent", jsonPayload(`{"runs":{"turns":{"limit":5,"spent":-1}}}`), `attempt budget "turns": limit 5, spent -1`},
		{"zero limit", jsonPayload(`{"runs":{"turns":{"limit":0,"spent":0}}}`), `attempt budget "turns": limit 0`},
		{"negative limit", jsonPayload(`{"runs":{"turns":{"limit":-3,"spent":0}}}`), `attempt budget "turns": limit -3`},
		{"run budget without a name", jsonPayload(`{"runs":{"":{"limit":2,"spent":0}}}`), `attempt budget ""`},
		{"negative pool size", jsonPayload(`{"pools":{"p":{"size":-1,"used":0,"firsts":0}}}`), `retry budget "p": limit -1`},
		{"negative pool used", jsonPayload(`{"pools":{"p":{"size":1,"used":-2,"firsts":0}}}`), `retry budget "p": limit 1, spent -2`},
		{"negative first attempts", jsonPayload(`{"pools":{"p":{"size":1,"used":0,"firsts":-4}}}`), "first attempts -4"},
		{"owner without a run ID", jsonPayload(`{"owner":{"workflow_id":"wf","delegation":"child-1"}}`), "owner"},
		{"owner without a delegation", jsonPayload(`{"owner":{"workflow_id":"wf","run_id":"r"}}`), "owner"},
		{"owner with a negative cap", jsonPayload(`{"owner":{"workflow_id":"wf","run_id":"r","delegation":"child-1","max_tokens":-1}}`), "a cap must not be negative"},
		{"negative token spending", jsonPayload(`{"tokens":{"t":{"limit":5,"spent":-1}}}`), `token budget "t": limit 5, spent -1`},
		{"a cost budget without a ceiling", jsonPayload(`{"costs":{"c":{"limit":0,"spent":0}}}`), `cost budget "c": limit 0`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := readChainHeader(map[string]*commonpb.Payload{wire.ChainHeaderKey: tt.p})
			require.Error(t, err)
			assert.Contains(t, err.Error(), wire.ChainHeaderKey, "the error names the header")
			assert.Contains(t, err.Error(), tt.want)
			assert.Equal(t, budget.Carried{}, got, "nothing half-read")
		})
	}
}
