package inbox_test

import (
	"context"
	"crypto/ed25519"
	"crypto/sha256"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	enumspb "go.temporal.io/api/enums/v1"
	historypb "go.temporal.io/api/history/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	"github.com/temporaladk/adk-go/approvals"
	"github.com/temporaladk/adk-go/approvals/inbox"
	"github.com/temporaladk/adk-go/interceptors"
	"github.com/temporaladk/adk-go/temporaladk"
	"github.com/temporaladk/adk-go/testsuite"
)

func TestMain(m *testing.M) {
	os.Exit(testsuite.RunWithDevServer(m, testsuite.DevServerOptions{
		ExtraArgs: []string{"--search-attribute", approvals.SearchAttribute + "=Bool"},
	}))
}

// Refund is the tool's argument.
type Refund struct {
	Order  string `json:"order"`
	Amount int    `json:"amount_cents"`
}

// RefundOrder refunds one order once its refund is approved.
func RefundOrder(ctx workflow.Context, r Refund) (string, error) {
	ctx = workflow.WithActivityOptions(ctx, workflow.ActivityOptions{StartToCloseTimeout: 30 * time.Second})
	var out string
	err := workflow.ExecuteActivity(ctx, "IssueRefund", r).Get(ctx, &out)
	return out, err
}

// refunds is the tool and what it did.
type refunds struct {
	mu  sync.Mutex
	ran map[string]int
}

func (f *refunds) IssueRefund(ctx context.Context, r Refund) (string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.ran[r.Order]++
	return "refunded " + r.Order, nil
}

func (f *refunds) runs(order string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.ran[order]
}

func signer(t *testing.T, principal string) *approvals.Signer {
	seed := sha256.Sum256([]byte("inbox test key " + principal))
	s, err := approvals.NewSigner(principal+"-key", principal, ed25519.NewKeyFromSeed(seed[:]))
	require.NoError(t, err)
	return s
}

type fixture struct {
	c     client.Client
	tool  *refunds
	ids   []string
	runs  []client.WorkflowRun
	inbox *inbox.Handler
	srv   *httptest.Server
}

// start runs a kit worker whose IssueRefund needs one signed approval of
// ana or bo, three workflows waiting, and the inbox with ana's and bo's
// keys, behind a proxy that names the person by the X-User header.
func start(t *testing.T) *fixture {
	srv := testsuite.DevServerFor(t)
	ctx := context.Background()
	f := &fixture{c: srv.Client(), tool: &refunds{ran: map[string]int{}}}
	ana, bo := signer(t, "ana"), signer(t, "bo")
	verifier, err := approvals.NewEd25519Verifier(ana.PublicKey(), bo.PublicKey())
	require.NoError(t, err)
	kit, err := interceptors.NewPlugin(interceptors.Options{
		Activities: map[string]temporaladk.Declaration{"IssueRefund": {Class: temporaladk.Tool, Idempotency: temporaladk.Effectful, RequiresApproval: true}},
		Approvals: approvals.WorkerOptions{
			Tools:           map[string]approvals.Approvers{"IssueRefund": {Principals: []string{"ana", "bo"}, Required: 1}},
			Verifier:        verifier,
			SearchAttribute: true,
		},
	})
	require.NoError(t, err)
	queue := "tq-" + t.Name()
	w := worker.New(f.c, queue, worker.Options{Plugins: []worker.Plugin{kit}})
	w.RegisterWorkflow(RefundOrder)
	w.RegisterActivity(f.tool)
	require.NoError(t, w.Start())
	t.Cleanup(w.Stop)
	for i := range 3 {
		id := fmt.Sprintf("%s-%d-%d", queue, i, time.Now().UnixNano())
		run, err := f.c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: id, TaskQueue: queue}, RefundOrder, Refund{Order: fmt.Sprintf("order-%d", 100+i), Amount: 1999 + i})
		require.NoError(t, err)
		f.ids, f.runs = append(f.ids, id), append(f.runs, run)
	}
	// The namespace is shared: a run left waiting would be listed, and
	// queried, by the next test's inbox.
	t.Cleanup(func() {
		for _, id := range f.ids {
			_ = f.c.TerminateWorkflow(context.Background(), id, "", "the test is over")
		}
	})
	f.inbox, err = inbox.New(inbox.Options{Client: f.c, Signers: []*approvals.Signer{ana, bo},
		Identity: func(r *http.Request) (string, error) { return r.Header.Get("X-User"), nil }})
	require.NoError(t, err)
	f.srv = httptest.NewServer(f.inbox)
	t.Cleanup(f.srv.Close)
	return f
}

