package payloads

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	commonpb "go.temporal.io/api/common/v1"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/workflow"

	"github.com/temporaladk/adk-go/internal/logref"
)

// segmentKey is the bucket key of a conversation log's segment: a small
// index object naming the tree that holds the segment's bytes.
func segmentKey(id [32]byte) string {
	x := hex.EncodeToString(id[:])
	return logref.SegmentPrefix + x[:2] + "/" + x
}

// segmentIndex is a segment's index object: the ref of its bytes, stored
// like any payload (chunked by content, so a tool's output that is also an
// activity's stored result shares its chunks), and the segment before it,
// so that a collection follows a conversation reading index objects only.
type segmentIndex struct {
	V    int    `json:"v"`
	Root string `json:"root"`
	Size int64  `json:"size"`
	Prev string `json:"prev,omitempty"`
}

func parseSegmentIndex(b []byte) (Ref, string, error) {
	var idx segmentIndex
	if err := json.Unmarshal(b, &idx); err != nil {
		return Ref{}, "", err
	}
	if idx.V != logref.Version {
		return Ref{}, "", fmt.Errorf("version %d, this kit reads %d", idx.V, logref.Version)
	}
	root, err := hex.DecodeString(idx.Root)
	var ref Ref
	if err != nil || len(root) != len(ref.Root) || idx.Size < 0 {
		return Ref{}, "", errors.New("not a ref")
	}
	copy(ref.Root[:], root)
	ref.Size = idx.Size
	return ref, idx.Prev, nil
}

// checkSegmentIndex is readChecked's check of a segment index: it parses.
func checkSegmentIndex(b []byte) string {
	if _, _, err := parseSegmentIndex(b); err != nil {
		return "not a segment index: " + err.Error()
	}
	return ""
}

// logStore is the store as conversation.Log sees it (internal/logref).
type logStore struct{ s *Store }

func (l logStore) Name() string           { return l.s.name }
func (l logStore) Decoded() *logref.Cache { return l.s.decoded }

// HasSegment reports whether the bucket has the segment's index, written
// within PresenceWindow: an index in the bucket means its bytes are there
// too, and so is every segment before it.
func (l logStore) HasSegment(ctx context.Context, id [32]byte) (bool, error) {
	return l.s.present(ctx, segmentKey(id))
}

// PutSegment stores data (Put, which writes only the chunks and nodes the
// bucket lacks) and then its index object under id.
func (l logStore) PutSegment(ctx context.Context, id [32]byte, data []byte) error {
	if sha256.Sum256(data) != id {
		return fmt.Errorf("payloads: store %q: a segment does not hash to its ID %x", l.s.name, id)
	}
	key := segmentKey(id)
	var seg struct {
		Prev string `json:"prev"`
	}
	if err := json.Unmarshal(data, &seg); err != nil {
		return fmt.Errorf("payloads: store %q: segment %x: %w", l.s.name, id, err)
	}
	ref, err := l.s.Put(ctx, data)
	if err != nil {
		return err
	}
	idx, err := json.Marshal(segmentIndex{V: logref.Version, Root: hex.EncodeToString(ref.Root[:]), Size: ref.Size, Prev: seg.Prev})
	if err != nil {
		return err
	}
	return l.s.write(ctx, key, idx)
}

// GetSegment reads the segment id names: its index, then its bytes, which
// must hash to id.
func (l logStore) GetSegment(ctx context.Context, id [32]byte) ([]byte, error) {
	key := segmentKey(id)
	idx, err := l.s.readChecked(ctx, key, checkSegmentIndex)
	if err != nil {
		return nil, err
	}
	ref, _, _ := parseSegmentIndex(idx)
	data, err := l.s.Get(ctx, ref)
	if err != nil {
		return nil, err
	}
	if sha256.Sum256(data) != id {
		return nil, &CorruptError{Store: l.s.name, Key: key, Reason: "the segment's bytes do not hash to its name"}
	}
	return data, nil
}

// metadataLogs is the payload metadata key under which the store's
// DataConverter records the heads of the conversation logs a payload holds
// (logHeads), so that LiveRefs finds every live log in history without
// decoding a payload: the key is set outside any codec of the parent
// DataConverter, and a stored payload keeps it in its claim.
const metadataLogs = "temporaladk-logs"

// logHeads is a metadataLogs value: the store that holds the logs and their
// heads in hex.
type logHeads struct {
	Store string   `json:"store"`
	Heads []string `json:"heads"`
}

