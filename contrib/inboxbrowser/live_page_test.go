package inboxbrowser_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"image/png"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	historypb "go.temporal.io/api/history/v1"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	"github.com/temporaladk/adk-go/approvals"
	"github.com/temporaladk/adk-go/interceptors"
	"github.com/temporaladk/adk-go/live"
	"github.com/temporaladk/adk-go/providers"
	"github.com/temporaladk/adk-go/temporaladk"
	"github.com/temporaladk/adk-go/testsuite"
)

// LiveScreenshotEnv names the file the live page's screenshot is written
// to (docs/live-page.png at the repository's root), when set.
const LiveScreenshotEnv = "TEMPORALADK_LIVE_SCREENSHOT"

// The activities of LiveAgent.
const (
	liveLookup = "LivePageLookup"
	liveChat   = "LivePageChat"
	liveBook   = "LivePageBook"
)

// What the stand-in model streams, token by token: the first attempt of
// the reply (which dies), the reply, and the confirmation. The replies
// hold markup, quotes, an ampersand, a tab and trailing white space, which
// a page that escaped, parsed or trimmed would show otherwise than history
// holds them. Each waits after its first Shown tokens until the test has
// read them on the page.
var (
	deadTokens    = []string{"Good", "bye, "}
	replyTokens   = []string{"Hello", ", ", "wörld", " — <b>seat", " 12A</b>", " is free & \"by the window\".\n", "\tShall I book it?  \n"}
	confirmTokens = []string{"Booked: ", "LH454 <12A>,", " window. ✓\n"}
)

const (
	replyShown   = 3
	confirmShown = 1
)

// LiveAgent looks the question up, replies, books the seat once a person
// approves, and confirms: two MODEL calls, each its own message on the
// stream, under a budget of attempts.
func LiveAgent(ctx workflow.Context, question string) ([]string, error) {
	ctx = workflow.WithActivityOptions(ctx, workflow.ActivityOptions{StartToCloseTimeout: time.Minute})
	ctx, err := temporaladk.WithBudgets(ctx, temporaladk.Budgets{Name: "agent", Attempts: 10})
	if err != nil {
		return nil, err
	}
	var hits int
	if err := workflow.ExecuteActivity(ctx, liveLookup, question).Get(ctx, &hits); err != nil {
		return nil, err
	}
	var reply, booked, confirm string
	if err := workflow.ExecuteActivity(ctx, liveChat, question).Get(ctx, &reply); err != nil {
		return nil, err
	}
	if err := workflow.ExecuteActivity(ctx, liveBook, "12A").Get(ctx, &booked); err != nil {
		return nil, err
	}
	if err := workflow.ExecuteActivity(ctx, liveChat, "confirm "+booked).Get(ctx, &confirm); err != nil {
		return nil, err
	}
	return []string{reply, confirm}, nil
}

// liveLookupActivity finds three documents.
func liveLookupActivity(context.Context, string) (int, error) { return 3, nil }

// liveBookActivity books a seat: the effectful tool a person approves.
func liveBookActivity(_ context.Context, seat string) (string, error) { return "LH454/" + seat, nil }

// liveModel is a MODEL activity that streams through providers.ReportText
// and waits, mid-stream, until the test has read the page (a channel the
// test closes): the reply's first attempt streams deadTokens and loses its
// stream once the page showed them; the second streams replyTokens; then
// the confirmation streams confirmTokens.
type liveModel struct {
	deadShown, replyShown, confirmShown chan struct{}
}

func (m *liveModel) Chat(ctx context.Context, prompt string) (string, error) {
	// stream reports tokens, waiting for shown after the first n.
	stream := func(tokens []string, n int, shown chan struct{}) error {
		for i, d := range tokens {
			if i == n {
				select {
				case <-shown:
				case <-ctx.Done():
					return ctx.Err()
				}
			}
			if _, err := providers.ReportText(ctx, providers.Text, d); err != nil {
				return err
			}
		}
		if len(tokens) == n {
			select {
			case <-shown:
			case <-ctx.Done():
				return ctx.Err()
			}
		}
		return nil
	}
	switch {
	case strings.HasPrefix(prompt, "confirm "):
		err := stream(confirmTokens, confirmShown, m.confirmShown)
		return strings.Join(confirmTokens, ""), err
	case activity.GetInfo(ctx).Attempt == 1:
		if err := stream(deadTokens, len(deadTokens), m.deadShown); err != nil {
			return "", err
		}
		return "", providers.DroppedStream("stand-in", int64(len(deadTokens)))
	}
	err := stream(replyTokens, replyShown, m.replyShown)
	return strings.Join(replyTokens, ""), err
}

