package live_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/temporaladk/adk-go/interceptors"
	"github.com/temporaladk/adk-go/live"
	"github.com/temporaladk/adk-go/observe"
	"github.com/temporaladk/adk-go/providers"
	"github.com/temporaladk/adk-go/temporaladk"
)

// The worker gets the observer through the kit's plugin; the web process
// serves the hub. In one process they share a MemoryHub.
func Example() {
	hub, err := live.NewMemoryHub(live.MemoryOptions{})
	if err != nil {
		panic(err)
	}
	obs, err := live.NewObserver(hub, live.Options{})
	if err != nil {
		panic(err)
	}
	defer obs.Close()
	plugin, err := interceptors.NewPlugin(interceptors.Options{Observer: obs})
	if err != nil {
		panic(err)
	}
	_, err = live.NewHandler(hub, live.HandlerOptions{})
	fmt.Println(plugin.Name())
	fmt.Println(err)
	// Output:
	// temporaladk
	// live: NewHandler: HandlerOptions.Authorize is nil: it is required, it decides which streams a request may watch
}

// A call's first attempt streamed "Goodb" and died; the second streamed
// "Hel" and the call returned "Hello": the dead attempt's part is
// superseded, and the live part is completed to what history recorded.
func ExampleNewHandler() {
	hub, _ := live.NewMemoryHub(live.MemoryOptions{})
	obs, _ := live.NewObserver(hub, live.Options{})
	attempt := observe.Attempt{ActivityType: "Chat", Number: 1, Header: true, Class: temporaladk.Model, Call: 1, WorkflowID: "agent", RunID: "r1", ActivityID: "5"}
	obs.AttemptStarted(context.Background(), attempt)
	obs.TextDelta(context.Background(), attempt, observe.Delta{Kind: providers.Text, Text: "Goodb", Seq: 1})
	attempt.Number = 2
	obs.AttemptStarted(context.Background(), attempt)
	obs.TextDelta(context.Background(), attempt, observe.Delta{Kind: providers.Text, Text: "Hel", Seq: 1})
	_ = obs.Close()
	// The final, as CallEnded publishes it in workflow code.
	_ = hub.Publish(context.Background(), live.Event{ID: live.FinalID("r1", false, 1), Stream: "agent", Kind: live.Final, WorkflowID: "agent", RunID: "r1",
		Call: 1, ActivityType: "Chat", Class: temporaladk.Model, Outcome: observe.CallCompleted, Output: []byte(`"Hello"`)})

	h, _ := live.NewHandler(hub, live.HandlerOptions{Authorize: func(r *http.Request, stream string) error {
		if stream != "agent" {
			return errors.New("not this one")
		}
		return nil
	}})
	srv := httptest.NewServer(h)
	defer srv.Close()
	resp, err := http.Get(srv.URL + "?stream=agent")
	if err != nil {
		panic(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	fmt.Println(resp.Header.Get("x-vercel-ai-ui-message-stream"))
	fmt.Print(strings.ReplaceAll(string(body), "\n\n", "\n"))
	// Output:
	// v1
	// id: 2-0
	// data: {"messageId":"agent/r1/c1/a1/1","type":"start"}
	// id: 2-1
	// data: {"id":"r1/c1/a1","type":"text-start"}
	// id: 2-2
	// data: {"delta":"Goodb","id":"r1/c1/a1","type":"text-delta"}
	// id: 3-0
	// data: {"id":"r1/c1/a1","providerMetadata":{"temporaladk":{"superseded":true}},"type":"text-end"}
	// id: 3-1
	// data: {"data":{"attempt":2,"call":"r1/c1"},"id":"r1/c1","type":"data-temporaladk-reset"}
	// id: 4-0
	// data: {"id":"r1/c1/a2","type":"text-start"}
	// id: 4-1
	// data: {"delta":"Hel","id":"r1/c1/a2","type":"text-delta"}
	// id: 5-0
	// data: {"delta":"lo","id":"r1/c1/a2","type":"text-delta"}
	// id: 5-1
	// data: {"id":"r1/c1/a2","type":"text-end"}
	// id: 5-2
	// data: {"type":"finish"}
	// data: [DONE]
}

// The page is mounted beside the stream's handler, and told where that
// is; a person opens /watch?stream=<root workflow ID>. A waiting approval
// links to the approvals inbox, where the person decides.
func ExampleNewPage() {
	hub, _ := live.NewMemoryHub(live.MemoryOptions{})
	events, _ := live.NewHandler(hub, live.HandlerOptions{Authorize: func(r *http.Request, stream string) error {
		return nil // a real application checks who may watch which workflow
	}})
	page, err := live.NewPage(live.PageOptions{Events: "/live", Inbox: "/approvals/"})
	if err != nil {
		panic(err)
	}
	mux := http.NewServeMux()
	mux.Handle("/live", events)
	mux.Handle("/watch", page)
	srv := httptest.NewServer(mux)
	defer srv.Close()
	resp, err := http.Get(srv.URL + "/watch?stream=agent-1")
	if err != nil {
		panic(err)
	}
	resp.Body.Close()
	fmt.Println(resp.StatusCode, resp.Header.Get("Content-Type"))

	_, err = live.NewPage(live.PageOptions{Inbox: "/approvals/"})
	fmt.Println(err)
	// Output:
	// 200 text/html; charset=utf-8
	// live: NewPage: PageOptions.Events is empty: it is required, the URL the browser opens the stream at (where NewHandler's handler is mounted)
}