// mine are the waiting calls of the fixture's workflows; a run of another
// test that cannot be listed is no failure of this one.
func (f *fixture) mine(t *testing.T) []approvals.Pending {
	t.Helper()
	all, err := f.inbox.Waiting(context.Background())
	for _, id := range f.ids {
		require.NotContains(t, fmt.Sprint(err), id)
	}
	var out []approvals.Pending
	for _, p := range all {
		for _, id := range f.ids {
			if p.WorkflowID == id {
				out = append(out, p)
			}
		}
	}
	return out
}

func (f *fixture) do(t *testing.T, method, path, user string, form url.Values, header http.Header) (*http.Response, string) {
	t.Helper()
	var body io.Reader
	if form != nil {
		body = strings.NewReader(form.Encode())
	}
	req, err := http.NewRequest(method, f.srv.URL+path, body)
	require.NoError(t, err)
	req.Header.Set("X-User", user)
	if form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	for k, v := range header {
		req.Header[k] = v
	}
	c := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := c.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp, string(b)
}

// TestInboxListsAndDecides: the inbox lists the three waiting calls with
// their arguments; ana approves one, signed, and only that tool runs, once;
// the audit names her; a person without a key and a cross-site form are
// refused; the approved run leaves the list.
func TestInboxListsAndDecides(t *testing.T) {
	f := start(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var listed []approvals.Pending
	require.Eventually(t, func() bool { listed = f.mine(t); return len(listed) == len(f.ids) }, time.Minute, 100*time.Millisecond, "the three runs are found by their search attribute")

	resp, page := f.do(t, http.MethodGet, "/", "ana", nil, nil)
	require.Equal(t, http.StatusOK, resp.StatusCode)
	for i := range f.ids {
		require.Contains(t, page, fmt.Sprintf("&#34;order&#34;: &#34;order-%d&#34;", 100+i), "the page shows the arguments")
		require.Contains(t, page, fmt.Sprintf("&#34;amount_cents&#34;: %d", 1999+i))
	}
	require.Equal(t, 3, strings.Count(page, `value="approve"`))

	target := listed[0]
	form := url.Values{"workflow": {target.WorkflowID}, "run": {target.RunID}, "call": {target.Call}, "digest": {target.Digest}, "decision": {"approve"}}
	own := http.Header{"Origin": {f.srv.URL}}
	resp, body := f.do(t, http.MethodPost, "/decide", "mallory", form, own)
	require.Equal(t, http.StatusForbidden, resp.StatusCode)
	require.Contains(t, body, `the inbox has no key for "mallory"`)
	resp, body = f.do(t, http.MethodPost, "/decide", "ana", form, http.Header{"Origin": {"https://evil.example"}})
	require.Equal(t, http.StatusForbidden, resp.StatusCode)
	require.Contains(t, body, `origin "https://evil.example" is refused`)

	resp, _ = f.do(t, http.MethodPost, "/decide", "ana", form, own)
	require.Equal(t, http.StatusSeeOther, resp.StatusCode)
	require.Contains(t, resp.Header.Get("Location"), "done=")

	var out string
	require.NoError(t, f.c.GetWorkflow(ctx, target.WorkflowID, "").Get(ctx, &out))
	var order string
	for i, id := range f.ids {
		if id == target.WorkflowID {
			order = fmt.Sprintf("order-%d", 100+i)
		}
	}
	require.Equal(t, "refunded "+order, out)
	total := 0
	for i := range f.ids {
		total += f.tool.runs(fmt.Sprintf("order-%d", 100+i))
	}
	require.Equal(t, 1, total, "one tool ran, once")
	audit, err := approvals.Audit(ctx, f.c, target.WorkflowID, approvals.AuditOptions{})
	require.NoError(t, err)
	require.Len(t, audit, 1)
	require.Equal(t, "ana", audit[0].Request.By)
	require.Equal(t, "ana-key", audit[0].Request.Key)
	require.Eventually(t, func() bool { return len(f.mine(t)) == len(f.ids)-1 }, time.Minute, 100*time.Millisecond, "the approved run leaves the list")
}

// TestInboxOptions: bad options are errors naming the field.
func TestInboxOptions(t *testing.T) {
	srv := testsuite.DevServerFor(t)
	id := func(*http.Request) (string, error) { return "ana", nil }
	s := []*approvals.Signer{signer(t, "ana")}
	for _, tc := range []struct {
		opts inbox.Options
		want string
	}{
		{inbox.Options{Identity: id, Signers: s}, "Options.Client is nil"},
		{inbox.Options{Client: srv.Client(), Signers: s}, "Options.Identity is nil"},
		{inbox.Options{Client: srv.Client(), Identity: id}, "Options.Signers is empty"},
		{inbox.Options{Client: srv.Client(), Identity: id, Signers: s, ValidFor: -time.Second}, "Options.ValidFor is -1s"},
		{inbox.Options{Client: srv.Client(), Identity: id, Signers: s, QueryTimeout: -time.Second}, "Options.QueryTimeout is -1s"},
		{inbox.Options{Client: srv.Client(), Identity: id, Signers: append(s, signer(t, "ana"))}, `Options.Signers[1] signs for "ana"`},
	} {
		_, err := inbox.New(tc.opts)
		require.ErrorContains(t, err, tc.want)
	}
}

// TestInboxRefusesNullOrigin: a form another site posts from a sandboxed
// frame carries Origin "null" and, from a browser that sends no
// Sec-Fetch-Site, nothing else: the inbox refuses it, naming the header,
// and the run records no decision and runs no tool. The same form from the
// inbox's own page (Sec-Fetch-Site: same-origin, which such a browser
// sends with Origin "null" under a no-referrer policy) decides.
func TestInboxRefusesNullOrigin(t *testing.T) {
	f := start(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var listed []approvals.Pending
	require.Eventually(t, func() bool { listed = f.mine(t); return len(listed) == len(f.ids) }, time.Minute, 100*time.Millisecond, "the three runs are found by their search attribute")
	target := listed[0]
	form := url.Values{"workflow": {target.WorkflowID}, "run": {target.RunID}, "call": {target.Call}, "digest": {target.Digest}, "decision": {"approve"}}

	resp, body := f.do(t, http.MethodPost, "/decide", "ana", form, http.Header{"Origin": {"null"}})
	require.Equal(t, http.StatusForbidden, resp.StatusCode)
	require.Contains(t, body, `inbox: a decision with Origin "null" and no Sec-Fetch-Site: same-origin is refused: nothing shows that it came from the inbox's own page (a sandboxed frame on any site sends Origin null)`)
	events := runHistory(t, ctx, f.c, target.WorkflowID, target.RunID)
	require.Zero(t, count(events, enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_ACCEPTED), "the refused post recorded no decision")
	require.Zero(t, count(events, enumspb.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED))
	require.Len(t, f.mine(t), len(f.ids), "the call still waits")

	resp, _ = f.do(t, http.MethodPost, "/decide", "ana", form, http.Header{"Origin": {"null"}, "Sec-Fetch-Site": {"same-origin"}})
	require.Equal(t, http.StatusSeeOther, resp.StatusCode)
	require.Contains(t, resp.Header.Get("Location"), "done=")
	require.NoError(t, f.c.GetWorkflow(ctx, target.WorkflowID, target.RunID).Get(ctx, nil))
	events = runHistory(t, ctx, f.c, target.WorkflowID, target.RunID)
	require.Equal(t, 1, count(events, enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_ACCEPTED))
	require.Equal(t, 1, count(events, enumspb.EVENT_TYPE_ACTIVITY_TASK_STARTED), "the tool ran once, after the decision from the inbox's own page")
}

// TestInboxWhichRequestsDecide: the package doc's table, request by
// request: each refused one is a 403 naming the header that refused it;
// each accepted one goes on to the decision (here a redirect saying that
// the workflow it names does not exist).
func TestInboxWhichRequestsDecide(t *testing.T) {
	srv := testsuite.DevServerFor(t)
	h, err := inbox.New(inbox.Options{Client: srv.Client(), Signers: []*approvals.Signer{signer(t, "ana")},
		Identity: func(*http.Request) (string, error) { return "ana", nil }})
	require.NoError(t, err)
	web := httptest.NewServer(h)
	defer web.Close()
	f := &fixture{srv: web}
	const (
		same  = "same"
		cross = "https://evil.example"
		null  = "null"
		none  = ""
	)
	for _, tc := range []struct {
		origin, site string
		refused      string // "" for accepted
	}{
		{same, "same-origin", ""},
		{same, "cross-site", `Sec-Fetch-Site "cross-site" is refused`},
		{same, none, ""},
		{cross, "same-origin", `origin "https://evil.example" is refused`},
		{cross, "cross-site", `Sec-Fetch-Site "cross-site" is refused`},
		{cross, none, `origin "https://evil.example" is refused`},
		{null, "same-origin", ""},
		{null, "cross-site", `Sec-Fetch-Site "cross-site" is refused`},
		{null, none, `a decision with Origin "null" and no Sec-Fetch-Site: same-origin is refused`},
		{none, "same-origin", ""},
		{none, "cross-site", `Sec-Fetch-Site "cross-site" is refused`},
		{none, none, `a decision with no Origin and no Sec-Fetch-Site: same-origin is refused`},
		{same, "same-site", `Sec-Fetch-Site "same-site" is refused`},
		{same, "none", `Sec-Fetch-Site "none" is refused`},
	} {
		name := fmt.Sprintf("Origin %q, Sec-Fetch-Site %q", tc.origin, tc.site)
		header := http.Header{}
		switch tc.origin {
		case same:
			header.Set("Origin", web.URL)
		case none:
		default:
			header.Set("Origin", tc.origin)
		}
		if tc.site != none {
			header.Set("Sec-Fetch-Site", tc.site)
		}
		form := url.Values{"workflow": {"no-such-workflow"}, "run": {"r"}, "call": {"approval-1"}, "digest": {"d"}, "decision": {"approve"}}
		resp, body := f.do(t, http.MethodPost, "/decide", "ana", form, header)
		if tc.refused != "" {
			require.Equal(t, http.StatusForbidden, resp.StatusCode, name)
			require.Contains(t, body, tc.refused, name)
			continue
		}
		require.Equal(t, http.StatusSeeOther, resp.StatusCode, "%s: %s", name, body)
		require.Contains(t, resp.Header.Get("Location"), "error=", name)
		require.Contains(t, resp.Header.Get("Location"), "no-such-workflow", name)
	}
}

// runHistory is the run's history as it stands.
func runHistory(t *testing.T, ctx context.Context, c client.Client, workflowID, runID string) []*historypb.HistoryEvent {
	t.Helper()
	var events []*historypb.HistoryEvent
	it := c.GetWorkflowHistory(ctx, workflowID, runID, false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
	for it.HasNext() {
		e, err := it.Next()
		require.NoError(t, err)
		events = append(events, e)
	}
	return events
}

func count(events []*historypb.HistoryEvent, typ enumspb.EventType) int {
	n := 0
	for _, e := range events {
		if e.GetEventType() == typ {
			n++
		}
	}
	return n
}
