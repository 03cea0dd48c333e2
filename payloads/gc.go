package payloads

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	commonpb "go.temporal.io/api/common/v1"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/proxy"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/client"

	"github.com/temporaladk/adk-go/internal/logref"
)

// CollectOptions configures Collect.
type CollectOptions struct {
	// Grace keeps every object written less than Grace ago by the store's
	// clock: a payload stored whose claim has not reached history yet (a
	// workflow task or activity in flight) is not deleted. It must be at least
	// 2×PresenceWindow, and should pass the longest workflow task or
	// activity of the fleet. Required.
	Grace time.Duration
	// DryRun reports what would be deleted and deletes nothing.
	DryRun bool
}

// CollectReport is what Collect found and did.
type CollectReport struct {
	// Live is the objects the live refs and logs reach, and LiveBytes their
	// size.
	Live      int
	LiveBytes int64
	// Deleted is the objects deleted (or, with DryRun, that would be), and
	// DeletedBytes their size.
	Deleted      int
	DeletedBytes int64
	// Young is the objects no live ref or log reaches, kept for Grace:
	// written less than Grace ago, or a segment that a segment written less
	// than Grace ago extends.
	Young int
}

// Live is what the runs a namespace still holds reference in a store: the
// stored payloads and the conversation logs (conversation.Log) their
// histories name. LiveRefs reads it from the server; Collect keeps what it
// reaches.
type Live struct {
	// Refs is every stored payload's ref.
	Refs []Ref
	// Logs is the head (the last segment's ID) of every log the store's
	// DataConverter encoded into those histories; each segment names the
	// one before it, so a head reaches the whole conversation.
	Logs [][32]byte
}

// Collect deletes every chunk, node and conversation log segment that
// nothing in live reaches and that was written more than opts.Grace ago. A
// segment is also kept while a segment written within the grace extends it
// (a log handed over whose head has not reached history yet). live must be
// everything of every open or retained run (LiveRefs reads it from the
// server): a ref whose tree or a log whose chain of segments is incomplete
// stops the collection before anything is deleted. Collect reads the nodes
// of the live trees and every live or young segment once.
func (s *Store) Collect(ctx context.Context, live Live, opts CollectOptions) (CollectReport, error) {
	if opts.Grace < 2*PresenceWindow {
		return CollectReport{}, fmt.Errorf("payloads: Collect: CollectOptions.Grace is %v; it must be at least 2×PresenceWindow (%v)", opts.Grace, 2*PresenceWindow)
	}
	cutoff := s.now().Add(-opts.Grace)
	marked := make(map[string]struct{})
	for _, ref := range live.Refs {
		if err := s.keys(ctx, ref.Root, marked); err != nil {
			return CollectReport{}, fmt.Errorf("payloads: Collect: marking %v: %w", ref, err)
		}
	}
	for _, head := range live.Logs {
		if err := s.chain(ctx, head, marked, nil, false); err != nil {
			return CollectReport{}, fmt.Errorf("payloads: Collect: marking the log whose head is %x: %w", head, err)
		}
	}
	var objects []Object
	for _, prefix := range []string{"nodes/", "chunks/", logref.SegmentPrefix} {
		err := s.bucket.List(ctx, prefix, func(o Object) error {
			objects = append(objects, o)
			return nil
		})
		if err != nil {
			return CollectReport{}, fmt.Errorf("payloads: Collect: listing %s: %w", prefix, err)
		}
	}
	// The segments a young segment extends are kept with it.
	young := make(map[string]struct{})
	for _, o := range objects {
		if _, ok := marked[o.Key]; ok || o.ModTime.Before(cutoff) || !strings.HasPrefix(o.Key, logref.SegmentPrefix) {
			continue
		}
		id, ok := segmentID(o.Key)
		if !ok {
			continue // not a segment's key: never read, never kept for one
		}
		if err := s.chain(ctx, id, young, marked, true); err != nil {
			return CollectReport{}, fmt.Errorf("payloads: Collect: reading the young segment %s: %w", o.Key, err)
		}
	}
	var rep CollectReport
	var doomed []Object
	for _, o := range objects {
		if _, ok := marked[o.Key]; ok {
			rep.Live++
			rep.LiveBytes += o.Size
			continue
		}
		if _, ok := young[o.Key]; ok || !o.ModTime.Before(cutoff) {
			rep.Young++
			continue
		}
		doomed = append(doomed, o)
	}
	for _, o := range doomed {
		if !opts.DryRun {
			if err := s.bucket.Delete(ctx, o.Key); err != nil {
				return rep, fmt.Errorf("payloads: Collect: deleting %s: %w", o.Key, err)
			}
			s.cache.forget(o.Key)
		}
		rep.Deleted++
		rep.DeletedBytes += o.Size
	}
	return rep, nil
}

