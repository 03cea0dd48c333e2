package natslive

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/temporaladk/adk-go/live"
)

// The defaults of Options.
const (
	// DefaultStream is the JetStream stream the hub keeps its events in.
	DefaultStream = "TEMPORALADK_LIVE"
	// DefaultSubjects is the subject prefix: a live stream's events are
	// published on <prefix>.<the stream's name, base64url>.
	DefaultSubjects = "temporaladk.live"
	// DefaultMaxAge is how long an event is kept.
	DefaultMaxAge = 24 * time.Hour
	// DefaultMaxEventsPerStream is how many events of one live stream are
	// kept (JetStream's MaxMsgsPerSubject).
	DefaultMaxEventsPerStream = 100_000
	// DefaultMaxBytes bounds the JetStream stream as a whole.
	DefaultMaxBytes = 1 << 30
	// DefaultDuplicates is the window in which the server drops an event
	// published twice (JetStream's own default).
	DefaultDuplicates = 2 * time.Minute
	// DefaultTimeout bounds each request to the server.
	DefaultTimeout = 2 * time.Second
)

// Options configure a Hub. Every process of a fleet gives the same ones:
// New refuses options that differ from the JetStream stream's.
type Options struct {
	// Stream is the JetStream stream's name. If not set, DefaultStream.
	Stream string
	// Subjects is the subject prefix. If not set, DefaultSubjects.
	Subjects string
	// MaxAge is how long an event is kept. If not set, DefaultMaxAge.
	MaxAge time.Duration
	// MaxEventsPerStream is how many events of one live stream are kept;
	// the oldest go first. A screen that joins a call gets its text so
	// far only if the call's events are within it. If not set,
	// DefaultMaxEventsPerStream.
	MaxEventsPerStream int64
	// MaxBytes bounds the JetStream stream; the oldest events go first.
	// If not set, DefaultMaxBytes.
	MaxBytes int64
	// Duplicates is the server's window for dropping an event published
	// twice. A republish after it is still shown once: subscribers filter
	// (live.Filter). If not set, DefaultDuplicates.
	Duplicates time.Duration
	// Timeout bounds each request to the server: a Publish (a hub that
	// does not answer in it fails the Publish, and the observer counts the
	// event dropped) and what a Subscribe asks before it returns. If not
	// set, DefaultTimeout.
	Timeout time.Duration
}

// name is what a JetStream stream's name may be; subject what a subject
// prefix may be (tokens of letters, digits, - and _, joined by dots).
var (
	name    = regexp.MustCompile(`^[A-Za-z0-9_-]+$`)
	subject = regexp.MustCompile(`^[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*$`)
)

// withDefaults returns opts with every unset field at its default, or an
// error naming the first field that is wrong.
func (opts Options) withDefaults() (Options, error) {
	if opts.Stream == "" {
		opts.Stream = DefaultStream
	}
	if !name.MatchString(opts.Stream) {
		return opts, fmt.Errorf("natslive: Options.Stream %q is not a JetStream stream name (letters, digits, - and _)", opts.Stream)
	}
	if opts.Subjects == "" {
		opts.Subjects = DefaultSubjects
	}
	if !subject.MatchString(opts.Subjects) {
		return opts, fmt.Errorf("natslive: Options.Subjects %q is not a subject prefix (tokens of letters, digits, - and _, joined by dots; no wildcard)", opts.Subjects)
	}
	for _, f := range []struct {
		field string
		v     *int64
		def   int64
	}{{"MaxEventsPerStream", &opts.MaxEventsPerStream, DefaultMaxEventsPerStream}, {"MaxBytes", &opts.MaxBytes, DefaultMaxBytes}} {
		if *f.v < 0 {
			return opts, fmt.Errorf("natslive: Options.%s is %d: it must not be negative (0 is the default, %d)", f.field, *f.v, f.def)
		}
		if *f.v == 0 {
			*f.v = f.def
		}
	}
	for _, f := range []struct {
		field string
		v     *time.Duration
		def   time.Duration
	}{{"MaxAge", &opts.MaxAge, DefaultMaxAge}, {"Duplicates", &opts.Duplicates, DefaultDuplicates}, {"Timeout", &opts.Timeout, DefaultTimeout}} {
		if *f.v < 0 {
			return opts, fmt.Errorf("natslive: Options.%s is %s: it must not be negative (0 is the default, %s)", f.field, *f.v, f.def)
		}
		if *f.v == 0 {
			*f.v = f.def
		}
	}
	if opts.Duplicates > opts.MaxAge {
		return opts, fmt.Errorf("natslive: Options.Duplicates %s is longer than Options.MaxAge %s: JetStream refuses a window longer than the events are kept", opts.Duplicates, opts.MaxAge)
	}
	return opts, nil
}

