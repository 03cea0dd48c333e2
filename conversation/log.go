package conversation

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strconv"

	"go.temporal.io/sdk/workflow"

	"github.com/temporaladk/adk-go/internal/budget"
	"github.com/temporaladk/adk-go/internal/logref"
)

// Log is an append-only conversation (messages, tool calls, tool outputs:
// any M that encoding/json encodes) that a workflow hands to its model
// calls by reference. Give the kit's payload store to every client and
// worker (payloads.Store.ClientOptions): when the store's DataConverter
// encodes a Log (an activity's or child's argument, a continue-as-new
// input, nested in a struct's exported fields or not), it writes the
// messages appended since the Log was last encoded into the store, and the
// encoding names the conversation by the hash of its last segment and
// carries nothing else. So scheduling a model call with the whole
// conversation costs what the turn added, not the conversation, and history
// holds about 200 bytes per call. The activity reads the whole
// conversation with Messages, from the store, each segment checked against
// its hash and the decoded conversation kept in the store's cache.
//
// Without the store a Log encodes what it appended inline, as a slice of
// the messages would: nothing is lost, nothing is saved. A Log decoded
// from a store names it, and a reader without that store gets an error
// naming it from Messages. Use a plain slice for a conversation short
// enough to be inline (a few KB); a Log when a run re-sends a conversation
// that grows every turn.
//
// A sub-agent (a child workflow given the Log) gets the conversation by
// reference too, on a worker of its own if it runs elsewhere, and writes
// only what it appends. Its appends branch from the conversation as it was
// when the child started: the parent's Log does not see them, and a Log
// the child returns holds both, the parent's messages then the child's.
//
// A Log is workflow state: Append in workflow code, read in activities. Use
// it as a pointer (*Log[M]); it is not safe for concurrent use.
type Log[M any] struct {
	store     logref.Store
	storeName string
	head      [32]byte
	n         int
	size      int64
	pending   []segment
	// handedOver is the head as this Log last handed it over (HandOver), zero
	// if it never did: a segment this Log knows its store has, unless
	// something removed it since.
	handedOver [32]byte
}

// segment is one Append's messages as stored: its bytes and their SHA-256.
type segment struct {
	id   [32]byte
	data []byte
}

// segmentJSON is a segment's bytes: the version, the ID of the segment
// before it ("" for the first) and the messages.
type segmentJSON struct {
	V    int               `json:"v"`
	Prev string            `json:"prev"`
	Msgs []json.RawMessage `json:"msgs"`
}

// encode is json.Marshal(s), written out: each message is encoding/json's
// own output, compact and escaped, which json.Marshal would validate and
// compact again as a json.RawMessage to the same bytes, at twice the cost
// of the segment (a takeover's replay appends every segment of the run
// again). A segment's ID is the hash of these bytes, so they stay byte for
// byte what json.Marshal writes (TestSegmentEncodeIsJSONMarshal).
func (s segmentJSON) encode() []byte {
	n := len(`{"v":,"prev":"","msgs":[]}`) + 20 + len(s.Prev) + len(s.Msgs)
	for _, m := range s.Msgs {
		n += len(m)
	}
	b := make([]byte, 0, n)
	b = append(b, `{"v":`...)
	b = strconv.AppendInt(b, int64(s.V), 10)
	b = append(b, `,"prev":"`...)
	b = append(b, s.Prev...)
	b = append(b, `","msgs":[`...)
	for i, m := range s.Msgs {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, m...)
	}
	return append(b, "]}"...)
}

// logJSON is a Log's encoding.
type logJSON struct {
	V       int               `json:"temporaladkLog"`
	Store   string            `json:"store,omitempty"`
	Head    string            `json:"head,omitempty"`
	Len     int               `json:"len"`
	Bytes   int64             `json:"bytes"`
	Pending []json.RawMessage `json:"pending,omitempty"`
}

// NewLog returns an empty conversation.
func NewLog[M any]() *Log[M] { return &Log[M]{} }

// Append adds msgs to the conversation as one segment. Each message is
// encoded with encoding/json now, so a message that cannot be is an error
// here, naming it, and the Log is unchanged. The bytes appended count
// toward ShouldContinueAsNew's replay limit (WithReplayByteLimit), since a
// replay of the run appends them again. A nil ctx is an error; a call
// without messages does nothing.
func (l *Log[M]) Append(ctx workflow.Context, msgs ...M) error {
	if ctx == nil {
		return errors.New("conversation: Log.Append: ctx is nil: pass the workflow's context")
	}
	if len(msgs) == 0 {
		return nil
	}
	seg := segmentJSON{V: logref.Version, Msgs: make([]json.RawMessage, len(msgs))}
	if l.n > 0 {
		seg.Prev = hex.EncodeToString(l.head[:])
	}
	for i, m := range msgs {
		raw, err := json.Marshal(m)
		if err != nil {
			return fmt.Errorf("conversation: Log.Append: message %d cannot be encoded: %w", i, err)
		}
		seg.Msgs[i] = raw
	}
	data := seg.encode()
	id := sha256.Sum256(data)
	l.pending = append(l.pending, segment{id: id, data: data})
	l.head, l.n, l.size = id, l.n+len(msgs), l.size+int64(len(data))
	if chain := budget.ChainFrom(ctx); chain != nil {
		chain.CountAppended(int64(len(data)))
	}
	return nil
}

