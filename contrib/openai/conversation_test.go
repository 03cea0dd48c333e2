package openai_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/workflow"

	"github.com/temporaladk/adk-go/contrib/openai"
	"github.com/temporaladk/adk-go/providers/providertest"
	"github.com/temporaladk/adk-go/temporaladk"
	"github.com/temporaladk/adk-go/testsuite"
)

// TestChatReadsTheConversationByReference holds Request.Conversation: the
// workflow's request carries the conversation's head, the activity sends
// the provider the whole conversation and then Messages, and an activity
// worker without the store fails naming it, sending nothing.
func TestChatReadsTheConversationByReference(t *testing.T) {
	t.Parallel()
	p := newProvider(t, func(w http.ResponseWriter, r *http.Request, _ int64) { streamOf(w, 1, "ok", "stop", nil) })
	m := newModel(t, p.URL(), 0)
	results := strings.Repeat("search results ", 2000)
	stored, plain, encoded := providertest.ByReference(t, func(ctx workflow.Context, req *openai.Request) error {
		conv, err := providertest.Conversation(ctx, openai.Message{Role: "system", Content: "be brief"}, openai.Message{Role: "user", Content: results})
		req.Conversation, req.Messages = conv, []openai.Message{{Role: "user", Content: "and now?"}}
		return err
	})
	assert.Less(t, encoded, 400, "the request carries the conversation's head, not its 30 KB")

	ctx := testsuite.ActivityContext(context.Background(), temporaladk.ActivityCall{Class: temporaladk.Model})
	_, err := m.Chat(ctx, stored)
	require.NoError(t, err)
	var sent struct {
		Messages []openai.Message `json:"messages"`
	}
	require.NoError(t, json.Unmarshal(p.LastBody(), &sent))
	assert.Equal(t, []openai.Message{{Role: "system", Content: "be brief"}, {Role: "user", Content: results}, {Role: "user", Content: "and now?"}}, sent.Messages)

	_, err = m.Chat(ctx, plain)
	assert.ErrorContains(t, err, `payload store "temporaladk-payloads"`)
	assert.Equal(t, int64(1), p.Requests(), "a conversation the worker cannot read is never sent")
}