// config is the JetStream stream opts ask for.
func (opts Options) config() jetstream.StreamConfig {
	return jetstream.StreamConfig{
		Name:              opts.Stream,
		Description:       "temporaladk live streams: an agent's events, outside history (contrib/natslive)",
		Subjects:          []string{opts.Subjects + ".>"},
		Retention:         jetstream.LimitsPolicy,
		Discard:           jetstream.DiscardOld,
		Storage:           jetstream.FileStorage,
		MaxAge:            opts.MaxAge,
		MaxMsgsPerSubject: opts.MaxEventsPerStream,
		MaxBytes:          opts.MaxBytes,
		Duplicates:        opts.Duplicates,
	}
}

// mismatch names each setting of the stream's config that differs from
// want's.
func mismatch(have, want jetstream.StreamConfig) []string {
	var out []string
	add := func(field string, h, w any) {
		if fmt.Sprint(h) != fmt.Sprint(w) {
			out = append(out, fmt.Sprintf("%s is %v, the Options ask %v", field, h, w))
		}
	}
	add("Subjects", have.Subjects, want.Subjects)
	add("Retention", have.Retention, want.Retention)
	add("Discard", have.Discard, want.Discard)
	add("Storage", have.Storage, want.Storage)
	add("MaxAge", have.MaxAge, want.MaxAge)
	add("MaxMsgsPerSubject (Options.MaxEventsPerStream)", have.MaxMsgsPerSubject, want.MaxMsgsPerSubject)
	add("MaxBytes", have.MaxBytes, want.MaxBytes)
	add("Duplicates", have.Duplicates, want.Duplicates)
	return out
}

// Hub is a live.Hub on NATS JetStream (see the package doc).
type Hub struct {
	opts   Options
	stream jetstream.Stream
	js     jetstream.JetStream
}

var _ live.Hub = (*Hub)(nil)

// New returns a Hub on js with opts: it makes the JetStream stream if it is
// missing, and refuses, naming each setting, one that exists with other
// settings than opts ask (a fleet whose processes were given different
// Options). A nil js, or a bad option, is an error naming it.
func New(ctx context.Context, js jetstream.JetStream, opts Options) (*Hub, error) {
	if ctx == nil {
		return nil, errors.New("natslive: New: ctx is nil")
	}
	if js == nil {
		return nil, errors.New("natslive: New: js is nil: give it jetstream.New(nc) of a connection to the fleet's NATS")
	}
	opts, err := opts.withDefaults()
	if err != nil {
		return nil, err
	}
	want := opts.config()
	s, err := js.Stream(ctx, opts.Stream)
	if errors.Is(err, jetstream.ErrStreamNotFound) {
		s, err = js.CreateStream(ctx, want)
		if errors.Is(err, jetstream.ErrStreamNameAlreadyInUse) {
			// Another process of the fleet made it first.
			s, err = js.Stream(ctx, opts.Stream)
		}
	}
	if err != nil {
		return nil, fmt.Errorf("natslive: New: JetStream stream %s: %w", opts.Stream, err)
	}
	if diff := mismatch(s.CachedInfo().Config, want); len(diff) > 0 {
		return nil, fmt.Errorf("natslive: New: JetStream stream %s exists with other settings than these Options: %s; every process of a fleet gives the same Options (or change the stream with the nats CLI first)",
			opts.Stream, strings.Join(diff, "; "))
	}
	return &Hub{opts: opts, stream: s, js: js}, nil
}

