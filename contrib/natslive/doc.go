// Package natslive is a live.Hub on NATS JetStream, for a fleet: the
// workers that run an agent publish its live stream to NATS, and the web
// process that serves a person's screen (live.NewHandler) is another
// process, which reads it there.
//
//	nc, _ := nats.Connect(url)
//	js, _ := jetstream.New(nc)
//	hub, err := natslive.New(ctx, js, natslive.Options{})
//	obs, _ := live.NewObserver(hub, live.Options{})           // on each worker
//	h, _ := live.NewHandler(hub, live.HandlerOptions{Authorize: mayWatch}) // in the web process
//
// It is a module of its own, so that the core module does not depend on
// nats.go.
//
// # Subjects and retention
//
// One JetStream stream (Options.Stream, TEMPORALADK_LIVE) holds every live
// stream, file-backed, with limits retention: each live stream's events
// are published on <Options.Subjects>.<its name in unpadded base64url>
// (temporaladk.live.bGl2ZS0x for "live-1"), one message per live.Event,
// its JSON, with the event's ID as Nats-Msg-Id. What is kept: every event
// for Options.MaxAge (24 hours), at most Options.MaxEventsPerStream of one
// live stream (100,000) and Options.MaxBytes in all (1 GiB); the oldest go
// first. A screen that joins in the middle of a call reads the live
// stream from its first held event: the call's text so far, then the live
// events. New makes the stream if it is missing and refuses one that
// exists with other settings, naming them: the processes of a fleet give
// the same Options.
//
// # Many publishers, each event once
//
// The workflow's events come from the worker that runs its workflow task,
// an attempt's text from the worker that runs the attempt, and a worker
// that takes a workflow over may publish an event again (a retry's
// attempt, an event published before it was acknowledged). Event IDs come
// from history (package live, IDs), so a republish is the same event: the
// server drops it within Options.Duplicates, and every subscription reads
// through a live.Filter, which drops the rest and the text of superseded
// attempts and ended calls. Each subscriber decides the same, since it
// reads the events in the order the stream holds them.
//
// # Best effort
//
// Publish waits for the server's acknowledgement at most
// Options.Timeout (2 seconds), and fails at once while the connection is
// down; the live.Observer publishes from a
// goroutine of its own and drops what it cannot, so a NATS that is down
// never fails, slows or retries a call. A subscription's Events closes
// when NATS goes away, and Subscribe fails while it is away: the handler
// answers 503 and a screen says the live view is unavailable. An event
// larger than the server's max_payload (1 MB by default) is not published:
// the observer counts it dropped.
package natslive
