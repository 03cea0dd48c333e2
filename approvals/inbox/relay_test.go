package inbox_test

import (
	"context"
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/client"

	"github.com/temporaladk/adk-go/approvals"
	"github.com/temporaladk/adk-go/approvals/inbox"
	"github.com/temporaladk/adk-go/testsuite"
)

// keyInTheBrowser is a Relay whose key the inbox never sees: the test
// plays the browser and signs with ana's ed25519 key itself, as a person's
// authenticator would.
type keyInTheBrowser struct{}

func (keyInTheBrowser) CanDecide(principal string) bool { return principal == "ana" }

func (keyInTheBrowser) Challenge(principal string, s approvals.Statement) (json.RawMessage, error) {
	return json.Marshal(map[string][]byte{"message": s.Bytes()})
}

func (keyInTheBrowser) Proof(principal string, s approvals.Statement, answer []byte) (string, []byte, error) {
	sig, err := base64.StdEncoding.DecodeString(string(answer))
	if err != nil {
		return "", nil, errors.New("the answer is not base64")
	}
	return principal + "-key", sig, nil
}

func (keyInTheBrowser) Script() string { return "window.temporaladkSign = async (c) => c.message;" }

// TestInboxRelays: an inbox built with a Relay and no signer shows the
// page with its script to people the relay knows; a decision's challenge
// covers the call's statement; the answer, signed outside the inbox, is
// relayed: one over another statement, or with an expiry the inbox did not
// give, is refused with nothing in history; the right one runs the tool
// once, and the audit names ana and her key.
func TestInboxRelays(t *testing.T) {
	f := start(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var listed []approvals.Pending
	require.Eventually(t, func() bool { listed = f.mine(t); return len(listed) == len(f.ids) }, time.Minute, 100*time.Millisecond)
	target := listed[0]

	h, err := inbox.New(inbox.Options{Client: f.c, Relay: keyInTheBrowser{},
		Identity: func(r *http.Request) (string, error) { return r.Header.Get("X-User"), nil }})
	require.NoError(t, err)
	web := httptest.NewServer(h)
	defer web.Close()
	g := &fixture{srv: web}
	own := http.Header{"Origin": {web.URL}, "Sec-Fetch-Site": {"same-origin"}}

	resp, page := g.do(t, http.MethodGet, "/", "ana", nil, nil)
	require.Equal(t, http.StatusOK, resp.StatusCode)
	require.Contains(t, page, `data-relay`)
	require.Contains(t, page, `<script src="relay.js"></script>`)
	require.Contains(t, resp.Header.Get("Content-Security-Policy"), "script-src 'self'")
	_, script := g.do(t, http.MethodGet, "/relay.js", "ana", nil, nil)
	require.Contains(t, script, "window.temporaladkSign = async (c) => c.message;")
	require.Contains(t, script, `form[data-relay]`)
	_, page = g.do(t, http.MethodGet, "/", "bo", nil, nil)
	require.Contains(t, page, "you have no key the inbox can ask for")

	form := url.Values{"workflow": {target.WorkflowID}, "run": {target.RunID}, "call": {target.Call}, "digest": {target.Digest}, "decision": {"approve"}}
	resp, body := g.do(t, http.MethodPost, "/challenge", "bo", form, own)
	require.Equal(t, http.StatusForbidden, resp.StatusCode)
	require.Contains(t, body, `"bo" has no key the inbox can ask for`)
	resp, body = g.do(t, http.MethodPost, "/challenge", "ana", form, http.Header{"Origin": {"https://evil.example"}})
	require.Equal(t, http.StatusForbidden, resp.StatusCode, body)

	resp, body = g.do(t, http.MethodPost, "/challenge", "ana", form, own)
	require.Equal(t, http.StatusOK, resp.StatusCode, body)
	var c struct {
		Expires   time.Time `json:"expires"`
		Challenge struct {
			Message []byte `json:"message"`
		} `json:"challenge"`
	}
	require.NoError(t, json.Unmarshal([]byte(body), &c))
	require.Equal(t, target.Statement(true, "ana", c.Expires).Bytes(), c.Challenge.Message, "the challenge covers the call's statement")
	require.WithinDuration(t, time.Now().Add(inbox.DefaultValidFor), c.Expires, time.Minute)

	seed := sha256.Sum256([]byte("inbox test key ana"))
	key := ed25519.NewKeyFromSeed(seed[:])
	answer := func(message []byte, expires time.Time) url.Values {
		a := url.Values{}
		for k, v := range form {
			a[k] = v
		}
		a.Set("expires", expires.Format(time.RFC3339Nano))
		a.Set("answer", base64.StdEncoding.EncodeToString(ed25519.Sign(key, message)))
		return a
	}
	refused := func(a url.Values, want string) {
		t.Helper()
		resp, _ := g.do(t, http.MethodPost, "/answer", "ana", a, own)
		require.Equal(t, http.StatusSeeOther, resp.StatusCode)
		loc, err := url.Parse(resp.Header.Get("Location"))
		require.NoError(t, err)
		require.Contains(t, loc.Query().Get("error"), want)
		require.Zero(t, events(t, ctx, f.c, target, enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_ACCEPTED), "a refused decision leaves nothing in history")
	}
	refused(answer(target.Statement(false, "ana", c.Expires).Bytes(), c.Expires), "does not verify")
	far := time.Now().Add(time.Hour)
	refused(answer(target.Statement(true, "ana", far).Bytes(), far), "is not within the inbox's")

	resp, _ = g.do(t, http.MethodPost, "/answer", "ana", answer(c.Challenge.Message, c.Expires), own)
	require.Equal(t, http.StatusSeeOther, resp.StatusCode)
	require.Contains(t, resp.Header.Get("Location"), "done=")
	require.NoError(t, f.c.GetWorkflow(ctx, target.WorkflowID, target.RunID).Get(ctx, nil))
	require.Equal(t, 1, events(t, ctx, f.c, target, enumspb.EVENT_TYPE_ACTIVITY_TASK_STARTED), "the tool ran once")
	audit, err := approvals.Audit(ctx, f.c, target.WorkflowID, approvals.AuditOptions{})
	require.NoError(t, err)
	require.Len(t, audit, 1)
	require.Equal(t, "ana", audit[0].Request.By)
	require.Equal(t, "ana-key", audit[0].Request.Key)
}

// TestInboxRelayOptions: a Relay stands in for Signers, never beside them.
func TestInboxRelayOptions(t *testing.T) {
	id := func(*http.Request) (string, error) { return "ana", nil }
	c := testsuite.DevServerFor(t).Client()
	_, err := inbox.New(inbox.Options{Client: c, Identity: id, Relay: keyInTheBrowser{}})
	require.NoError(t, err, "an inbox that relays holds no signer")
	_, err = inbox.New(inbox.Options{Client: c, Identity: id, Relay: keyInTheBrowser{}, Signers: []*approvals.Signer{signer(t, "ana")}})
	require.ErrorContains(t, err, "Options.Signers and Options.Relay are both set")
	_, err = inbox.New(inbox.Options{Client: c, Identity: id})
	require.ErrorContains(t, err, "set Options.Relay to have people sign their own")
}

// events counts the events of type typ in the history of p's run.
func events(t *testing.T, ctx context.Context, c client.Client, p approvals.Pending, typ enumspb.EventType) int {
	t.Helper()
	n := 0
	it := c.GetWorkflowHistory(ctx, p.WorkflowID, p.RunID, false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
	for it.HasNext() {
		e, err := it.Next()
		require.NoError(t, err)
		if e.GetEventType() == typ {
			n++
		}
	}
	return n
}
