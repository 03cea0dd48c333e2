package inboxbrowser_test

import (
	"bytes"
	"context"
	"fmt"
	"image/png"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/converter"
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
		// The passkey test's inbox lists its own namespace's waiting runs,
		// not those the other tests leave waiting.
		ExtraArgs: []string{"--search-attribute", approvals.SearchAttribute + "=Bool", "--namespace", passkeyNamespace},
	}))
}

// Refund is the tool's argument.
type Refund struct {
	Order  string `json:"order"`
	Amount int    `json:"amount_cents"`
	Reason string `json:"reason"`
}

// RefundOrder refunds one order once its refund is approved.
func RefundOrder(ctx workflow.Context, r Refund) (string, error) {
	ctx = workflow.WithActivityOptions(ctx, workflow.ActivityOptions{StartToCloseTimeout: 30 * time.Second})
	var out string
	err := workflow.ExecuteActivity(ctx, "IssueRefund", r).Get(ctx, &out)
	return out, err
}

type refunds struct {
	mu  sync.Mutex
	ran map[string]int
}

// IssueRefund is the effectful tool.
func (f *refunds) IssueRefund(ctx context.Context, r Refund) (string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.ran[r.Order]++
	return "refunded " + r.Order, nil
}

func (f *refunds) total() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	n := 0
	for _, v := range f.ran {
		n += v
	}
	return n
}

// chromium finds Debian's Chromium. .ci/run installs it and sets
// TEMPORALADK_REQUIRE_CHROMIUM, and a hosted CI sets CI: there a missing
// one fails the test; elsewhere it is skipped, saying how to get it.
func chromium(t *testing.T) string {
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("TEMPORALADK_REQUIRE_CHROMIUM") != "" || os.Getenv("CI") != "" {
		t.Fatal("Chromium is not installed; .ci/run installs it with apt-get install -y chromium")
	}
	t.Skip("Chromium is not installed: apt-get update && apt-get install -y chromium")
	return ""
}

