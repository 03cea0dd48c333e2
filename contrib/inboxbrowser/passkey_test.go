package inboxbrowser_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"image/png"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/webauthn"
	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/worker"

	"github.com/temporaladk/adk-go/approvals"
	"github.com/temporaladk/adk-go/approvals/inbox"
	"github.com/temporaladk/adk-go/contrib/passkey"
	"github.com/temporaladk/adk-go/interceptors"
	"github.com/temporaladk/adk-go/temporaladk"
	"github.com/temporaladk/adk-go/testsuite"
)

// passkeyNamespace is the passkey test's namespace: its inbox lists every
// run waiting there.
const passkeyNamespace = "passkey-approvals"

// forgeScript is what a client other than the inbox's own page can do with
// the person's authenticator and the inbox's endpoints: ask for the
// decision's challenge, replace it or what the authenticator is asked,
// or send an answer it already has, and report the inbox's answer.
const forgeScript = `window.forge = async (o) => {
  const form = new URLSearchParams({workflow: o.workflow, run: o.run, call: o.call, digest: o.digest, decision: "approve"});
  let expires = o.expires, answer = o.answer;
  if (!answer) {
    const r = await fetch("challenge", {method: "POST", body: form});
    if (!r.ok) return "challenge refused: " + await r.text();
    const c = await r.json();
    const pk = c.challenge.publicKey;
    if (o.challenge) { pk.challenge = o.challenge; } else { expires = c.expires; }
    if (o.allow) pk.allowCredentials = [{type: "public-key", id: o.allow}];
    if (o.uv) pk.userVerification = o.uv;
    const cred = await navigator.credentials.get({publicKey: PublicKeyCredential.parseRequestOptionsFromJSON(pk)});
    answer = JSON.stringify(cred.toJSON());
  }
  form.set("expires", expires);
  form.set("answer", answer);
  const d = await fetch("answer", {method: "POST", body: form});
  const u = new URL(d.url);
  return u.searchParams.get("error") || ("done: " + u.searchParams.get("done"));
};`

// forgery is what forge is told: the call, and what to change.
type forgery struct {
	Workflow  string `json:"workflow"`
	Run       string `json:"run"`
	Call      string `json:"call"`
	Digest    string `json:"digest"`
	Expires   string `json:"expires,omitempty"`
	Challenge string `json:"challenge,omitempty"`
	Allow     string `json:"allow,omitempty"`
	UV        string `json:"uv,omitempty"`
	Answer    string `json:"answer,omitempty"`
}

// authenticator adds a virtual authenticator to the tab: CTAP2, built in,
// with resident keys and user verification that succeeds.
func authenticator(t *testing.T, tab context.Context) webauthn.AuthenticatorID {
	t.Helper()
	id, err := chromedp.Run(tab, func(ctx context.Context, s *chromedp.Target) (webauthn.AuthenticatorID, error) {
		if _, err := cdp.Call(ctx, s, webauthn.Enable, webauthn.EnableParams{}); err != nil {
			return "", err
		}
		r, err := cdp.Call(ctx, s, webauthn.AddVirtualAuthenticator, webauthn.AddVirtualAuthenticatorParams{Options: &webauthn.VirtualAuthenticatorOptions{
			Protocol: webauthn.AuthenticatorProtocolCtap2, Transport: webauthn.AuthenticatorTransportInternal,
			HasResidentKey: true, HasUserVerification: true, IsUserVerified: true, AutomaticPresenceSimulation: true}})
		return r.AuthenticatorID, err
	})
	require.NoError(t, err)
	return id
}

// register has the person signed in register a passkey on the tab's
// authenticator, through the registrar's page, and returns the public
// credential the page shows.
func register(t *testing.T, tab context.Context, origin string) passkey.Credential {
	t.Helper()
	require.NoError(t, chromedp.Do(tab, chromedp.Navigate(origin+"/register/"),
		chromedp.Click(chromedp.CSS("#register")), chromedp.WaitVisible(chromedp.CSS("#credential"))))
	text, err := chromedp.Run(tab, chromedp.Text(chromedp.CSS("#credential")))
	require.NoError(t, err)
	var c passkey.Credential
	require.NoError(t, json.Unmarshal([]byte(text), &c), text)
	return c
}

