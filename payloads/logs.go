package payloads

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"

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
	idx, err := l.s.readChecked(ctx, key, func(b []byte) string {
		if _, _, err := parseSegmentIndex(b); err != nil {
			return "not a segment index: " + err.Error()
		}
		return ""
	})
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

// logConverter hands every conversation log it encodes over to the store
// (its new segments written, its encoding their head) and binds every log it
// decodes to the store, so that the log reads its messages there. Logs are
// found in the values themselves and in their exported fields
// (logref.Walk); a value whose type holds no log costs a map read.
type logConverter struct {
	s      *Store
	parent converter.DataConverter
}

func (c logConverter) handOver(values []any) error {
	for _, v := range values {
		err := logref.Walk(v, func(l logref.Value) error {
			// The SDK hands a DataConverter no context; a write is bounded
			// by the bucket's own timeouts.
			return l.HandOver(context.Background(), logStore{c.s})
		})
		if err != nil {
			return err
		}
	}
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
	if err := c.handOver([]any{value}); err != nil {
		return nil, err
	}
	return c.parent.ToPayload(value)
}

func (c logConverter) ToPayloads(values ...any) (*commonpb.Payloads, error) {
	if err := c.handOver(values); err != nil {
		return nil, err
	}
	return c.parent.ToPayloads(values...)
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
