package chat_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/temporaladk/adk-go/samples/internal/chat"
	"github.com/temporaladk/adk-go/samples/internal/standin"
	"github.com/temporaladk/adk-go/temporaladk"
)

func TestCompleteClassifiesEveryFault(t *testing.T) {
	t.Parallel()
	model, err := standin.Start(standin.Options{TokenDelay: time.Millisecond})
	require.NoError(t, err)
	t.Cleanup(func() { model.Close() })
	c := chat.Client{BaseURL: model.URL()}
	msgs := []chat.Message{{Role: "user", Content: "hello there"}}

	tests := []struct {
		fault string
		check func(t *testing.T, err error)
	}{
		{"503", func(t *testing.T, err error) {
			var pe *temporaladk.ProviderError
			require.ErrorAs(t, err, &pe)
			assert.Equal(t, 503, pe.StatusCode)
			assert.True(t, pe.Retryable())
		}},
		{"429=3s", func(t *testing.T, err error) {
			var rl *temporaladk.RateLimitError
			require.ErrorAs(t, err, &rl)
			assert.Equal(t, 3*time.Second, rl.RetryAfter)
			assert.True(t, rl.Retryable())
		}},
		{"drop", func(t *testing.T, err error) {
			var pu *temporaladk.ProviderUnavailableError
			require.ErrorAs(t, err, &pu, "a stream cut short: %v", err)
		}},
	}
	for _, tt := range tests {
		t.Run(tt.fault, func(t *testing.T) {
			t.Parallel()
			req := chat.Request{Messages: msgs, Call: t.Name(), Fault: tt.fault}
			_, err := c.Complete(context.Background(), req)
			tt.check(t, err)
			reply, err := c.Complete(context.Background(), req)
			require.NoError(t, err, "the fault hits the call's first request only")
			assert.Contains(t, reply.Text, "hello there")
			assert.Positive(t, reply.Tokens)
			assert.Equal(t, reply.Tokens, reply.Chunks)
		})
	}
}

func TestCompleteWaitsThroughAStall(t *testing.T) {
	t.Parallel()
	model, err := standin.Start(standin.Options{})
	require.NoError(t, err)
	t.Cleanup(func() { model.Close() })
	reply, err := chat.Client{BaseURL: model.URL()}.Complete(context.Background(),
		chat.Request{Messages: []chat.Message{{Role: "user", Content: "hi"}}, Call: "stall", Fault: "stall=300ms"})
	require.NoError(t, err)
	assert.GreaterOrEqual(t, reply.FirstToken, 300*time.Millisecond)
}

func TestCompleteUnreachableIsUnavailable(t *testing.T) {
	t.Parallel()
	model, err := standin.Start(standin.Options{})
	require.NoError(t, err)
	url := model.URL()
	require.NoError(t, model.Close())
	_, err = chat.Client{BaseURL: url}.Complete(context.Background(), chat.Request{Messages: []chat.Message{{Role: "user", Content: "hi"}}})
	var pu *temporaladk.ProviderUnavailableError
	assert.ErrorAs(t, err, &pu)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err = chat.Client{BaseURL: url}.Complete(ctx, chat.Request{})
	assert.True(t, errors.Is(err, context.Canceled), "a cancellation is not the provider's fault: %v", err)
}
