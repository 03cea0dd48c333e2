package live_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/temporaladk/adk-go/live"
	"github.com/temporaladk/adk-go/testsuite"
)

// NodeDirEnv names a directory where `npm ci` already ran over
// testdata/aisdk's package.json and package-lock.json (.ci/run prepares it
// in the background); without it the test runs `npm ci` in a directory of
// its own.
const NodeDirEnv = "TEMPORALADK_LIVE_NODE_DIR"

// aisdk returns node and a directory holding testdata/aisdk's script with
// the pinned `ai` package installed.
func aisdk(t *testing.T, ctx context.Context) (node, dir string) {
	t.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		t.Fatalf("live: the AI SDK check runs the real `ai` package in Node.js: node (18 or later) is not on PATH: %v", err)
	}
	lock, err := os.ReadFile(filepath.Join("testdata", "aisdk", "package-lock.json"))
	require.NoError(t, err)
	if dir = os.Getenv(NodeDirEnv); dir != "" {
		have, err := os.ReadFile(filepath.Join(dir, "package-lock.json"))
		require.NoError(t, err, "%s=%s holds no package-lock.json", NodeDirEnv, dir)
		require.Equal(t, string(lock), string(have), "%s=%s was installed from another package-lock.json than testdata/aisdk's", NodeDirEnv, dir)
	} else {
		npm, err := exec.LookPath("npm")
		if err != nil {
			t.Fatalf("live: the AI SDK check installs the `ai` package with npm, which is not on PATH (or set %s): %v", NodeDirEnv, err)
		}
		dir = t.TempDir()
		for _, f := range []string{"package.json", "package-lock.json"} {
			b, err := os.ReadFile(filepath.Join("testdata", "aisdk", f))
			require.NoError(t, err)
			require.NoError(t, os.WriteFile(filepath.Join(dir, f), b, 0o644))
		}
		cmd := exec.CommandContext(ctx, npm, "ci", "--no-audit", "--no-fund")
		cmd.Dir = dir
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, "npm ci: %s", out)
	}
	script, err := os.ReadFile(filepath.Join("testdata", "aisdk", "read.mjs"))
	require.NoError(t, err)
	// The script beside node_modules, where its import of `ai` resolves.
	require.NoError(t, os.WriteFile(filepath.Join(dir, "read.mjs"), script, 0o644))
	return node, dir
}

// uiMessage is the AI SDK's UIMessage, as far as the test reads it.
type uiMessage struct {
	ID    string `json:"id"`
	Role  string `json:"role"`
	Parts []struct {
		Type             string          `json:"type"`
		Text             string          `json:"text"`
		State            string          `json:"state"`
		Data             json.RawMessage `json:"data"`
		ToolCallID       string          `json:"toolCallId"`
		Output           json.RawMessage `json:"output"`
		ProviderMetadata struct {
			Temporaladk struct {
				Superseded bool `json:"superseded"`
			} `json:"temporaladk"`
		} `json:"providerMetadata"`
	} `json:"parts"`
}

// TestIntegrationAISDKReadsTheStream: the AI SDK's own client (the `ai`
// package from the npm registry, pinned in testdata/aisdk) reads the
// handler's stream of a run whose first attempt died mid-stream: every
// part passes its schema, and the text parts not superseded are the
// result history recorded.
func TestIntegrationAISDKReadsTheStream(t *testing.T) {
	t.Parallel()
	testsuite.SkipShort(t)
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	node, dir := aisdk(t, ctx)
	hub, err := live.NewMemoryHub(live.MemoryOptions{})
	require.NoError(t, err)
	obs, err := live.NewObserver(hub, live.Options{})
	require.NoError(t, err)
	defer obs.Close()
	id := "live-" + t.Name()
	srv := newServer(t, hub)

	var stdout, stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, node, filepath.Join(dir, "read.mjs"), srv.URL+"?stream="+id, "test")
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	require.NoError(t, cmd.Start())
	_, h := runLive(t, ctx, id, obs, &standIn{})
	require.NoError(t, cmd.Wait(), "node: %s", stderr.String())

	var reply string
	require.NoError(t, json.Unmarshal(completedResult(t, h), &reply))
	var m uiMessage
	require.NoError(t, json.Unmarshal(stdout.Bytes(), &m), stdout.String())
	assert.Equal(t, "assistant", m.Role)
	var text strings.Builder
	var types, dead []string
	for _, p := range m.Parts {
		types = append(types, p.Type)
		switch {
		case p.Type == "text" && p.ProviderMetadata.Temporaladk.Superseded:
			dead = append(dead, p.Text)
		case p.Type == "text":
			text.WriteString(p.Text)
			assert.Equal(t, "done", p.State)
		case p.Type == "reasoning":
			assert.Equal(t, "the user said hi", p.Text)
		case p.Type == "tool-"+lookupType:
			assert.Equal(t, "output-available", p.State)
			assert.JSONEq(t, `{"hits":2}`, string(p.Output), "the tool's result as recorded")
		}
	}
	assert.Equal(t, reply, text.String(), "the message the AI SDK assembled ends on history's result, byte for byte")
	assert.Equal(t, []string{"Goodbye, "}, dead, "the dead attempt's text, superseded")
	assert.Contains(t, types, "data-temporaladk-reset", "a data part, typed")
	assert.Contains(t, types, "tool-"+lookupType, "the retrieval, a typed tool part")
	t.Logf("the AI SDK assembled %d parts: %v", len(m.Parts), types)
}

// TestIntegrationAISDKResumesMidStream: the AI SDK's client, cut off after
// a few events of a run's stream and reconnecting with the last event's id
// as Last-Event-ID, assembles the same message as a client that was never
// cut off, at every cut point: nothing lost, nothing repeated.
func TestIntegrationAISDKResumesMidStream(t *testing.T) {
	t.Parallel()
	testsuite.SkipShort(t)
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	node, dir := aisdk(t, ctx)
	hub, err := live.NewMemoryHub(live.MemoryOptions{})
	require.NoError(t, err)
	obs, err := live.NewObserver(hub, live.Options{})
	require.NoError(t, err)
	id := "live-" + t.Name()
	srv := newServer(t, hub)
	_, h := runLive(t, ctx, id, obs, &standIn{})
	require.NoError(t, obs.Close(), "every event published before the screens read")

	read := func(args ...string) []byte {
		var stdout, stderr bytes.Buffer
		cmd := exec.CommandContext(ctx, node, append([]string{filepath.Join(dir, "read.mjs"), srv.URL + "?stream=" + id, "test"}, args...)...)
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		require.NoError(t, cmd.Run(), "node %v: %s", args, stderr.String())
		return stdout.Bytes()
	}
	whole := read()
	var m uiMessage
	require.NoError(t, json.Unmarshal(whole, &m), string(whole))
	var reply string
	require.NoError(t, json.Unmarshal(completedResult(t, h), &reply))
	require.Contains(t, string(whole), reply, "the uninterrupted message holds history's reply")

	// The events of the message, counted as the SSE client reads them.
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, srv.URL+"?stream="+id, nil)
	require.NoError(t, err)
	req.Header.Set("Authorization", "test")
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	events, done := readSSE(t, resp, 0)
	resp.Body.Close()
	require.True(t, done)
	for _, cut := range []int{1, len(events) / 2, len(events) - 1} {
		assert.JSONEq(t, string(whole), string(read(strconv.Itoa(cut))), "cut after %d of %d events", cut, len(events))
	}
}
