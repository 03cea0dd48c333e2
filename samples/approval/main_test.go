package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/client"
	sdktestsuite "go.temporal.io/sdk/testsuite"

	"github.com/temporaladk/adk-go/approvals"
	"github.com/temporaladk/adk-go/approvals/inbox"
	"github.com/temporaladk/adk-go/testsuite"
)

func TestMain(m *testing.M) {
	os.Exit(testsuite.RunWithDevServer(m, testsuite.DevServerOptions{}))
}

// TestIntegrationTrip runs the sample end to end on the dev server: the
// first seat is approved and booked, the second denied and not booked.
func TestIntegrationTrip(t *testing.T) {
	srv := testsuite.DevServerFor(t)
	var stdout, stderr bytes.Buffer
	require.Equal(t, 0, run([]string{"-address", srv.Address(), "-namespace", srv.Namespace()}, &stdout, &stderr), stderr.String())
	out := stdout.String()
	assert.Contains(t, out, `approval-1  tool BookSeat  args [{"flight":"LH454","seat":"12A"}]  digest `)
	assert.Contains(t, out, "approvals 0 of 1\n")
	assert.Contains(t, out, "ana approves approval-1, signed")
	assert.Contains(t, out, "ana denies approval-2, signed: one seat is enough")
	assert.Contains(t, out, "LH454/12A booked\n")
	assert.Contains(t, out, "LH454/12B not booked: approval denied: BookSeat approval-2 by ana: one seat is enough\n")
}

// TestIntegrationInbox: the sample's inbox, signed in as bo, lists a
// trip's seat with its arguments and lets bo approve it: the seat is
// booked, and the audit names bo.
func TestIntegrationInbox(t *testing.T) {
	srv := testsuite.DevServerFor(t)
	c := srv.Client()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	require.NoError(t, approvals.RegisterSearchAttribute(ctx, c, srv.Namespace()))
	w, err := startWorker(c)
	require.NoError(t, err)
	defer w.Stop()
	id := fmt.Sprintf("trip-inbox-%d", time.Now().UnixNano())
	run, err := c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: id, TaskQueue: TaskQueue}, Trip, []Seat{{"OS88", "8C"}})
	require.NoError(t, err)
	h, err := Inbox(c, "ana")
	require.NoError(t, err)
	web := httptest.NewServer(h)
	defer web.Close()

	var p approvals.Pending
	require.Eventually(t, func() bool {
		// Runs of other tests whose workers are gone are errors beside
		// the list; this run's call is in it.
		all, _ := h.(*inbox.Handler).Waiting(ctx)
		for _, q := range all {
			if q.WorkflowID == id {
				p = q
			}
		}
		return p.WorkflowID == id
	}, time.Minute, 100*time.Millisecond)
	req, err := http.NewRequest(http.MethodGet, web.URL+"/", nil)
	require.NoError(t, err)
	req.Header.Set("X-Forwarded-User", "bo")
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	page, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	require.NoError(t, err)
	require.Contains(t, string(page), "Signed in as <strong id=\"principal\">bo</strong>")
	require.Contains(t, string(page), "&#34;flight&#34;: &#34;OS88&#34;")

	form := url.Values{"workflow": {id}, "run": {p.RunID}, "call": {p.Call}, "digest": {p.Digest}, "decision": {"approve"}}
	req, err = http.NewRequest(http.MethodPost, web.URL+"/decide", strings.NewReader(form.Encode()))
	require.NoError(t, err)
	req.Header.Set("X-Forwarded-User", "bo")
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	// As the inbox's own page posts it: the inbox refuses a decision that
	// does not show it came from there.
	req.Header.Set("Origin", web.URL)
	req.Header.Set("Sec-Fetch-Site", "same-origin")
	resp, err = (&http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}).Do(req)
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, http.StatusSeeOther, resp.StatusCode, resp.Header.Get("Location"))
	var out []string
	require.NoError(t, run.Get(ctx, &out))
	require.Equal(t, []string{"OS88/8C booked"}, out)
	audit, err := approvals.Audit(ctx, c, id, approvals.AuditOptions{})
	require.NoError(t, err)
	require.Len(t, audit, 1)
	require.Equal(t, "bo", audit[0].Request.By)
}

// TestIntegrationServe: the serve command runs three trips and serves the
// inbox on the address it prints, which lists their four seats with their
// arguments; it stops when its context ends.
func TestIntegrationServe(t *testing.T) {
	srv := testsuite.DevServerFor(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- execute(ctx, config{address: srv.Address(), namespace: srv.Namespace(), command: "serve", listen: "127.0.0.1:0", as: "bo"}, pw)
		pw.Close()
	}()
	lines := bufio.NewScanner(pr)
	var base string
	for base == "" && lines.Scan() {
		if rest, ok := strings.CutPrefix(lines.Text(), "inbox on "); ok {
			base, _, _ = strings.Cut(rest, " ")
		}
	}
	require.NotEmpty(t, base, "serve printed where the inbox is")
	go func() {
		for lines.Scan() {
		}
	}()
	var page string
	require.Eventually(t, func() bool {
		resp, err := http.Get(base)
		if err != nil {
			return false
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		page = string(b)
		return err == nil && strings.Contains(page, "AF1") && strings.Contains(page, "12C")
	}, time.Minute, 100*time.Millisecond, "the inbox lists the trips' seats")
	require.Contains(t, page, "Signed in as <strong id=\"principal\">bo</strong>")
	cancel()
	require.NoError(t, <-done)
}

// TestUnitTripInTheKitTestEnvironment runs Trip in the SDK's test
// environment with the sample's kit: ana's signed approval of the first
// seat and denial of the second, one call each, with the call and digest
// the run lists, checked by the sample's own Verifier.
func TestUnitTripInTheKitTestEnvironment(t *testing.T) {
	opts, err := KitOptions()
	require.NoError(t, err)
	var suite sdktestsuite.WorkflowTestSuite
	env, err := testsuite.NewKitTestEnvironment(&suite, opts)
	require.NoError(t, err)
	env.RegisterWorkflow(Trip)
	env.RegisterActivity(BookSeat)
	ana, err := DemoSigner("ana")
	require.NoError(t, err)
	env.Signers = []*approvals.Signer{ana}

	env.Approve(t, time.Minute, "approval-1", "ana")
	env.Deny(t, time.Minute, "approval-2", "ana", "one seat is enough")
	env.ExecuteWorkflow(Trip, []Seat{{"LH454", "12A"}, {"LH454", "12B"}})
	require.NoError(t, env.GetWorkflowError())
	var out []string
	require.NoError(t, env.GetWorkflowResult(&out))
	assert.Equal(t, []string{"LH454/12A booked", "LH454/12B not booked: approval denied: BookSeat approval-2 by ana: one seat is enough"}, out)
}

func TestUnitBadFlagsAreClearErrors(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"extra"}, `unknown command "extra"`},
		{[]string{"list"}, "list needs -address"},
		{[]string{"-address", "localhost:7233", "approve"}, "-workflow is empty"},
		{[]string{"run", "more"}, `unexpected argument "more"`},
		{[]string{"serve", "more"}, `unexpected argument "more"`},
	}
	for _, tt := range tests {
		var stdout, stderr bytes.Buffer
		assert.Equal(t, 2, run(tt.args, &stdout, &stderr), tt.args)
		assert.Contains(t, stderr.String(), tt.want, tt.args)
	}
}