// chain adds the key of the segment id and of every segment before it to
// into, reading each segment until it reaches one in into or in stop, or the
// log's first. A missing segment is an error unless gone is true (a young
// segment's ancestors, which may be garbage collected before).
func (s *Store) chain(ctx context.Context, id [32]byte, into, stop map[string]struct{}, gone bool) error {
	for id != ([32]byte{}) {
		key := segmentKey(id)
		if _, seen := into[key]; seen {
			return nil
		}
		if _, seen := stop[key]; seen {
			return nil
		}
		idx, err := s.readChecked(ctx, key, checkSegmentIndex)
		var missing *MissingError
		if gone && errors.As(err, &missing) {
			return nil
		}
		if err != nil {
			return err
		}
		ref, prev, _ := parseSegmentIndex(idx)
		if err := s.keys(ctx, ref.Root, into); err != nil {
			if gone && errors.As(err, &missing) {
				return nil
			}
			return fmt.Errorf("the bytes of segment %x: %w", id, err)
		}
		into[key] = struct{}{}
		if id, err = logref.ParseID(prev); err != nil {
			return &CorruptError{Store: s.name, Key: key, Reason: err.Error()}
		}
	}
	return nil
}

// segmentID is the ID a segment's bucket key names.
func segmentID(key string) ([32]byte, bool) {
	id, err := logref.ParseID(key[strings.LastIndexByte(key, '/')+1:])
	return id, err == nil && id != ([32]byte{}) && segmentKey(id) == key
}

// LiveRefs returns what every run the namespace still holds references in
// the store (open runs, and closed runs whose retention has not passed): the
// ref of every stored payload in their histories, and the head of every
// conversation log the store's DataConverter recorded there (in a
// payload's metadata, inline or in a stored payload's claim; nothing is read
// from the bucket). c needs no store: histories are read as the server
// holds them, claims and all. A log record that does not parse is an error
// naming the run, as Collect could not know what it keeps.
func (s *Store) LiveRefs(ctx context.Context, c client.Client) (Live, error) {
	seenRefs := make(map[Ref]struct{})
	seenLogs := make(map[[32]byte]struct{})
	var live Live
	visit := func(_ *proxy.VisitPayloadsContext, ps []*commonpb.Payload) ([]*commonpb.Payload, error) {
		for _, p := range ps {
			ref, stored, heads, err := s.references(p)
			if err != nil {
				return nil, err
			}
			if _, dup := seenRefs[ref]; stored && !dup {
				seenRefs[ref] = struct{}{}
				live.Refs = append(live.Refs, ref)
			}
			for _, h := range heads {
				if _, dup := seenLogs[h]; !dup {
					seenLogs[h] = struct{}{}
					live.Logs = append(live.Logs, h)
				}
			}
		}
		return ps, nil
	}
	var token []byte
	for {
		resp, err := c.ListWorkflow(ctx, &workflowservice.ListWorkflowExecutionsRequest{NextPageToken: token})
		if err != nil {
			return Live{}, fmt.Errorf("payloads: LiveRefs: listing runs: %w", err)
		}
		for _, info := range resp.GetExecutions() {
			exec := info.GetExecution()
			it := c.GetWorkflowHistory(ctx, exec.GetWorkflowId(), exec.GetRunId(), false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
			for it.HasNext() {
				e, err := it.Next()
				if err != nil {
					var notFound *serviceerror.NotFound
					if errors.As(err, &notFound) {
						break // deleted since it was listed: its retention passed
					}
					return Live{}, fmt.Errorf("payloads: LiveRefs: reading workflow %q run %q: %w", exec.GetWorkflowId(), exec.GetRunId(), err)
				}
				if err := proxy.VisitPayloads(ctx, e, proxy.VisitPayloadsOptions{Visitor: visit}); err != nil {
					return Live{}, fmt.Errorf("payloads: LiveRefs: workflow %q run %q, event %d: %w", exec.GetWorkflowId(), exec.GetRunId(), e.GetEventId(), err)
				}
			}
		}
		token = resp.GetNextPageToken()
		if len(token) == 0 {
			return live, nil
		}
	}
}