// pageState is what the test reads of the live page.
type pageState struct {
	Status   string   `json:"status"`
	Notice   string   `json:"notice"`
	Messages []string `json:"messages"` // each message's text, its parts not superseded
	Done     []bool   `json:"done"`
	Partial  []struct {
		Text  string `json:"text"`
		Label string `json:"label"`
	} `json:"partial"`
	Dead      int      `json:"dead"`
	Retries   int      `json:"retries"`
	Tools     []string `json:"tools"` // data-state of each tool part
	Approvals []string `json:"approvals"`
	Decide    []string `json:"decide"` // the links to the inbox
	Meters    int      `json:"meters"`
}

// readPage is the JavaScript that reads a pageState.
const readPage = `(() => {
	const all = (s, f) => Array.from(document.querySelectorAll(s)).map(f);
	return {
		status: document.getElementById("status").dataset.state,
		notice: document.getElementById("notice").hidden ? "" : document.getElementById("notice").textContent,
		messages: all("#conversation .message", m => Array.from(m.querySelectorAll(".text:not(.superseded) > .body")).map(b => b.textContent).join("")),
		done: all("#conversation .message", m => m.classList.contains("done")),
		partial: all("#conversation .text.partial", e => ({text: e.querySelector(".body").textContent, label: e.querySelector(".label").textContent})),
		dead: document.querySelectorAll("#conversation .text.superseded").length,
		retries: document.querySelectorAll("#conversation .note.retry").length,
		tools: all("#conversation .tool", e => e.dataset.state),
		approvals: all("#conversation .approval", e => e.dataset.status),
		decide: all("#conversation .approval a.decide", a => a.href),
		meters: document.querySelectorAll("#budgets:not([hidden]) .budget meter").length,
	};
})()`

// waitPage polls the page until cond (JavaScript) holds, on each change
// of its DOM, within the test's deadline, and returns what it shows then.
func waitPage(t *testing.T, tab context.Context, what, cond string) pageState {
	t.Helper()
	if _, err := chromedp.Run(tab, chromedp.Poll[bool](cond, chromedp.WithPollingMutation(), chromedp.WithPollingTimeout(0))); err != nil {
		state, _ := chromedp.Run(context.WithoutCancel(tab), chromedp.Evaluate[pageState](readPage))
		t.Fatalf("the page never showed %s: %v; it shows %+v", what, err, state)
	}
	state, err := chromedp.Run(tab, chromedp.Evaluate[pageState](readPage))
	require.NoError(t, err)
	return state
}

// chatResults are the results history recorded for the MODEL calls, in
// order: each ActivityTaskCompleted of a liveChat, decoded.
func chatResults(t *testing.T, h *historypb.History) []string {
	t.Helper()
	chats := map[int64]bool{}
	var out []string
	for _, e := range h.GetEvents() {
		if a := e.GetActivityTaskScheduledEventAttributes(); a != nil && a.GetActivityType().GetName() == liveChat {
			chats[e.GetEventId()] = true
		}
		if a := e.GetActivityTaskCompletedEventAttributes(); a != nil && chats[a.GetScheduledEventId()] {
			var s string
			require.NoError(t, json.Unmarshal(a.GetResult().GetPayloads()[0].GetData(), &s))
			out = append(out, s)
		}
	}
	return out
}

