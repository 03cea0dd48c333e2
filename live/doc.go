// Package live streams what an agent's workflow does to a person's screen
// as it happens: each MODEL attempt's text as the model writes it, marked
// partial until the call's final event says what history recorded, outside
// history (no Signal, Update, Query or marker), best effort by contract.
//
//	hub, _ := live.NewMemoryHub(live.MemoryOptions{})
//	obs, _ := live.NewObserver(hub, live.Options{})
//	defer obs.Close()
//	plugin, _ := interceptors.NewPlugin(interceptors.Options{Observer: obs})
//	h, _ := live.NewHandler(hub, live.HandlerOptions{Authorize: mayWatch})
//	http.Handle("/live", h) // GET /live?stream=<root workflow ID>
//
// A provider activity reports its deltas with providers.ReportText; the
// kit's activity interceptor hands them to the Observer (observe TextDelta).
//
// # Streams and events
//
// A stream holds one workflow's events: its continue-as-new chain and its
// children, named by Options.Stream (default: the root workflow ID). Each
// Event carries the workflow, the run, the call (observe.Call Seq, and the
// activity ID on the attempt's side) and the attempt. A call gives Planned;
// each attempt a Reset first (a screen drops the text of the attempts
// before), then its Deltas; the call a Final, whose Output is the result's
// payload as history recorded it. Approvals and charges give
// ApprovalAsked, ApprovalDecided and Charged. Workflow-side events are
// published only outside replay (the observe seam's rule).
//
// # IDs
//
// An event's ID is made of history's coordinates, never a clock or a
// counter of the process: run/c3/planned, run/c3/a2 (attempt 2's reset),
// run/c3/a2/7 (its seventh delta), run/c3/final; run/approval-1/asked,
// run/call-1/charged/2. A worker that takes a workflow over and publishes
// an event again publishes the same ID, and the hub drops it; a delta of
// an attempt after a later attempt's reset, or of a call after its final,
// is dropped as stale (the handler ignores the latter too, whatever hub
// delivered it).
//
// # Best effort
//
// The Observer never waits: it queues at most Options.Buffer events (1024)
// for one goroutine that publishes them; beyond, an event is dropped,
// counted (MetricDropped, Observer.Dropped) and said once in the log. A
// hub that fails is counted the same way. No call fails, slows or retries
// because of a stream: history is what a screen ends on.
//
// # Hubs
//
// MemoryHub (below) keeps the streams in one process: a sample streams
// with nothing else installed. For a fleet, where the web process that
// serves a screen is not the worker that runs the model, contrib/natslive
// keeps them in NATS JetStream. Both decide which events a screen is shown
// by one rule, Filter: a MemoryHub when an event is published, a hub of
// many publishers when a subscriber reads.
//
// # MemoryHub
//
// The hub in one process. Bounds (MemoryOptions): 4096 events per stream
// (over it, the stream is compacted: the deltas of ended calls and dead
// attempts go, each open attempt's deltas merge into one, so that a late
// subscriber still gets every open call's text so far, then live events;
// then the oldest go); 1024 streams (the least recently published one goes
// first); a subscriber 1024 live events behind is closed, never waited
// for. Dedup remembers what the stream holds.
//
// # Serving: the AI SDK's UI message stream
//
// NewHandler serves a stream over Server-Sent Events with the header
// x-vercel-ai-ui-message-stream: v1, one JSON part per event: start; per
// MODEL attempt text-start, text-delta, text-end (reasoning-start,
// reasoning-delta, reasoning-end), its part ID run/c3/a2; tool calls as
// tool-input-available and tool-output-available (or tool-output-error);
// data-temporaladk-approval (one part per approval, updated in place by its
// ID) and data-temporaladk-budget; finish and [DONE] after a MODEL call
// completes: one response is one assistant message. A dead attempt's text
// part ends with providerMetadata {"temporaladk":{"superseded":true}},
// followed by data-temporaladk-reset: a screen drops superseded parts. The
// final completes the text part to the recorded reply (the result when it
// is a JSON string; the "text" field of an object result, as
// contrib/openai's and contrib/anthropic's Result), or, when what
// streamed is not a prefix of it (a dropped delta), supersedes it with a
// part holding the whole result: the text of the parts not superseded is
// history's, byte for byte.
//
// Every part has an SSE id, offset-part; a request with Last-Event-ID (or
// the query parameter LastEventIDParam) gets the parts after it, nothing
// lost and nothing repeated, while the hub holds the stream exactly since
// then (Subscription.Exact); beyond that the message starts over with a
// data-temporaladk-resync part. After a finish, the same resume gets the
// next message. HandlerOptions.Authorize is required: a request it
// refuses gets 403.
//
// The protocol is checked with the AI SDK's own client: the live tests run
// the `ai` package (pinned in testdata/aisdk) in Node.js over a run on the
// dev server, whole and cut off mid-stream then resumed with Last-Event-ID
// (the same message at every cut point).
//
// # The page
//
// NewPage serves a page a person watches a stream on: standard library
// only, one HTML document whose script (inline, allowed by its
// Content-Security-Policy's hash) opens the handler's URL,
// PageOptions.Events, with EventSource and ?stream=<id>. The handler ends
// its response at each finish; the page opens the next message's at once,
// its resume point in the query parameter LastEventIDParam, since a new
// EventSource sends no Last-Event-ID. Mount it beside the handler:
//
//	page, _ := live.NewPage(live.PageOptions{Events: "/live", Inbox: "/approvals/"})
//	http.Handle("/watch", page) // GET /watch?stream=<root workflow ID>
//
// It shows each message as it streams (article.message, class streaming,
// then done); each text part (.text[data-part], its text in .body,
// written with text nodes, never as HTML) class partial with a label until
// its final, then done; a superseded part is dropped from the screen at
// its data-temporaladk-reset, the retry said (.note.retry); reasoning
// (.reasoning); tool calls (.tool[data-tool-call], data-state
// input-available, output-available or output-error, with the output or
// the error); approvals (.approval[data-approval], data-status waiting,
// then granted, rejected or expired), a waiting one with a link
// (a.decide) to PageOptions.Inbox, where a person decides, signed: the
// page decides nothing; and budgets as meters (#budgets .budget). When the
// stream is refused or lost, #notice says the live view is unavailable and
// that the workflow's history remains the truth (#status says
// connecting, live, reconnecting or unavailable). The text of the parts not
// superseded ends equal to what history recorded. The page holds no
// event: Authorize guards the stream. contrib/inboxbrowser tests the page
// in headless Chromium; go run ./samples/live serves it over a run.
//
// # Not yet
//
// The tool-input-available part carries no input: the seam does not hand
// the call's arguments over.
//
// ARCHITECTURE.md shows where the events come from; BENCHMARKS.md ("Live
// streams") what streaming costs, from bench_test.go here and in
// contrib/natslive.
package live
