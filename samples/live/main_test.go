package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/activity"
	sdktestsuite "go.temporal.io/sdk/testsuite"

	"github.com/temporaladk/adk-go/testsuite"
)

func TestMain(m *testing.M) {
	os.Exit(testsuite.RunWithDevServer(m, testsuite.DevServerOptions{}))
}

// message is what one response of the stream said: the text of its parts
// not superseded, the id of its last part, and the part types.
type message struct {
	text  string
	last  string
	types []string
}

// readMessage reads one response of the stream, to its [DONE].
func readMessage(t *testing.T, ctx context.Context, url, lastEventID string) message {
	t.Helper()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	require.NoError(t, err)
	if lastEventID != "" {
		req.Header.Set("Last-Event-ID", lastEventID)
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)
	var (
		m     message
		parts = map[string]*strings.Builder{}
		order []string
		dead  = map[string]bool{}
	)
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		line := sc.Text()
		if id, ok := strings.CutPrefix(line, "id: "); ok {
			m.last = id
		}
		data, ok := strings.CutPrefix(line, "data: ")
		if !ok {
			continue
		}
		if data == "[DONE]" {
			for _, id := range order {
				if !dead[id] {
					m.text += parts[id].String()
				}
			}
			return m
		}
		var p struct {
			Type, ID, Delta  string
			ProviderMetadata struct {
				Temporaladk struct{ Superseded bool }
			}
		}
		require.NoError(t, json.Unmarshal([]byte(data), &p))
		m.types = append(m.types, p.Type)
		switch p.Type {
		case "text-start":
			parts[p.ID] = &strings.Builder{}
			order = append(order, p.ID)
		case "text-delta":
			parts[p.ID].WriteString(p.Delta)
		case "text-end":
			dead[p.ID] = p.ProviderMetadata.Temporaladk.Superseded
		}
	}
	t.Fatalf("the stream ended without [DONE]: %v", sc.Err())
	return m
}

// TestIntegrationServe runs the sample against the test binary's dev
// server with no pace: it prints the page's URL; the page is served; a
// stream other than its workflow's is refused; opening its stream starts
// the agent, whose two replies stream, the first after an attempt that
// died, and end on what history recorded. It stops when its context ends.
func TestIntegrationServe(t *testing.T) {
	srv := testsuite.DevServerFor(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	serveCtx, stop := context.WithCancel(ctx)
	defer stop()
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- serve(serveCtx, config{address: srv.Address(), namespace: srv.Namespace(), listen: "127.0.0.1:0"}, pw)
		pw.Close()
	}()
	lines := bufio.NewScanner(pr)
	var pageURL, id string
	printed := regexp.MustCompile(`^live page on (http://\S+/\?stream=(\S+)) `)
	for pageURL == "" && lines.Scan() {
		if m := printed.FindStringSubmatch(lines.Text()); m != nil {
			pageURL, id = m[1], m[2]
		}
	}
	require.NotEmpty(t, pageURL, "the sample printed the page's URL")
	var out bytes.Buffer
	copied := make(chan struct{})
	// reported is closed once the sample printed that the agent is done:
	// it prints it when its own wait on the run returns, which can come
	// after the history the test reads says the run completed.
	reported := make(chan struct{})
	go func() {
		defer close(copied)
		said := false
		for lines.Scan() {
			out.WriteString(lines.Text() + "\n")
			if !said && strings.Contains(lines.Text(), " done; history recorded ") {
				said = true
				close(reported)
			}
		}
	}()
	base := strings.TrimSuffix(pageURL, "/?stream="+id)

	resp, err := http.Get(pageURL)
	require.NoError(t, err)
	page, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, resp.StatusCode)
	assert.Contains(t, string(page), `data-events="/live?stream=`+id+`"`)

	resp, err = http.Get(base + "/live?stream=someone-else")
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusForbidden, resp.StatusCode, "the sample lets watch only its workflow")

	events := base + "/live?stream=" + id
	first := readMessage(t, ctx, events, "")
	second := readMessage(t, ctx, events, first.last)
	assert.Contains(t, first.types, "data-temporaladk-reset", "the first attempt died mid-stream")
	assert.Contains(t, first.types, "tool-output-available", "the lookup")
	assert.Contains(t, first.types, "data-temporaladk-budget")

	h, err := testsuite.WorkflowHistory(ctx, srv.Client(), id, "")
	require.NoError(t, err)
	var replies []string
	for _, e := range h.GetEvents() {
		if a := e.GetWorkflowExecutionCompletedEventAttributes(); a != nil {
			require.NoError(t, json.Unmarshal(a.GetResult().GetPayloads()[0].GetData(), &replies))
		}
	}
	require.Len(t, replies, len(Questions), "the run completed with a reply per question")
	assert.Equal(t, replies, []string{first.text, second.text}, "each message ends on the reply history recorded, byte for byte")

	select {
	case <-reported:
	case <-ctx.Done():
		t.Fatal("the sample did not print that the agent is done")
	}
	stop()
	require.NoError(t, <-done)
	<-copied
	assert.Contains(t, out.String(), "agent "+id+" done; history recorded 2 replies")
}

func TestUnitBadFlagsAreClearErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"now"}, `unexpected argument "now"`},
		{[]string{"-pace", "-1s"}, "-pace is -1s: it must not be negative"},
		{[]string{"-pace", "soon"}, `invalid value "soon" for flag -pace`},
		{[]string{"-namespace", ""}, "-namespace is empty"},
	}
	for _, tt := range tests {
		var stdout, stderr bytes.Buffer
		assert.Equal(t, 2, run(tt.args, &stdout, &stderr), tt.args)
		assert.Contains(t, stderr.String(), tt.want, tt.args)
		assert.Empty(t, stdout.String())
	}
}

// TestUnitAgentInTheKitTestEnvironment runs Agent in the SDK's test
// environment with the sample's kit: the first reply's first attempt
// loses its stream and is retried, and each reply is the model's.
func TestUnitAgentInTheKitTestEnvironment(t *testing.T) {
	t.Parallel()
	var suite sdktestsuite.WorkflowTestSuite
	env, err := testsuite.NewKitTestEnvironment(&suite, KitOptions(nil))
	require.NoError(t, err)
	env.RegisterWorkflow(Agent)
	env.RegisterActivity(Lookup)
	env.RegisterActivityWithOptions(Model{}.Chat, activity.RegisterOptions{Name: "Chat"})
	env.ExecuteWorkflow(Agent, Questions)
	require.NoError(t, env.GetWorkflowError())
	var replies []string
	require.NoError(t, env.GetWorkflowResult(&replies))
	assert.Equal(t, []string{Reply(Prompt{Turn: 1, Question: Questions[0], Docs: 8}), Reply(Prompt{Turn: 2, Question: Questions[1], Docs: 5})}, replies)
}