// logConverter hands every conversation log it encodes over to the store
// (its new segments written, its encoding their head), records the heads in
// the payload's metadata (metadataLogs) and binds every log it decodes to
// the store, so that the log reads its messages there. Logs are found in the
// values themselves and in their exported fields (logref.Walk); a value
// whose type holds no log costs a map read.
type logConverter struct {
	s      *Store
	parent converter.DataConverter
}

// handOver hands over the logs v holds and returns their heads.
func (c logConverter) handOver(v any) ([]string, error) {
	var heads []string
	err := logref.Walk(v, func(l logref.Value) error {
		// The SDK hands a DataConverter no context; a write is bounded by
		// the bucket's own timeouts.
		if err := l.HandOver(context.Background(), logStore{c.s}); err != nil {
			return err
		}
		if h := l.Head(); h != "" && !slices.Contains(heads, h) {
			heads = append(heads, h)
		}
		return nil
	})
	return heads, err
}

// mark records heads in p's metadata.
func (c logConverter) mark(p *commonpb.Payload, heads []string) error {
	if len(heads) == 0 {
		return nil
	}
	v, err := json.Marshal(logHeads{Store: c.s.name, Heads: heads})
	if err != nil {
		return fmt.Errorf("payloads: store %q: %w", c.s.name, err)
	}
	if p.Metadata == nil {
		p.Metadata = make(map[string][]byte)
	}
	p.Metadata[metadataLogs] = v
	return nil
}

func (c logConverter) bind(ptrs []any) {
	for _, p := range ptrs {
		_ = logref.Walk(p, func(l logref.Value) error {
			l.Bind(logStore{c.s})
			return nil
		})
	}
}

func (c logConverter) ToPayload(value any) (*commonpb.Payload, error) {
	heads, err := c.handOver(value)
	if err != nil {
		return nil, err
	}
	p, err := c.parent.ToPayload(value)
	if err != nil {
		return nil, err
	}
	return p, c.mark(p, heads)
}

func (c logConverter) ToPayloads(values ...any) (*commonpb.Payloads, error) {
	heads := make([][]string, len(values))
	for i, v := range values {
		var err error
		if heads[i], err = c.handOver(v); err != nil {
			return nil, err
		}
	}
	ps, err := c.parent.ToPayloads(values...)
	if err != nil {
		return nil, err
	}
	if len(ps.GetPayloads()) != len(values) {
		for _, h := range heads {
			if len(h) > 0 {
				return nil, fmt.Errorf("payloads: store %q: the DataConverter made %d payloads of %d values, so the conversation logs among them cannot be recorded", c.s.name, len(ps.GetPayloads()), len(values))
			}
		}
		return ps, nil
	}
	for i, p := range ps.GetPayloads() {
		if err := c.mark(p, heads[i]); err != nil {
			return nil, err
		}
	}
	return ps, nil
}

func (c logConverter) FromPayload(p *commonpb.Payload, valuePtr any) error {
	if err := c.parent.FromPayload(p, valuePtr); err != nil {
		return err
	}
	c.bind([]any{valuePtr})
	return nil
}

func (c logConverter) FromPayloads(ps *commonpb.Payloads, valuePtrs ...any) error {
	if err := c.parent.FromPayloads(ps, valuePtrs...); err != nil {
		return err
	}
	c.bind(valuePtrs)
	return nil
}

func (c logConverter) ToString(p *commonpb.Payload) string      { return c.parent.ToString(p) }
func (c logConverter) ToStrings(ps *commonpb.Payloads) []string { return c.parent.ToStrings(ps) }

// Codec is the parent's codec, which the SDK applies to headers.
func (c logConverter) Codec() converter.PayloadCodec {
	if p, ok := c.parent.(converter.PayloadCodecProvider); ok {
		return p.Codec()
	}
	return nil
}

// WithWorkflowContext, WithContext and WithSerializationContext hand the
// SDK's contexts on to the parent.
func (c logConverter) WithWorkflowContext(ctx workflow.Context) converter.DataConverter {
	if p, ok := c.parent.(workflow.ContextAware); ok {
		return logConverter{c.s, p.WithWorkflowContext(ctx)}
	}
	return c
}

func (c logConverter) WithContext(ctx context.Context) converter.DataConverter {
	if p, ok := c.parent.(workflow.ContextAware); ok {
		return logConverter{c.s, p.WithContext(ctx)}
	}
	return c
}

func (c logConverter) WithSerializationContext(sc converter.SerializationContext) converter.DataConverter {
	return logConverter{c.s, converter.WithDataConverterSerializationContext(c.parent, sc)}
}
