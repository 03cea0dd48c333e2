package live_test

import (
	"crypto/sha256"
	"encoding/base64"
	"html"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/temporaladk/adk-go/live"
)

// TestNewPageRefusesBadOptions: each bad option is an error naming its
// field; none is replaced by a default.
func TestNewPageRefusesBadOptions(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		opts live.PageOptions
		want string
	}{
		{"no events", live.PageOptions{}, "PageOptions.Events is empty"},
		{"blank events", live.PageOptions{Events: "  "}, "PageOptions.Events is empty"},
		{"events not a URL", live.PageOptions{Events: "/live\x7f"}, "PageOptions.Events"},
		{"events of another scheme", live.PageOptions{Events: "javascript:alert(1)"}, `PageOptions.Events "javascript:alert(1)" has scheme "javascript"`},
		{"events without a host", live.PageOptions{Events: "https:///live"}, "PageOptions.Events \"https:///live\" names no host"},
		{"events scheme-relative", live.PageOptions{Events: "//other.example/live"}, "PageOptions.Events \"//other.example/live\" is scheme-relative"},
		{"events naming a stream", live.PageOptions{Events: "/live?stream=x"}, "has a query parameter stream"},
		{"events with a fragment", live.PageOptions{Events: "/live#top"}, "has a fragment"},
		{"inbox not a URL", live.PageOptions{Events: "/live", Inbox: "/approvals/\x7f"}, "PageOptions.Inbox"},
		{"inbox of another scheme", live.PageOptions{Events: "/live", Inbox: "javascript:alert(1)"}, `PageOptions.Inbox "javascript:alert(1)" has scheme "javascript"`},
		{"inbox scheme-relative", live.PageOptions{Events: "/live", Inbox: "//other.example/approvals/"}, "PageOptions.Inbox \"//other.example/approvals/\" is scheme-relative"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			h, err := live.NewPage(tt.opts)
			require.Error(t, err)
			assert.Nil(t, h)
			assert.Contains(t, err.Error(), tt.want)
			assert.True(t, strings.HasPrefix(err.Error(), "live: NewPage: "), err.Error())
		})
	}
}

var (
	inlineScript = regexp.MustCompile(`(?s)<script>(.*?)</script>`)
	dataEvents   = regexp.MustCompile(`data-events="([^"]*)"`)
	dataInbox    = regexp.MustCompile(`data-inbox="([^"]*)"`)
)

// getPage returns the response of h to a GET of target, and its body.
func getPage(t *testing.T, h http.Handler, method, target string) (*http.Response, string) {
	t.Helper()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(method, target, nil))
	resp := rec.Result()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp, string(b)
}

// TestPageServesTheStreamsPage: the page names the stream's URL with the
// stream it shows, escaped; its one inline script is the only one its
// Content-Security-Policy lets run, and it connects only where the stream
// is.
func TestPageServesTheStreamsPage(t *testing.T) {
	t.Parallel()
	h, err := live.NewPage(live.PageOptions{Events: "/live?tenant=a b", Inbox: "/approvals/"})
	require.NoError(t, err)
	resp, body := getPage(t, h, http.MethodGet, `/watch?stream=agent-"1"%26x`)
	require.Equal(t, http.StatusOK, resp.StatusCode, body)
	assert.Equal(t, "text/html; charset=utf-8", resp.Header.Get("Content-Type"))
	assert.Contains(t, body, "<title>Live</title>", "DefaultPageTitle")
	assert.Contains(t, body, `<code id="stream">agent-&#34;1&#34;&amp;x</code>`)

	m := dataEvents.FindStringSubmatch(body)
	require.NotNil(t, m, body)
	assert.Equal(t, "/live?stream=agent-%221%22%26x&tenant=a+b", html.UnescapeString(m[1]))
	m = dataInbox.FindStringSubmatch(body)
	require.NotNil(t, m, body)
	assert.Equal(t, "/approvals/", html.UnescapeString(m[1]))

	scripts := inlineScript.FindAllStringSubmatch(body, -1)
	require.Len(t, scripts, 1)
	sum := sha256.Sum256([]byte(scripts[0][1]))
	csp := resp.Header.Get("Content-Security-Policy")
	assert.Contains(t, csp, "script-src 'sha256-"+base64.StdEncoding.EncodeToString(sum[:])+"';", "the script as served is the one the policy allows")
	assert.Contains(t, csp, "default-src 'none'")
	assert.Contains(t, csp, "connect-src 'self';")
	assert.Contains(t, scripts[0][1], "new EventSource(url.href)")
	assert.Contains(t, scripts[0][1], `url.searchParams.set("`+live.LastEventIDParam+`", after)`, "the next message resumes in the query")
	assert.NotContains(t, scripts[0][1], "innerHTML", "text goes through textContent, never HTML")
}

// TestPageRequests: a page of no stream is 400, a POST 405; the title
// and an absolute stream URL are the options'.
func TestPageRequests(t *testing.T) {
	t.Parallel()
	h, err := live.NewPage(live.PageOptions{Events: "https://events.example:8443/live", Title: "Agent <1>",
		Stream: func(r *http.Request) string { return strings.TrimPrefix(r.URL.Path, "/watch/") }})
	require.NoError(t, err)
	resp, body := getPage(t, h, http.MethodGet, "/watch/")
	assert.Equal(t, http.StatusBadRequest, resp.StatusCode)
	assert.Contains(t, body, "names no stream")
	resp, _ = getPage(t, h, http.MethodPost, "/watch/agent-1")
	assert.Equal(t, http.StatusMethodNotAllowed, resp.StatusCode)
	assert.Equal(t, "GET, HEAD", resp.Header.Get("Allow"))

	resp, body = getPage(t, h, http.MethodGet, "/watch/agent-1")
	require.Equal(t, http.StatusOK, resp.StatusCode)
	assert.Contains(t, body, "<title>Agent &lt;1&gt;</title>")
	assert.Contains(t, body, `data-events="https://events.example:8443/live?stream=agent-1"`)
	assert.Contains(t, body, `data-inbox=""`, "no inbox: a waiting approval shows without a link")
	assert.Contains(t, resp.Header.Get("Content-Security-Policy"), "connect-src 'self' https://events.example:8443;")
}