// Subject is the subject the events of the live stream named stream are
// published on: the prefix, then the name in unpadded base64url, so that
// any workflow ID is one subject token.
func (h *Hub) Subject(stream string) string {
	return h.opts.Subjects + "." + base64.RawURLEncoding.EncodeToString([]byte(stream))
}

// Publish adds e to its stream (see live.Hub): one JetStream message of the
// event's JSON on Subject(e.Stream), whose Nats-Msg-Id is the event's ID,
// so that the server drops a republish within Options.Duplicates. It waits
// for the server's acknowledgement at most Options.Timeout, and fails at
// once while the connection is down.
func (h *Hub) Publish(ctx context.Context, e live.Event) error {
	if err := e.Check(); err != nil {
		return err
	}
	if nc := h.js.Conn(); !nc.IsConnected() {
		// Fails at once: a publish would wait out its Timeout for a
		// server that is not there, and the observer's queue behind it.
		return fmt.Errorf("natslive: publishing event %s: the connection to NATS is %s", e.ID, nc.Status())
	}
	e.Offset = 0
	body, err := json.Marshal(e)
	if err != nil {
		return fmt.Errorf("natslive: event %s: %w", e.ID, err)
	}
	ctx, cancel := context.WithTimeout(ctx, h.opts.Timeout)
	defer cancel()
	subj := h.Subject(e.Stream)
	if _, err := h.js.Publish(ctx, subj, body, jetstream.WithMsgID(subj+"/"+e.ID)); err != nil {
		return fmt.Errorf("natslive: publishing event %s (%d bytes) on %s: %w", e.ID, len(body), subj, err)
	}
	return nil
}

// consumerInactive is how long the server keeps a subscription's consumer
// after its last request, when the process that made it went without
// deleting it: longer than the consumer's own pull requests last (30
// seconds), so that a live subscription's is never taken.
const consumerInactive = time.Minute

// deleteConsumer deletes the server's consumer of an ended subscription
// before its Events closes, waiting at most Options.Timeout; one it cannot
// delete (NATS is away) goes after consumerInactive.
func (h *Hub) deleteConsumer(cons jetstream.Consumer) {
	info := cons.CachedInfo()
	if info == nil || !h.js.Conn().IsConnected() {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), h.opts.Timeout)
	defer cancel()
	_ = h.stream.DeleteConsumer(ctx, info.Name)
}

// subscriberBuffer is how many events a subscription reads ahead of its
// subscriber; the server holds the rest, so a slow subscriber is never
// closed for it.
const subscriberBuffer = 64