// decisions are the approval Updates the run's history accepted, and how
// often the tool's activity started in it.
func decisions(t *testing.T, ctx context.Context, c client.Client, workflowID string) (accepted []approvals.Request, started int) {
	t.Helper()
	it := c.GetWorkflowHistory(ctx, workflowID, "", false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
	for it.HasNext() {
		ev, err := it.Next()
		require.NoError(t, err)
		if a := ev.GetWorkflowExecutionUpdateAcceptedEventAttributes(); a != nil {
			var r approvals.Request
			require.NoError(t, converter.GetDefaultDataConverter().FromPayloads(a.GetAcceptedRequest().GetInput().GetArgs(), &r))
			accepted = append(accepted, r)
		}
		if ev.GetEventType() == enumspb.EVENT_TYPE_ACTIVITY_TASK_STARTED {
			started++
		}
	}
	return accepted, started
}

// TestPasskeyApprovalInChromium: in Chromium with a virtual authenticator,
// ana registers a passkey on the registrar's page; the worker and the
// inbox are built from her public credential only; she approves a refund
// from the inbox's page, her authenticator signing the decision's
// challenge; the refund runs once, the history holds her assertion over
// that challenge, and the audit names her and her credential. Then, on a
// second waiting refund, four decisions the validator refuses, each
// leaving nothing in history: a challenge for other arguments, the first
// refund's assertion replayed, an assertion without user verification,
// and one by an authenticator the worker does not know.
func TestPasskeyApprovalInChromium(t *testing.T) {
	browser := chromium(t)
	srv := testsuite.DevServerFor(t)
	c, err := client.Dial(client.Options{HostPort: srv.Address(), Namespace: passkeyNamespace})
	require.NoError(t, err)
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()

	// One web server at http://localhost:<port>: the registrar and the
	// inbox behind the authenticating proxy, which names ana.
	var inboxHandler atomic.Pointer[inbox.Handler]
	var origin string
	listener, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	origin = fmt.Sprintf("http://localhost:%d", listener.Addr().(*net.TCPAddr).Port)
	identity := func(r *http.Request) (string, error) { return r.Header.Get("X-Forwarded-User"), nil }
	registrar, err := passkey.NewRegistrar(passkey.RegistrarOptions{RPID: "localhost", RPName: "Refund approvals",
		Origins: []string{origin}, Identity: identity, UserVerification: true})
	require.NoError(t, err)
	mux := http.NewServeMux()
	mux.Handle("/register/", http.StripPrefix("/register", registrar))
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		if h := inboxHandler.Load(); h != nil {
			h.ServeHTTP(w, r)
			return
		}
		http.NotFound(w, r)
	})
	web := &httptest.Server{Listener: listener, Config: &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		r.Header.Set("X-Forwarded-User", "ana")
		mux.ServeHTTP(w, r)
	})}}
	web.Start()
	defer web.Close()

	alloc, cancelAlloc := chromedp.NewExecAllocator(ctx, append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(browser), chromedp.NoSandbox, chromedp.DisableGPU, chromedp.WindowSize(1400, 640))...)
	defer cancelAlloc()
	tab, cancelTab := chromedp.NewContext(alloc)
	defer cancelTab()

	// ana registers; the operator configures the worker and the inbox with
	// her public credential, and nothing else.
	authenticator(t, tab)
	ana := register(t, tab, origin)
	require.Equal(t, "ana", ana.Principal)
	require.Equal(t, []string{origin}, ana.Origins)
	require.True(t, ana.UserVerification)
	verifier, err := passkey.NewVerifier(ana)
	require.NoError(t, err)
	relay, err := passkey.NewRelay(ana)
	require.NoError(t, err)

	kit, err := interceptors.NewPlugin(interceptors.Options{
		Activities: map[string]temporaladk.Declaration{"IssueRefund": {Class: temporaladk.Tool, Idempotency: temporaladk.Effectful, RequiresApproval: true}},
		Approvals: approvals.WorkerOptions{
			Tools:    map[string]approvals.Approvers{"IssueRefund": {Principals: []string{"ana"}, Required: 1}},
			Verifier: verifier, SearchAttribute: true,
		},
	})
	require.NoError(t, err)
	queue := "tq-" + t.Name()
	tool := &refunds{ran: map[string]int{}}
	w := worker.New(c, queue, worker.Options{Plugins: []worker.Plugin{kit}})
	w.RegisterWorkflow(RefundOrder)
	w.RegisterActivity(tool)
	require.NoError(t, w.Start())
	defer w.Stop()
	asked := []Refund{{Order: "P-2001", Amount: 8900, Reason: "wrong size"}, {Order: "P-2002", Amount: 15000, Reason: "never arrived"}}
	ids := make([]string, len(asked))
	for i, r := range asked {
		ids[i] = fmt.Sprintf("passkey-%s-%d", r.Order, time.Now().UnixNano())
		_, err := c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: ids[i], TaskQueue: queue}, RefundOrder, r)
		require.NoError(t, err)
	}
	deadline, _ := ctx.Deadline()
	h, err := inbox.New(inbox.Options{Client: c, Identity: identity, Relay: relay, Title: "Refunds waiting for approval",
		QueryTimeout: time.Until(deadline)})
	require.NoError(t, err, "the inbox is built with public credentials only: it has no Signers")
	inboxHandler.Store(h)
	pending := map[string]approvals.Pending{}
	require.Eventually(t, func() bool {
		ps, err := h.Waiting(ctx)
		for _, p := range ps {
			pending[p.WorkflowID] = p
		}
		return err == nil && pending[ids[0]].Call != "" && pending[ids[1]].Call != ""
	}, time.Minute, 100*time.Millisecond, "the inbox finds the two waiting runs")

	// ana approves the first refund from the page: her authenticator signs.
	row := fmt.Sprintf(`tr[data-workflow=%q]`, ids[0])
	require.NoError(t, chromedp.Do(tab, chromedp.Navigate(origin+"/"), chromedp.WaitVisible(chromedp.CSS(row)),
		chromedp.SendKeys(chromedp.CSS(row+` input[name="reason"]`), "parcel returned, checked"),
		chromedp.Click(chromedp.CSS(row+` button.approve`)),
		chromedp.WaitVisible(chromedp.CSS("#message"))))
	message, err := chromedp.Run(tab, chromedp.Text(chromedp.CSS("#message")))
	require.NoError(t, err)
	require.Equal(t, fmt.Sprintf("ana approved approval-1 of workflow %s", ids[0]), message)
	shot, err := chromedp.Run(tab, chromedp.FullScreenshot(100))
	require.NoError(t, err)
	img, err := png.Decode(bytes.NewReader(shot))
	require.NoError(t, err, "the screenshot is a PNG")
	require.Positive(t, img.Bounds().Dx())
	if path := os.Getenv("TEMPORALADK_PASSKEY_SCREENSHOT"); path != "" {
		require.NoError(t, os.WriteFile(filepath.Clean(path), shot, 0o644))
	}

	var out string
	require.NoError(t, c.GetWorkflow(ctx, ids[0], "").Get(ctx, &out))
	require.Equal(t, "refunded P-2001", out)
	require.Equal(t, 1, tool.total())
	accepted, started := decisions(t, ctx, c, ids[0])
	require.Equal(t, 1, started, "the tool ran once")
	require.Len(t, accepted, 1)
	approved := accepted[0]
	require.Equal(t, "ana", approved.By)
	require.Equal(t, ana.ID, approved.Key)
	require.Equal(t, "parcel returned, checked", approved.Reason)
	// The history holds the assertion: its client data names the challenge
	// of exactly this decision and the inbox's origin.
	var assertion struct {
		ID       string `json:"id"`
		Response struct {
			ClientDataJSON    string `json:"clientDataJSON"`
			AuthenticatorData string `json:"authenticatorData"`
			Signature         string `json:"signature"`
		} `json:"response"`
	}
	require.NoError(t, json.Unmarshal(approved.Signature, &assertion))
	require.Equal(t, ana.ID, assertion.ID)
	require.NotEmpty(t, assertion.Response.AuthenticatorData)
	require.NotEmpty(t, assertion.Response.Signature)
	clientJSON, err := base64.RawURLEncoding.DecodeString(assertion.Response.ClientDataJSON)
	require.NoError(t, err)
	var collected struct{ Type, Challenge, Origin string }
	require.NoError(t, json.Unmarshal(clientJSON, &collected))
	want, err := passkey.Challenge(pending[ids[0]].Statement(true, "ana", approved.Expires))
	require.NoError(t, err)
	require.Equal(t, "webauthn.get", collected.Type)
	require.Equal(t, base64.RawURLEncoding.EncodeToString(want), collected.Challenge)
	require.Equal(t, origin, collected.Origin)
	audit, err := approvals.Audit(ctx, c, ids[0], approvals.AuditOptions{})
	require.NoError(t, err)
	require.Len(t, audit, 1)
	require.Equal(t, "ana", audit[0].Request.By, "the audit names the person")
	require.Equal(t, ana.ID, audit[0].Request.Key, "and her credential")

	// The second refund: four decisions the validator refuses.
	_, err = chromedp.Run(tab, chromedp.Evaluate[bool](forgeScript+"; true"))
	require.NoError(t, err)
	second := pending[ids[1]]
	call := forgery{Workflow: second.WorkflowID, Run: second.RunID, Call: second.Call, Digest: second.Digest}
	forge := func(tab context.Context, f forgery) (string, error) {
		arg, err := json.Marshal(f)
		require.NoError(t, err)
		return chromedp.Run(tab, chromedp.Evaluate[string](fmt.Sprintf("forge(%s)", arg), chromedp.EvalAwaitPromise))
	}
	refused := func(tab context.Context, name string, f forgery, want passkey.Mistake) {
		t.Helper()
		got, err := forge(tab, f)
		require.NoError(t, err, name)
		t.Logf("%s: %s", name, got)
		require.Contains(t, got, string(want), "%s: %s", name, got)
		require.Contains(t, got, temporaladk.TypeApprovalRejected, "%s: the run's validator refused it: %s", name, got)
		accepted, started := decisions(t, ctx, c, ids[1])
		require.Empty(t, accepted, "%s: nothing in history", name)
		require.Zero(t, started, name)
		require.Equal(t, 1, tool.total(), name)
	}

	// A challenge for other arguments: ana's authenticator signs the
	// decision of the same call with another digest.
	otherDigest, err := approvals.Digest(Refund{Order: "P-2002", Amount: 1500000, Reason: "never arrived"})
	require.NoError(t, err)
	expires := time.Now().Add(5 * time.Minute).UTC().Truncate(time.Second)
	forged := second
	forged.Digest = otherDigest
	otherChallenge, err := passkey.Challenge(forged.Statement(true, "ana", expires))
	require.NoError(t, err)
	f := call
	f.Expires, f.Challenge = expires.Format(time.RFC3339Nano), base64.RawURLEncoding.EncodeToString(otherChallenge)
	refused(tab, "a challenge for other arguments", f, passkey.OtherChallenge)

	// The first refund's assertion, replayed for the second.
	f = call
	f.Expires, f.Answer = approved.Expires.UTC().Format(time.RFC3339Nano), string(approved.Signature)
	refused(tab, "a replayed assertion", f, passkey.OtherChallenge)

	// A client that does not ask for user verification, which ana's
	// passkey requires.
	f = call
	f.UV = "discouraged"
	refused(tab, "user verification absent", f, passkey.UserNotVerified)

	// An authenticator the worker does not know, in a tab of its own (a
	// virtual authenticator is its tab's): a passkey registered on it,
	// never added to the worker's configuration.
	other, cancelOther := chromedp.NewContext(tab)
	defer cancelOther()
	authenticator(t, other)
	stranger := register(t, other, origin)
	require.NotEqual(t, ana.ID, stranger.ID)
	require.NoError(t, chromedp.Do(other, chromedp.Navigate(origin+"/"), chromedp.WaitVisible(chromedp.CSS("#calls"))))
	_, err = chromedp.Run(other, chromedp.Evaluate[bool](forgeScript+"; true"))
	require.NoError(t, err)
	f = call
	f.Allow = stranger.ID
	refused(other, "an unknown authenticator", f, passkey.UnknownCredential)

	ps, err := approvals.List(ctx, c, ids[1])
	require.NoError(t, err)
	require.Len(t, ps, 1, "the second refund still waits")

	// The same path with nothing changed is accepted: the refusals above
	// are the validator's, not the path's.
	got, err := forge(tab, call)
	require.NoError(t, err)
	require.Equal(t, fmt.Sprintf("done: ana approved %s of workflow %s", second.Call, ids[1]), got)
	require.NoError(t, c.GetWorkflow(ctx, ids[1], "").Get(ctx, &out))
	require.Equal(t, "refunded P-2002", out)
	require.Equal(t, 2, tool.total())
	accepted, started = decisions(t, ctx, c, ids[1])
	require.Len(t, accepted, 1)
	require.Equal(t, 1, started)
}