// Len is the number of messages in the conversation.
func (l *Log[M]) Len() int { return l.n }

// Bytes is the size of the conversation's segments, as a store holds them:
// the messages' JSON and about 90 bytes per Append.
func (l *Log[M]) Bytes() int64 { return l.size }

// Head names the conversation: the SHA-256 of its last segment, in hex, or
// "" while it is empty. Two Logs with the same head hold the same messages.
func (l *Log[M]) Head() string {
	if l.n == 0 {
		return ""
	}
	return hex.EncodeToString(l.head[:])
}

// Store is the name of the payload store that holds the Log's messages, or
// "" while none does.
func (l *Log[M]) Store() string { return l.storeName }

// Messages returns the whole conversation, oldest first. It reads what the
// Log does not carry from the store it was decoded with, every segment
// checked against its hash, and keeps the decoded conversation in the
// store's cache, so that the next turn's call decodes only what that turn
// added (a conversation larger than payloads.Options.CacheBytes is read
// and decoded whole on every call). The slice is the caller's; the
// messages' own slices and maps are shared with the cache and must not be
// changed. A Log whose messages are in a store that this reader does not
// have is an error naming the store.
func (l *Log[M]) Messages(ctx context.Context) ([]M, error) {
	if l.n == 0 {
		return nil, nil
	}
	t := reflect.TypeFor[M]()
	var cache *logref.Cache
	if l.store != nil {
		cache = l.store.Decoded()
		if v, ok := cache.Get(t, l.head); ok {
			return append([]M(nil), v.([]M)...), nil
		}
	}
	inline := make(map[[32]byte][]byte, len(l.pending))
	for _, s := range l.pending {
		inline[s.id] = s.data
	}
	var segs []segmentJSON // newest first
	var prefix []M
	for id, first := l.head, true; id != ([32]byte{}); first = false {
		if cache != nil && !first {
			if v, ok := cache.Get(t, id); ok {
				prefix = v.([]M)
				break
			}
		}
		data, ok := inline[id]
		if !ok {
			if l.store == nil {
				return nil, l.noStore()
			}
			var err error
			if data, err = l.store.GetSegment(ctx, id); err != nil {
				return nil, fmt.Errorf("conversation: Log.Messages: %w", err)
			}
		}
		var seg segmentJSON
		if err := json.Unmarshal(data, &seg); err != nil || seg.V != logref.Version {
			return nil, fmt.Errorf("conversation: Log.Messages: segment %x is not a version %d segment: %v", id, logref.Version, err)
		}
		segs = append(segs, seg)
		prev, err := logref.ParseID(seg.Prev)
		if err != nil {
			return nil, fmt.Errorf("conversation: Log.Messages: segment %x: %w", id, err)
		}
		id = prev
	}
	out := make([]M, len(prefix), l.n)
	copy(out, prefix)
	for i := len(segs) - 1; i >= 0; i-- {
		for _, raw := range segs[i].Msgs {
			var m M
			if err := json.Unmarshal(raw, &m); err != nil {
				return nil, fmt.Errorf("conversation: Log.Messages: message %d does not decode into %v: %w", len(out), t, err)
			}
			out = append(out, m)
		}
	}
	if len(out) != l.n {
		return nil, fmt.Errorf("conversation: Log.Messages: the segments hold %d messages where the Log records %d", len(out), l.n)
	}
	if cache != nil {
		cache.Put(t, l.head, out, l.size)
	}
	return append([]M(nil), out...), nil
}

// noStore is the error of a Log read without the store that holds it.
func (l *Log[M]) noStore() error {
	return fmt.Errorf("conversation: Log.Messages: the conversation's earlier messages are in the kit's payload store %q, "+
		"and this Log was decoded without it: give this client or worker that store (payloads.Store.ClientOptions)", l.storeName)
}

