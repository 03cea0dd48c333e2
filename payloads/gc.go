package payloads

import (
	"context"
	"errors"
	"fmt"
	"time"

	commonpb "go.temporal.io/api/common/v1"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/proxy"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/client"
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
	// Live is the objects the live refs reach, and LiveBytes their size.
	Live      int
	LiveBytes int64
	// Deleted is the objects deleted (or, with DryRun, that would be), and
	// DeletedBytes their size.
	Deleted      int
	DeletedBytes int64
	// Young is the objects no live ref reaches, kept for Grace.
	Young int
}

// Collect deletes every chunk and node that no ref in live reaches and that
// was written more than opts.Grace ago. live must be every ref of every open
// or retained run (LiveRefs reads them from the server): a ref whose tree is
// incomplete stops the collection before anything is deleted.
func (s *Store) Collect(ctx context.Context, live []Ref, opts CollectOptions) (CollectReport, error) {
	if opts.Grace < 2*PresenceWindow {
		return CollectReport{}, fmt.Errorf("payloads: Collect: CollectOptions.Grace is %v; it must be at least 2×PresenceWindow (%v)", opts.Grace, 2*PresenceWindow)
	}
	cutoff := s.now().Add(-opts.Grace)
	marked := make(map[string]struct{})
	for _, ref := range live {
		if err := s.keys(ctx, ref.Root, marked); err != nil {
			return CollectReport{}, fmt.Errorf("payloads: Collect: marking %v: %w", ref, err)
		}
	}
	var rep CollectReport
	var doomed []Object
	for _, prefix := range []string{"nodes/", "chunks/"} {
		err := s.bucket.List(ctx, prefix, func(o Object) error {
			if _, ok := marked[o.Key]; ok {
				rep.Live++
				rep.LiveBytes += o.Size
				return nil
			}
			if !o.ModTime.Before(cutoff) {
				rep.Young++
				return nil
			}
			doomed = append(doomed, o)
			return nil
		})
		if err != nil {
			return CollectReport{}, fmt.Errorf("payloads: Collect: listing %s: %w", prefix, err)
		}
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

// LiveRefs returns the ref of every stored payload in the history of every
// run the namespace still holds: open runs, and closed runs whose retention
// has not passed. c needs no store: histories are read as the server holds
// them, claims and all.
func (s *Store) LiveRefs(ctx context.Context, c client.Client) ([]Ref, error) {
	seen := make(map[Ref]struct{})
	var refs []Ref
	visit := func(_ *proxy.VisitPayloadsContext, ps []*commonpb.Payload) ([]*commonpb.Payload, error) {
		for _, p := range ps {
			if ref, ok := s.StoredRef(p); ok {
				if _, dup := seen[ref]; !dup {
					seen[ref] = struct{}{}
					refs = append(refs, ref)
				}
			}
		}
		return ps, nil
	}
	var token []byte
	for {
		resp, err := c.ListWorkflow(ctx, &workflowservice.ListWorkflowExecutionsRequest{NextPageToken: token})
		if err != nil {
			return nil, fmt.Errorf("payloads: LiveRefs: listing runs: %w", err)
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
					return nil, fmt.Errorf("payloads: LiveRefs: reading workflow %q run %q: %w", exec.GetWorkflowId(), exec.GetRunId(), err)
				}
				if err := proxy.VisitPayloads(ctx, e, proxy.VisitPayloadsOptions{Visitor: visit}); err != nil {
					return nil, fmt.Errorf("payloads: LiveRefs: %w", err)
				}
			}
		}
		token = resp.GetNextPageToken()
		if len(token) == 0 {
			return refs, nil
		}
	}
}
