package providers_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/temporaladk/adk-go/providers"
)

func TestReportUsageCallsTheRecorder(t *testing.T) {
	t.Parallel()
	var got []providers.Usage
	ctx, err := providers.WithUsageRecorder(context.Background(), func(u providers.Usage) { got = append(got, u) })
	require.NoError(t, err)

	first := providers.Usage{InputTokens: 1200, OutputTokens: 80, CachedInputTokens: 1024}
	reported, err := providers.ReportUsage(ctx, first)
	require.NoError(t, err)
	assert.True(t, reported)
	reported, err = providers.ReportUsage(ctx, providers.Usage{InputTokens: 5})
	require.NoError(t, err)
	assert.True(t, reported)
	assert.Equal(t, []providers.Usage{first, {InputTokens: 5}}, got, "every report reaches the recorder, as given")

	var inner []providers.Usage
	innerCtx, err := providers.WithUsageRecorder(ctx, func(u providers.Usage) { inner = append(inner, u) })
	require.NoError(t, err)
	_, err = providers.ReportUsage(innerCtx, first)
	require.NoError(t, err)
	assert.Len(t, inner, 1, "the innermost recorder is called")
	assert.Len(t, got, 2, "and only it")
}

func TestReportUsageWithoutARecorder(t *testing.T) {
	t.Parallel()
	reported, err := providers.ReportUsage(context.Background(), providers.Usage{InputTokens: 3, OutputTokens: 4})
	require.NoError(t, err)
	assert.False(t, reported, "outside the kit nothing records")
	//nolint:staticcheck // a nil context is the case under test
	reported, err = providers.ReportUsage(nil, providers.Usage{})
	require.NoError(t, err)
	assert.False(t, reported)
}

func TestReportUsageRefusesBadUsage(t *testing.T) {
	t.Parallel()
	called := false
	ctx, err := providers.WithUsageRecorder(context.Background(), func(providers.Usage) { called = true })
	require.NoError(t, err)
	for _, tt := range []struct {
		u    providers.Usage
		says string
	}{
		{providers.Usage{InputTokens: -1}, "Usage.InputTokens is -1"},
		{providers.Usage{OutputTokens: -2}, "Usage.OutputTokens is -2"},
		{providers.Usage{InputTokens: 1, CachedInputTokens: -3}, "Usage.CachedInputTokens is -3"},
		{providers.Usage{InputTokens: 10, CachedInputTokens: 11}, "more than InputTokens (10)"},
	} {
		reported, err := providers.ReportUsage(ctx, tt.u)
		assert.ErrorContains(t, err, tt.says)
		assert.False(t, reported)
		assert.ErrorContains(t, tt.u.Check(), tt.says)
	}
	assert.False(t, called, "bad usage never reaches the recorder")
}

func TestWithUsageRecorderRefusesBadInput(t *testing.T) {
	t.Parallel()
	_, err := providers.WithUsageRecorder(context.Background(), nil)
	assert.ErrorContains(t, err, "record is nil")
	//nolint:staticcheck // a nil context is the bad input under test
	_, err = providers.WithUsageRecorder(nil, func(providers.Usage) {})
	assert.ErrorContains(t, err, "ctx is nil")
}

func TestUsageZeroAndJSON(t *testing.T) {
	t.Parallel()
	assert.True(t, providers.Usage{}.IsZero())
	assert.False(t, providers.Usage{OutputTokens: 1}.IsZero())
	b, err := json.Marshal(providers.Usage{InputTokens: 9, OutputTokens: 5})
	require.NoError(t, err)
	assert.JSONEq(t, `{"input_tokens":9,"output_tokens":5}`, string(b), "the field names of the contrib modules' results")
	b, err = json.Marshal(providers.Usage{InputTokens: 9, OutputTokens: 5, CachedInputTokens: 4})
	require.NoError(t, err)
	assert.JSONEq(t, `{"input_tokens":9,"output_tokens":5,"cached_input_tokens":4}`, string(b))
}
