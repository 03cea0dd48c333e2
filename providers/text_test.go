package providers_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/temporaladk/adk-go/providers"
)

// TestReportText: the reporter the context carries gets each delta in
// order; without one nothing happens and nothing fails; a bad kind is the
// only error.
func TestReportText(t *testing.T) {
	t.Parallel()
	ok, err := providers.ReportText(context.Background(), providers.Text, "hi")
	assert.False(t, ok)
	assert.NoError(t, err, "outside the kit, nothing to report to and no error")

	var got []string
	ctx, err := providers.WithTextReporter(context.Background(), func(k providers.TextKind, text string) {
		got = append(got, string(k)+":"+text)
	})
	require.NoError(t, err)
	for _, d := range []struct {
		k    providers.TextKind
		text string
	}{{providers.Reasoning, "think"}, {providers.Text, "Hel"}, {providers.Text, ""}, {providers.Text, "lo"}} {
		_, err := providers.ReportText(ctx, d.k, d.text)
		require.NoError(t, err)
	}
	assert.Equal(t, []string{"reasoning:think", "text:Hel", "text:lo"}, got)

	_, err = providers.ReportText(ctx, "audio", "x")
	assert.ErrorContains(t, err, `text kind "audio" is neither "text" nor "reasoning"`)
	_, err = providers.WithTextReporter(context.Background(), nil)
	assert.ErrorContains(t, err, "report is nil")
	//nolint:staticcheck // a nil context is the bad input under test
	_, err = providers.WithTextReporter(nil, func(providers.TextKind, string) {})
	assert.ErrorContains(t, err, "ctx is nil")
}
