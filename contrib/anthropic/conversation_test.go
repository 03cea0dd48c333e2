package anthropic_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/workflow"

	"github.com/temporaladk/adk-go/contrib/anthropic"
	"github.com/temporaladk/adk-go/providers/providertest"
	"github.com/temporaladk/adk-go/temporaladk"
	"github.com/temporaladk/adk-go/testsuite"
)

// TestMessageReadsTheConversationByReference holds Request.Conversation:
// the workflow's request carries the conversation's head, the activity
// sends the provider the conversation (its system prompt as the request's)
// before Messages, and an activity worker without the store fails naming
// it, sending nothing.
func TestMessageReadsTheConversationByReference(t *testing.T) {
	t.Parallel()
	p := newProvider(t, func(w http.ResponseWriter, r *http.Request, _ int64) { streamOf(w, 1, "ok", "end_turn", nil) })
	m := newModel(t, p.URL(), 0)
	results := strings.Repeat("search results ", 2000)
	stored, plain, encoded := providertest.ByReference(t, func(ctx workflow.Context, req *anthropic.Request) error {
		conv, err := providertest.Conversation(ctx, anthropic.Message{Role: "system", Content: "be brief"}, anthropic.Message{Role: "user", Content: results})
		req.Conversation, req.Messages = conv, []anthropic.Message{{Role: "assistant", Content: "noted"}, {Role: "user", Content: "and now?"}}
		return err
	})
	assert.Less(t, encoded, 400, "the request carries the conversation's head, not its 30 KB")

	ctx := testsuite.ActivityContext(context.Background(), temporaladk.ActivityCall{Class: temporaladk.Model})
	_, err := m.Message(ctx, stored)
	require.NoError(t, err)
	body := string(p.LastBody())
	assert.Contains(t, body, "be brief", "the conversation's system prompt is the request's")
	prompt, reply, next := strings.Index(body, results), strings.Index(body, "noted"), strings.Index(body, "and now?")
	assert.True(t, prompt >= 0 && prompt < reply && reply < next, "the conversation, then Messages, in order")

	_, err = m.Message(ctx, plain)
	assert.ErrorContains(t, err, `payload store "temporaladk-payloads"`)
	assert.Equal(t, int64(1), p.Requests(), "a conversation the worker cannot read is never sent")
}