// TestLivePageInChromium: the live page, loaded in headless Chromium from
// a server beside the stream's handler, shows an agent's run on the dev
// server as it happens: a MODEL call's first attempt streams and dies
// mid-stream, and its text goes; the retry's reply appears token by token
// while the call is still running, marked partial; the approval waits with
// a link to the inbox, and shows decided; each message ends on what
// history recorded, byte for byte, also on a page opened after the run.
// A page of a stream the hook refuses says the live view is unavailable
// and history remains the truth.
func TestLivePageInChromium(t *testing.T) {
	browser := chromium(t)
	srv := testsuite.DevServerFor(t)
	c := srv.Client()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	started := time.Now()

	team, err := testsuite.NewSigners(1, "ana")
	require.NoError(t, err)

	hub, err := live.NewMemoryHub(live.MemoryOptions{})
	require.NoError(t, err)
	obs, err := live.NewObserver(hub, live.Options{})
	require.NoError(t, err)
	defer obs.Close()
	kit, err := interceptors.NewPlugin(interceptors.Options{Observer: obs, Random: func() float64 { return 0 },
		Activities: map[string]temporaladk.Declaration{
			liveChat:   {Class: temporaladk.Model},
			liveLookup: {Class: temporaladk.Retrieval, Idempotency: temporaladk.ReadOnly},
			liveBook:   {Class: temporaladk.Tool, Idempotency: temporaladk.Effectful, RequiresApproval: true},
		},
		Approvals: approvals.WorkerOptions{Tools: map[string]approvals.Approvers{liveBook: team.Approvers}, Verifier: team.Verifier},
	})
	require.NoError(t, err)
	queue := "tq-" + t.Name()
	model := &liveModel{deadShown: make(chan struct{}), replyShown: make(chan struct{}), confirmShown: make(chan struct{})}
	w := worker.New(c, queue, worker.Options{Plugins: []worker.Plugin{kit}})
	w.RegisterWorkflow(LiveAgent)
	w.RegisterActivityWithOptions(model.Chat, activity.RegisterOptions{Name: liveChat})
	w.RegisterActivityWithOptions(liveLookupActivity, activity.RegisterOptions{Name: liveLookup})
	w.RegisterActivityWithOptions(liveBookActivity, activity.RegisterOptions{Name: liveBook})
	require.NoError(t, w.Start())
	defer w.Stop()

	id := fmt.Sprintf("live-page-%d", time.Now().UnixNano())
	events, err := live.NewHandler(hub, live.HandlerOptions{Authorize: func(_ *http.Request, stream string) error {
		if stream != id {
			return errors.New("not this workflow")
		}
		return nil
	}})
	require.NoError(t, err)
	page, err := live.NewPage(live.PageOptions{Events: "/live", Inbox: "/approvals/", Title: "Seat booking, live"})
	require.NoError(t, err)
	mux := http.NewServeMux()
	mux.Handle("/live", events)
	mux.Handle("/watch", page)
	web := httptest.NewServer(mux)
	defer web.Close()

	alloc, cancelAlloc := chromedp.NewExecAllocator(ctx, append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(browser), chromedp.NoSandbox, chromedp.DisableGPU, chromedp.WindowSize(1000, 900))...)
	defer cancelAlloc()
	tab, cancelTab := chromedp.NewContext(alloc)
	defer cancelTab()

	// The person opens the page before the agent starts.
	require.NoError(t, chromedp.Do(tab, chromedp.Navigate(web.URL+"/watch?stream="+url.QueryEscape(id))))
	waitPage(t, tab, "the stream open", `document.getElementById("status").dataset.state === "live"`)
	run, err := c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: id, TaskQueue: queue}, LiveAgent, "a window seat on LH454?")
	require.NoError(t, err)

	// The first attempt's text, partial; then its stream is lost.
	replyStreamed := strings.Join(replyTokens[:replyShown], "")
	reply, confirm := strings.Join(replyTokens, ""), strings.Join(confirmTokens, "")
	s := waitPage(t, tab, "the first attempt's text", `Array.from(document.querySelectorAll("#conversation .text.partial > .body")).some(b => b.textContent === `+jsString(strings.Join(deadTokens, ""))+`)`)
	require.Len(t, s.Partial, 1)
	assert.Equal(t, "writing…", s.Partial[0].Label, "a partial reply is labelled")
	close(model.deadShown)

	// The retry's text, token by token, while the call runs; the dead
	// attempt's text is gone from the screen.
	s = waitPage(t, tab, "the retry's partial text", `(() => {
		const texts = Array.from(document.querySelectorAll("#conversation .text > .body")).map(b => b.textContent);
		return texts.length === 1 && texts[0] === `+jsString(replyStreamed)+` && document.querySelector("#conversation .text.partial") !== null;
	})()`)
	assert.Equal(t, []string{replyStreamed}, s.Messages, "only the retry's text shows")
	require.Len(t, s.Partial, 1, "marked partial")
	assert.Equal(t, replyStreamed, s.Partial[0].Text)
	assert.Equal(t, "writing…", s.Partial[0].Label)
	assert.Zero(t, s.Dead, "no text of the dead attempt is left")
	assert.Equal(t, 1, s.Retries, "the retry is said")
	assert.Equal(t, []string{"output-available"}, s.Tools, "the retrieval's call, done")
	assert.Positive(t, s.Meters, "the budget, as a meter")
	assert.Empty(t, s.Notice)
	assert.Equal(t, []bool{false}, s.Done)
	desc, err := c.DescribeWorkflowExecution(ctx, id, "")
	require.NoError(t, err)
	var pending []string
	for _, a := range desc.GetPendingActivities() {
		pending = append(pending, fmt.Sprintf("%s attempt %d", a.GetActivityType().GetName(), a.GetAttempt()))
	}
	assert.Equal(t, []string{liveChat + " attempt 2"}, pending, "the text shows before the call ends")
	close(model.replyShown)

	// The reply ends; the booking waits for ana, with a link to the inbox,
	// in the next message: the kit tells a call's end before the next
	// call's events, so the reply finishes before the approval is asked.
	s = waitPage(t, tab, "the approval waiting and the reply done", `(() => {
		const m = document.querySelectorAll("#conversation .message");
		return m.length === 2 && m[0].classList.contains("done") && m[0].querySelector(".approval") === null &&
			m[1].querySelector('.approval[data-status="waiting"] a.decide') !== null;
	})()`)
	assert.Equal(t, []string{web.URL + "/approvals/"}, s.Decide, "the page links to the inbox, where a person decides")
	assert.Equal(t, reply, s.Messages[0])
	assert.True(t, s.Done[0], "the first message is done")
	waiting, err := approvals.WaitPending(ctx, c, id, 1)
	require.NoError(t, err)
	decision, err := team.Of("ana").Approve(waiting[0], "window seat, as asked", time.Now().Add(10*time.Minute))
	require.NoError(t, err)
	require.NoError(t, approvals.Decide(ctx, c, id, decision))

	// The confirmation streams, partial, after the approval and the booking.
	s = waitPage(t, tab, "the confirmation's partial text", `(() => {
		const p = document.querySelectorAll("#conversation .message")[1];
		const t = p && p.querySelector(".text.partial > .body");
		return t !== null && t !== undefined && t.textContent === `+jsString(strings.Join(confirmTokens[:confirmShown], ""))+`;
	})()`)
	assert.Equal(t, []string{"granted"}, s.Approvals)
	assert.Equal(t, []string{"output-available", "output-available"}, s.Tools, "the booking's call, done")
	shot, err := chromedp.Run(tab, chromedp.FullScreenshot(100))
	require.NoError(t, err)
	close(model.confirmShown)

	var result []string
	require.NoError(t, run.Get(ctx, &result))
	h, err := testsuite.WorkflowHistory(ctx, c, id, run.GetRunID())
	require.NoError(t, err)
	recorded := chatResults(t, h)
	require.Len(t, recorded, 2, "two MODEL calls completed")
	s = waitPage(t, tab, "both messages done", `(() => {
		const m = document.querySelectorAll("#conversation .message");
		return m.length === 2 && m[1].classList.contains("done");
	})()`)
	assert.Equal(t, recorded, s.Messages, "each message ends on the result history recorded, byte for byte")
	assert.Equal(t, []string{reply, confirm}, recorded, "what the stand-in returned")
	assert.Empty(t, s.Partial, "nothing left partial")
	assert.Empty(t, s.Notice, "the live view stayed up")

	img, err := png.Decode(bytes.NewReader(shot))
	require.NoError(t, err, "the screenshot is a PNG")
	require.Positive(t, img.Bounds().Dx())
	if path := os.Getenv(LiveScreenshotEnv); path != "" {
		require.NoError(t, os.WriteFile(filepath.Clean(path), shot, 0o644))
	}

	// A person who opens the page after the run ended reads the same
	// messages, from what the hub holds.
	late, cancelLate := chromedp.NewContext(tab)
	defer cancelLate()
	require.NoError(t, chromedp.Do(late, chromedp.Navigate(web.URL+"/watch?stream="+url.QueryEscape(id))))
	s = waitPage(t, late, "both messages done, late", `(() => {
		const m = document.querySelectorAll("#conversation .message");
		return m.length === 2 && m[1].classList.contains("done");
	})()`)
	assert.Equal(t, recorded, s.Messages, "a late page ends on history's results too")
	assert.Zero(t, s.Dead)

	// A page of a stream the hook refuses: the handler answers 403 and the
	// page says the live view is unavailable.
	other, cancelOther := chromedp.NewContext(tab)
	defer cancelOther()
	require.NoError(t, chromedp.Do(other, chromedp.Navigate(web.URL+"/watch?stream=someone-else")))
	s = waitPage(t, other, "the notice", `document.getElementById("status").dataset.state === "unavailable"`)
	assert.Contains(t, s.Notice, "The live view is unavailable")
	assert.Contains(t, s.Notice, "The workflow's history remains the truth")
	assert.Empty(t, s.Messages)
	t.Logf("the page followed the run in %v", time.Since(started))
}

// jsString is s as a JavaScript string literal.
func jsString(s string) string {
	b, err := json.Marshal(s)
	if err != nil {
		panic(err)
	}
	return string(b)
}
