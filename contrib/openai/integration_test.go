package openai_test

import (
	"encoding/json"
	"net/http"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/worker"

	"github.com/temporaladk/adk-go/contrib/openai"
	"github.com/temporaladk/adk-go/providers/providertest"
	"github.com/temporaladk/adk-go/testsuite"
)

func TestMain(m *testing.M) {
	os.Exit(testsuite.RunWithDevServer(m, testsuite.DevServerOptions{}))
}

var harness = providertest.Harness{
	ActivityName: openai.ActivityName,
	Path:         "/chat/completions",
	Request:      hello,
	Declare:      openai.Declare,
	Register: func(t testing.TB, r worker.ActivityRegistry, baseURL string) {
		m, err := openai.New(openai.Options{APIKey: "sk-test", BaseURL: baseURL, Model: "gpt-4o-mini"})
		require.NoError(t, err)
		m.Register(r)
	},
}

func TestIntegrationTenThousandChunksBeatCountsOnly(t *testing.T) {
	t.Parallel()
	raw := harness.CheckHeartbeats(t, func(w http.ResponseWriter, n int, word string, pace func(int)) {
		streamOf(w, n, word, "stop", pace)
	})
	var res openai.Result
	require.NoError(t, json.Unmarshal(raw, &res))
	assert.Equal(t, int64(providertest.StreamChunks+3), res.Chunks, "role, contents, finish, usage")
	assert.Equal(t, int64(providertest.StreamChunks), res.Usage.OutputTokens)
}

func TestIntegrationOneRequestPerAttempt(t *testing.T) {
	t.Parallel()
	// 503, then a 429 asking for 100ms, then the completion.
	raw := harness.CheckOneRequestPerAttempt(t, func(w http.ResponseWriter, r *http.Request, n int64) {
		switch n {
		case 1:
			apiError(w, 503, "server_error", "", "The server is overloaded", nil)
		case 2:
			apiError(w, 429, "requests", "rate_limit_exceeded", "Rate limit reached", map[string]string{"retry-after-ms": "100"})
		default:
			streamOf(w, 3, "ok", "stop", nil)
		}
	})
	var res openai.Result
	require.NoError(t, json.Unmarshal(raw, &res))
	assert.Equal(t, "okokok", res.Text)
}