// TestInboxInChromium: three workflows wait for the approval of a refund;
// the inbox, loaded in headless Chromium, shows each one's arguments; ana
// clicks Approve on one; that refund runs once, the others wait, and the
// run's history names ana as the approver.
func TestInboxInChromium(t *testing.T) {
	browser := chromium(t)
	srv := testsuite.DevServerFor(t)
	c := srv.Client()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()

	team, err := testsuite.NewSigners(1, "ana", "bo")
	require.NoError(t, err)
	kit, err := interceptors.NewPlugin(interceptors.Options{
		Activities: map[string]temporaladk.Declaration{"IssueRefund": {Class: temporaladk.Tool, Idempotency: temporaladk.Effectful, RequiresApproval: true}},
		Approvals: approvals.WorkerOptions{
			Tools:    map[string]approvals.Approvers{"IssueRefund": team.Approvers},
			Verifier: team.Verifier, SearchAttribute: true,
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

	asked := []Refund{
		{Order: "A-1001", Amount: 4999, Reason: "damaged in transit"},
		{Order: "A-1002", Amount: 12900, Reason: "double charge"},
		{Order: "A-1003", Amount: 350, Reason: "late delivery"},
	}
	ids := make([]string, len(asked))
	for i, r := range asked {
		ids[i] = fmt.Sprintf("refund-%s-%d", r.Order, time.Now().UnixNano())
		_, err := c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: ids[i], TaskQueue: queue}, RefundOrder, r)
		require.NoError(t, err)
	}

	// Each run's approvals Query waits for its answer within the test's
	// own deadline: under -race on a loaded machine one took longer than
	// the inbox's default 5s, and the page then showed two rows and the
	// error, as it should.
	deadline, _ := ctx.Deadline()
	h, err := inbox.New(inbox.Options{Client: c, Signers: team.Signers, Title: "Refunds waiting for approval",
		Identity:     func(r *http.Request) (string, error) { return r.Header.Get("X-Forwarded-User"), nil },
		QueryTimeout: time.Until(deadline)})
	require.NoError(t, err)
	// The authenticating proxy: it names the person signed in.
	proxy := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		r.Header.Set("X-Forwarded-User", "ana")
		h.ServeHTTP(w, r)
	})
	web := httptest.NewServer(proxy)
	defer web.Close()
	require.Eventually(t, func() bool {
		ps, err := h.Waiting(ctx)
		return err == nil && len(ps) >= len(asked)
	}, time.Minute, 100*time.Millisecond, "the inbox finds the three waiting runs")

	alloc, cancelAlloc := chromedp.NewExecAllocator(ctx, append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(browser), chromedp.NoSandbox, chromedp.DisableGPU, chromedp.WindowSize(1400, 640))...)
	defer cancelAlloc()
	tab, cancelTab := chromedp.NewContext(alloc)
	defer cancelTab()

	require.NoError(t, chromedp.Do(tab, chromedp.Navigate(web.URL+"/"), chromedp.WaitVisible(chromedp.CSS("#calls"))))
	rows, err := chromedp.Run(tab, chromedp.Evaluate[int](`document.querySelectorAll("tr.call").length`))
	require.NoError(t, err)
	args, err := chromedp.Run(tab, chromedp.Evaluate[[]string](`Array.from(document.querySelectorAll("pre.args")).map(e => e.innerText)`))
	require.NoError(t, err)
	shot, err := chromedp.Run(tab, chromedp.FullScreenshot(100))
	require.NoError(t, err)
	pageErr, err := chromedp.Run(tab, chromedp.Evaluate[string](`(document.getElementById("error") || {innerText: ""}).innerText`))
	require.NoError(t, err)
	require.Empty(t, pageErr, "the page shows no error")
	require.Equal(t, len(asked), rows)
	page := strings.Join(args, "\n")
	for _, r := range asked {
		require.Contains(t, page, fmt.Sprintf(`"order": %q`, r.Order), "the person sees the arguments")
		require.Contains(t, page, fmt.Sprintf(`"amount_cents": %d`, r.Amount))
	}
	img, err := png.Decode(bytes.NewReader(shot))
	require.NoError(t, err, "the screenshot is a PNG")
	require.Positive(t, img.Bounds().Dx())
	if path := os.Getenv("TEMPORALADK_INBOX_SCREENSHOT"); path != "" {
		require.NoError(t, os.WriteFile(filepath.Clean(path), shot, 0o644))
	}

	row := fmt.Sprintf(`tr[data-workflow=%q]`, ids[1])
	require.NoError(t, chromedp.Do(tab,
		chromedp.SendKeys(chromedp.CSS(row+` input[name="reason"]`), "checked the bank statement"),
		chromedp.Click(chromedp.CSS(row+` button.approve`)),
		chromedp.WaitVisible(chromedp.CSS("#message")),
	))
	message, err := chromedp.Run(tab, chromedp.Text(chromedp.CSS("#message")))
	require.NoError(t, err)
	require.Equal(t, fmt.Sprintf("ana approved approval-1 of workflow %s", ids[1]), message)

	var out string
	require.NoError(t, c.GetWorkflow(ctx, ids[1], "").Get(ctx, &out))
	require.Equal(t, "refunded A-1002", out)
	require.Equal(t, 1, tool.total(), "one refund ran, once; the other two wait")
	for _, id := range []string{ids[0], ids[2]} {
		ps, err := approvals.List(ctx, c, id)
		require.NoError(t, err)
		require.Len(t, ps, 1, id)
	}

	// The history names the person: the accepted Update's decision.
	it := c.GetWorkflowHistory(ctx, ids[1], "", false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
	var decisions []approvals.Request
	for it.HasNext() {
		ev, err := it.Next()
		require.NoError(t, err)
		if a := ev.GetWorkflowExecutionUpdateAcceptedEventAttributes(); a != nil {
			var r approvals.Request
			require.NoError(t, converter.GetDefaultDataConverter().FromPayloads(a.GetAcceptedRequest().GetInput().GetArgs(), &r))
			decisions = append(decisions, r)
		}
	}
	require.Len(t, decisions, 1)
	require.Equal(t, "ana", decisions[0].By)
	require.Equal(t, "ana-test", decisions[0].Key)
	require.Equal(t, "checked the bank statement", decisions[0].Reason)
	require.True(t, decisions[0].Approves())
}