// HandOver writes the segments appended since the Log was last handed over
// into s and binds the Log to s. The store's DataConverter calls it before
// it encodes the Log; it is not for application code.
func (l *Log[M]) HandOver(ctx context.Context, s logref.Store) error {
	if l.storeName != "" && l.storeName != s.Name() {
		return fmt.Errorf("conversation: the Log's messages are in payload store %q, and this DataConverter writes to store %q: every client and worker of a fleet must use the same store", l.storeName, s.Name())
	}
	// A store holds a segment only after the ones before it, so the newest
	// segment it holds ends what is to write: after a takeover, whose replay
	// encoded nothing, one check finds that the worker before wrote it all.
	start := 0
	for i := len(l.pending) - 1; i >= 0; i-- {
		has, err := s.HasSegment(ctx, l.pending[i].id)
		if err != nil {
			return fmt.Errorf("conversation: handing the Log over to store %q: %w", s.Name(), err)
		}
		if has {
			start = i + 1
			break
		}
	}
	// What this Log handed over before must still be there: the encoding
	// will carry only the head, and the reader will look for every segment
	// before it in the store. A hand-over that history never recorded (a
	// Query's result) is kept by Collect only for its grace, and a Log that
	// outlives the grace in a worker's cache can find its segments gone.
	// The error fails the workflow task, and the SDK's retry replays the
	// run, whose Appends bring the segments back as pending for the next
	// hand-over to write.
	if start == 0 && l.handedOver != ([32]byte{}) {
		has, err := s.HasSegment(ctx, l.handedOver)
		if err != nil {
			return fmt.Errorf("conversation: handing the Log over to store %q: %w", s.Name(), err)
		}
		if !has {
			return fmt.Errorf("conversation: handing the Log over to store %q: segment %x, which this Log handed over before, "+
				"is no longer in the store: Collect removes what a Log handed over only where history does not record it "+
				"(a Query's result) once CollectOptions.Grace has passed; "+
				"this workflow task fails, and its retry replays the run and writes the segment again", s.Name(), l.handedOver)
		}
	}
	for i := start; i < len(l.pending); i++ {
		if err := s.PutSegment(ctx, l.pending[i].id, l.pending[i].data); err != nil {
			l.pending = l.pending[i:]
			return fmt.Errorf("conversation: handing the Log over to store %q: %w", s.Name(), err)
		}
	}
	l.pending = nil
	l.store, l.storeName = s, s.Name()
	if l.n > 0 {
		l.handedOver = l.head
	}
	return nil
}

// Bind gives a decoded Log the store it reads from. The store's
// DataConverter calls it after it decodes the Log; it is not for
// application code. A Log held by another store stays unbound, and
// Messages names the store it needs.
func (l *Log[M]) Bind(s logref.Store) {
	if l.storeName == "" || l.storeName == s.Name() {
		l.store = s
	}
}

// MarshalJSON encodes the Log as its head and length, with the segments
// appended since it was last handed over to a store: none when the store's
// DataConverter encodes it.
func (l Log[M]) MarshalJSON() ([]byte, error) {
	enc := logJSON{V: logref.Version, Store: l.storeName, Head: l.Head(), Len: l.n, Bytes: l.size}
	for _, s := range l.pending {
		enc.Pending = append(enc.Pending, s.data)
	}
	return json.Marshal(enc)
}

// UnmarshalJSON decodes what MarshalJSON encoded, checking that the
// segments it carries are the ones its head names.
func (l *Log[M]) UnmarshalJSON(data []byte) error {
	var enc logJSON
	if err := json.Unmarshal(data, &enc); err != nil {
		return fmt.Errorf("conversation: decoding a Log: %w", err)
	}
	if enc.V != logref.Version {
		return fmt.Errorf("conversation: decoding a Log: version %d, this kit reads %d", enc.V, logref.Version)
	}
	head, err := logref.ParseID(enc.Head)
	if err != nil {
		return fmt.Errorf("conversation: decoding a Log: head: %w", err)
	}
	if enc.Len < 0 || (enc.Len == 0) != (head == [32]byte{}) {
		return fmt.Errorf("conversation: decoding a Log: %d messages with head %q", enc.Len, enc.Head)
	}
	pending := make([]segment, len(enc.Pending))
	for i, raw := range enc.Pending {
		pending[i] = segment{id: sha256.Sum256(raw), data: raw}
		if i > 0 {
			var seg segmentJSON
			if err := json.Unmarshal(raw, &seg); err != nil || seg.Prev != hex.EncodeToString(pending[i-1].id[:]) {
				return fmt.Errorf("conversation: decoding a Log: segment %d does not extend segment %d", i, i-1)
			}
		}
	}
	if n := len(pending); n > 0 && pending[n-1].id != head {
		return errors.New("conversation: decoding a Log: its last segment is not its head")
	}
	if len(pending) > 0 && enc.Store == "" {
		var seg segmentJSON
		if err := json.Unmarshal(pending[0].data, &seg); err != nil || seg.Prev != "" {
			return errors.New("conversation: decoding a Log: it names no store, and its first segment extends another")
		}
	}
	*l = Log[M]{storeName: enc.Store, head: head, n: enc.Len, size: enc.Bytes, pending: pending}
	return nil
}

var _ logref.Value = (*Log[int])(nil)
