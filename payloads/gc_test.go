package payloads

import (
	"context"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestCollectKeepsWhatLiveRefsReachAndWhatIsYoung(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b, err := NewDirBucket(t.TempDir())
	require.NoError(t, err)
	// One clock: the store's, set ahead of the files' times as a collection
	// a day later would be.
	now := time.Now()
	s, err := NewStore(Options{Bucket: b, Now: func() time.Time { return now }})
	require.NoError(t, err)
	rng := rand.New(rand.NewPCG(9, 10))
	kept, err := s.Put(ctx, []byte(toolOutput(rng, 1, 200_000)))
	require.NoError(t, err)
	dropped, err := s.Put(ctx, []byte(toolOutput(rng, 2, 200_000)))
	require.NoError(t, err)
	all, _ := bucketBytes(t, b)

	_, err = s.Collect(ctx, Live{Refs: []Ref{kept}}, CollectOptions{Grace: time.Minute})
	require.ErrorContains(t, err, "CollectOptions.Grace")

	// Within the grace, nothing goes.
	rep, err := s.Collect(ctx, Live{Refs: []Ref{kept}}, CollectOptions{Grace: time.Hour})
	require.NoError(t, err)
	require.Zero(t, rep.Deleted)
	require.Positive(t, rep.Young)

	now = now.Add(24 * time.Hour)
	rep, err = s.Collect(ctx, Live{Refs: []Ref{kept}}, CollectOptions{Grace: time.Hour, DryRun: true})
	require.NoError(t, err)
	require.Positive(t, rep.Deleted)
	after, _ := bucketBytes(t, b)
	require.Equal(t, all, after, "a dry run deletes nothing")

	rep, err = s.Collect(ctx, Live{Refs: []Ref{kept}}, CollectOptions{Grace: time.Hour})
	require.NoError(t, err)
	after, _ = bucketBytes(t, b)
	require.Equal(t, rep.LiveBytes, after)
	require.Equal(t, all-rep.DeletedBytes, after)

	fresh, err := NewStore(Options{Bucket: b})
	require.NoError(t, err)
	got, err := fresh.Get(ctx, kept)
	require.NoError(t, err)
	require.Len(t, got, 200_000)
	_, err = fresh.Get(ctx, dropped)
	var missing *MissingError
	require.ErrorAs(t, err, &missing)

	// A live ref whose tree is gone stops the collection before it deletes.
	_, err = s.Collect(ctx, Live{Refs: []Ref{kept, dropped}}, CollectOptions{Grace: time.Hour})
	require.ErrorAs(t, err, &missing)
	before := after
	after, _ = bucketBytes(t, b)
	require.Equal(t, before, after)
}

// An object older than PresenceWindow is written again when a new payload
// uses it, so that a collection's grace counts from its last use.
func TestOldObjectsAreRewrittenWhenReused(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b, err := NewDirBucket(t.TempDir())
	require.NoError(t, err)
	now := time.Now()
	s, err := NewStore(Options{Bucket: b, Now: func() time.Time { return now }})
	require.NoError(t, err)
	data := []byte(toolOutput(rand.New(rand.NewPCG(11, 12)), 1, 100_000))
	_, err = s.Put(ctx, data)
	require.NoError(t, err)
	written := s.Stats().BytesWritten
	_, err = s.Put(ctx, data)
	require.NoError(t, err)
	require.Equal(t, written, s.Stats().BytesWritten, "fresh objects are not written again")
	now = now.Add(PresenceWindow + time.Second)
	_, err = s.Put(ctx, data)
	require.NoError(t, err)
	require.Equal(t, 2*written, s.Stats().BytesWritten, "old objects are")
}