// Subscribe returns the events of stream the JetStream stream holds, oldest
// first, then the live ones (see live.Hub), through a live.Filter: each
// event once, stale text dropped, whichever process published it. Offsets
// are JetStream's stream sequences. Exact is the sequence before the
// stream's first held event: retention removes a live stream's oldest
// events only, so the held ones after it are every event as published. If
// events go between this call and the first one read, Events is closed at
// once (the subscriber subscribes again, and Exact says so), and when a
// subscriber that had read every held event falls a whole
// Options.MaxEventsPerStream behind, before retention removes an event it
// has not read, as a MemoryHub closes a slow subscriber; it is closed too
// when ctx ends or NATS goes away. The first read of a stream that holds a
// whole window is not closed for it: a screen that joins a long call reads
// the held events as fast as they come.
func (h *Hub) Subscribe(ctx context.Context, stream string) (live.Subscription, error) {
	if ctx == nil {
		return live.Subscription{}, errors.New("natslive: Subscribe: ctx is nil")
	}
	if stream == "" {
		return live.Subscription{}, errors.New("natslive: Subscribe: the stream name is empty")
	}
	if nc := h.js.Conn(); !nc.IsConnected() {
		return live.Subscription{}, fmt.Errorf("natslive: Subscribe %s: the connection to NATS is %s", stream, nc.Status())
	}
	subj := h.Subject(stream)
	// What is asked before the subscription returns is bounded; the
	// subscription lives as long as ctx.
	ask, cancel := context.WithTimeout(ctx, h.opts.Timeout)
	defer cancel()
	var exact, first uint64
	msg, err := h.stream.GetMsg(ask, 1, jetstream.WithGetMsgSubject(subj))
	switch {
	case errors.Is(err, jetstream.ErrMsgNotFound):
		// Nothing of this stream is held: whatever it had is gone.
		info, err := h.stream.Info(ask)
		if err != nil {
			return live.Subscription{}, fmt.Errorf("natslive: Subscribe %s: %w", stream, err)
		}
		exact = info.State.LastSeq
	case err != nil:
		return live.Subscription{}, fmt.Errorf("natslive: Subscribe %s: %w", stream, err)
	default:
		first = msg.Sequence
		exact = first - 1
	}
	cons, err := h.stream.OrderedConsumer(ask, jetstream.OrderedConsumerConfig{
		FilterSubjects:    []string{subj},
		DeliverPolicy:     jetstream.DeliverByStartSequencePolicy,
		OptStartSeq:       exact + 1,
		InactiveThreshold: consumerInactive,
	})
	if err != nil {
		return live.Subscription{}, fmt.Errorf("natslive: Subscribe %s: %w", stream, err)
	}
	// The consumer fetches at most subscriberBuffer events ahead of the
	// subscriber, so that NumPending says how far behind it is.
	msgs, err := cons.Messages(jetstream.PullMaxMessages(subscriberBuffer))
	if err != nil {
		return live.Subscription{}, fmt.Errorf("natslive: Subscribe %s: %w", stream, err)
	}
	ch := make(chan live.Event, subscriberBuffer)
	stop := make(chan struct{})
	// The subscription ends with ctx, or when the connection is lost: the
	// consumer would wait for it without a word, and a screen would show a
	// live view that is not.
	nc := h.js.Conn()
	lost := nc.StatusChanged(nats.DISCONNECTED, nats.RECONNECTING, nats.CLOSED)
	go func() {
		defer nc.RemoveStatusListener(lost)
		select {
		case <-ctx.Done():
		case <-lost:
		case <-stop:
		}
		msgs.Stop()
	}()
	if !nc.IsConnected() {
		// Lost before the listener was there.
		msgs.Stop()
	}
	go func() {
		// The server keeps a consumer until it is deleted or inactive for
		// consumerInactive: each one a subscription leaves would weigh on
		// every later request to the stream.
		defer close(ch)
		defer h.deleteConsumer(cons)
		defer close(stop)
		defer msgs.Stop()
		filter := live.NewFilter()
		read, caughtUp := false, false
		for {
			m, err := msgs.Next()
			if err != nil {
				return
			}
			meta, err := m.Metadata()
			if err != nil {
				return
			}
			seq := meta.Sequence.Stream
			if !read && first > 0 && seq != first {
				// Retention removed events after Exact was read.
				return
			}
			if meta.NumPending == 0 {
				caughtUp = true
			} else if caughtUp && meta.NumPending+1 >= uint64(h.opts.MaxEventsPerStream) {
				// The subscriber fell a whole window behind: the next
				// publish may remove an event it has not read. It resumes
				// by subscribing again, and Exact says what went.
				return
			}
			read = true
			var e live.Event
			if json.Unmarshal(m.Data(), &e) != nil || e.Check() != nil || e.Stream != stream {
				// Not an event of this package's: no screen is shown it.
				continue
			}
			if !filter.Admit(e) {
				continue
			}
			e.Offset = seq
			select {
			case ch <- e:
			case <-ctx.Done():
				return
			}
		}
	}()
	return live.Subscription{Events: ch, Exact: exact}, nil
}
