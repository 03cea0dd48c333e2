package anthropic_test

import (
	"encoding/json"
	"net/http"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/worker"

	"github.com/temporaladk/adk-go/contrib/anthropic"
	"github.com/temporaladk/adk-go/providers/providertest"
	"github.com/temporaladk/adk-go/testsuite"
)

func TestMain(m *testing.M) {
	os.Exit(testsuite.RunWithDevServer(m, testsuite.DevServerOptions{}))
}

var harness = providertest.Harness{
	ActivityName: anthropic.ActivityName,
	Path:         "/v1/messages",
	Request:      hello,
	Declare:      anthropic.Declare,
	Register: func(t testing.TB, r worker.ActivityRegistry, baseURL string) {
		m, err := anthropic.New(anthropic.Options{APIKey: "sk-ant-test", BaseURL: baseURL, Model: "claude-sonnet-4-5", MaxTokens: 256})
		require.NoError(t, err)
		m.Register(r)
	},
}

func TestIntegrationTenThousandChunksBeatCountsOnly(t *testing.T) {
	t.Parallel()
	raw := harness.CheckHeartbeats(t, func(w http.ResponseWriter, n int, word string, pace func(int)) {
		streamOf(w, n, word, "end_turn", pace)
	})
	var res anthropic.Result
	require.NoError(t, json.Unmarshal(raw, &res))
	assert.Equal(t, int64(providertest.StreamChunks+5), res.Chunks, "start, block start, deltas, block stop, delta, stop (the SDK drops pings)")
	assert.Equal(t, int64(providertest.StreamChunks), res.Usage.OutputTokens)
}

func TestIntegrationOneRequestPerAttempt(t *testing.T) {
	t.Parallel()
	// 500, then a 429 asking for 100ms, then the message.
	raw := harness.CheckOneRequestPerAttempt(t, func(w http.ResponseWriter, r *http.Request, n int64) {
		switch n {
		case 1:
			apiError(w, 500, "api_error", "Internal server error", nil)
		case 2:
			apiError(w, 429, "rate_limit_error", "Rate limited", map[string]string{"retry-after-ms": "100"})
		default:
			streamOf(w, 3, "ok", "end_turn", nil)
		}
	})
	var res anthropic.Result
	require.NoError(t, json.Unmarshal(raw, &res))
	assert.Equal(t, "okokok", res.Text)
}
