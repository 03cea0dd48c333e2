package payloads

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/restic/chunker"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/converter"
)

// message is one turn of a conversation, as an agent sends it to a model.
type message struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

// toolOutput is size bytes of text no two turns share, as a tool returns.
func toolOutput(rng *rand.Rand, turn, size int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "turn %d: ", turn)
	const letters = "abcdefghijklmnopqrstuvwxyz     ,.\n"
	for b.Len() < size {
		b.WriteByte(letters[rng.IntN(len(letters))])
	}
	return b.String()
}

func newTestStore(t testing.TB, opts Options) (*Store, *DirBucket) {
	t.Helper()
	b, err := NewDirBucket(t.TempDir())
	require.NoError(t, err)
	opts.Bucket = b
	s, err := NewStore(opts)
	require.NoError(t, err)
	return s, b
}

func bucketBytes(t testing.TB, b Bucket) (n int64, objects int) {
	t.Helper()
	require.NoError(t, b.List(context.Background(), "", func(o Object) error {
		n += o.Size
		objects++
		return nil
	}))
	return n, objects
}

func TestChunkPolynomialIsIrreducible(t *testing.T) {
	require.True(t, chunker.Pol(chunkPolynomial).Irreducible())
}

func TestNewStoreNamesTheBadField(t *testing.T) {
	b, err := NewDirBucket(t.TempDir())
	require.NoError(t, err)
	for name, tc := range map[string]struct {
		opts Options
		want string
	}{
		"no bucket":          {Options{}, "Options.Bucket"},
		"negative cache":     {Options{Bucket: b, CacheBytes: -1}, "Options.CacheBytes"},
		"negative threshold": {Options{Bucket: b, Threshold: -1}, "Options.Threshold"},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := NewStore(tc.opts)
			require.ErrorContains(t, err, tc.want)
		})
	}
	_, err = NewDirBucket("")
	require.ErrorContains(t, err, "dir is empty")
}

// An append-only conversation, stored whole every turn, takes about its own
// final size in the bucket, and each turn writes about what it added.
func TestAppendOnlyConversationIsStoredAboutOnce(t *testing.T) {
	t.Parallel()
	s, b := newTestStore(t, Options{})
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(1, 2))
	var conv []message
	var final []byte
	for turn := range 60 {
		conv = append(conv, message{Role: "tool", Content: toolOutput(rng, turn, 50_000)}, message{Role: "assistant", Content: "noted"})
		data, err := json.Marshal(conv)
		require.NoError(t, err)
		before := s.Stats().BytesWritten
		ref, err := s.Put(ctx, data)
		require.NoError(t, err)
		written := s.Stats().BytesWritten - before
		// What is new, plus the chunk cut by the old end and the right edge
		// of the tree.
		require.LessOrEqual(t, written, int64(50_000+2*MaxChunk), "turn %d wrote %d bytes", turn, written)
		got, err := s.Get(ctx, ref)
		require.NoError(t, err)
		require.True(t, bytes.Equal(data, got), "turn %d", turn)
		final = data
	}
	stored, _ := bucketBytes(t, b)
	require.LessOrEqual(t, float64(stored), 1.5*float64(len(final)), "stored %d bytes for a %d-byte conversation", stored, len(final))
	t.Logf("final %d bytes, stored %d (%.3f×), %d bytes given to Put", len(final), stored, float64(stored)/float64(len(final)), s.Stats().BytesStored)
}

func TestRoundTripSizes(t *testing.T) {
	t.Parallel()
	s, _ := newTestStore(t, Options{})
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(3, 4))
	for _, n := range []int{0, 1, MinChunk - 1, MinChunk, MaxChunk, MaxChunk + 1, 3 << 20} {
		data := make([]byte, n)
		for i := range data {
			data[i] = byte(rng.IntN(256))
		}
		ref, err := s.Put(ctx, data)
		require.NoError(t, err)
		require.Equal(t, int64(n), ref.Size)
		got, err := s.Get(ctx, ref)
		require.NoError(t, err)
		require.True(t, bytes.Equal(data, got), "size %d", n)
	}
}

// A store that lost a chunk says which, and returns nothing; so does one
// whose chunk was altered.
func TestLostOrAlteredChunkIsAnErrorNeverWrongBytes(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	data := []byte(strings.Repeat("the quick brown fox jumps over the lazy dog. ", 5000))
	for name, damage := range map[string]func(b *DirBucket, key string) error{
		"lost": func(b *DirBucket, key string) error { return b.Delete(ctx, key) },
		"altered": func(b *DirBucket, key string) error {
			obj, err := b.Get(ctx, key)
			if err != nil {
				return err
			}
			obj[len(obj)/2] ^= 1
			return b.Put(ctx, key, obj)
		},
	} {
		t.Run(name, func(t *testing.T) {
			s, b := newTestStore(t, Options{})
			ref, err := s.Put(ctx, data)
			require.NoError(t, err)
			var chunkKeys []string
			require.NoError(t, b.List(ctx, "chunks/", func(o Object) error { chunkKeys = append(chunkKeys, o.Key); return nil }))
			require.NotEmpty(t, chunkKeys)
			require.NoError(t, damage(b, chunkKeys[0]))
			// A reader that did not write it: nothing cached.
			reader, err := NewStore(Options{Bucket: b})
			require.NoError(t, err)
			got, err := reader.Get(ctx, ref)
			require.Nil(t, got)
			if name == "lost" {
				var missing *MissingError
				require.ErrorAs(t, err, &missing)
				require.Equal(t, chunkKeys[0], missing.Key)
				require.ErrorIs(t, err, ErrNotFound)
				require.ErrorContains(t, err, DefaultName)
			} else {
				var corrupt *CorruptError
				require.ErrorAs(t, err, &corrupt)
				require.Equal(t, chunkKeys[0], corrupt.Key)
			}
		})
	}
}

func TestCacheStaysWithinItsBound(t *testing.T) {
	t.Parallel()
	const limit = 256 << 10
	s, b := newTestStore(t, Options{CacheBytes: limit})
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(5, 6))
	var refs []Ref
	for i := range 20 {
		ref, err := s.Put(ctx, []byte(toolOutput(rng, i, 100_000)))
		require.NoError(t, err)
		refs = append(refs, ref)
		require.LessOrEqual(t, s.CachedBytes(), int64(limit))
	}
	for _, ref := range refs {
		_, err := s.Get(ctx, ref)
		require.NoError(t, err)
		require.LessOrEqual(t, s.CachedBytes(), int64(limit))
	}
	// What did not fit was read from the bucket.
	require.Positive(t, s.Stats().BytesRead)
	stored, _ := bucketBytes(t, b)
	require.Greater(t, stored, int64(limit))
}

// A codec on the store runs after deduplication: a compressed store still
// stores an append-only conversation about once, in fewer bytes.
func TestCodecOnTheStoreKeepsDeduplication(t *testing.T) {
	t.Parallel()
	plain, plainBucket := newTestStore(t, Options{})
	zipped, zippedBucket := newTestStore(t, Options{Codec: converter.NewZlibCodec(converter.ZlibCodecOptions{AlwaysEncode: true})})
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(7, 8))
	var conv []message
	var final []byte
	for turn := range 60 {
		conv = append(conv, message{Role: "tool", Content: toolOutput(rng, turn, 20_000)})
		data, err := json.Marshal(conv)
		require.NoError(t, err)
		for _, s := range []*Store{plain, zipped} {
			ref, err := s.Put(ctx, data)
			require.NoError(t, err)
			got, err := s.Get(ctx, ref)
			require.NoError(t, err)
			require.True(t, bytes.Equal(data, got))
		}
		final = data
	}
	plainBytes, _ := bucketBytes(t, plainBucket)
	zippedBytes, _ := bucketBytes(t, zippedBucket)
	require.LessOrEqual(t, float64(zippedBytes), 1.5*float64(len(final)))
	require.Less(t, zippedBytes, plainBytes)
	// And a reader without the codec cannot read it.
	reader, err := NewStore(Options{Bucket: zippedBucket})
	require.NoError(t, err)
	ref, err := zipped.Put(ctx, final)
	require.NoError(t, err)
	_, err = reader.Get(ctx, ref)
	var corrupt *CorruptError
	require.ErrorAs(t, err, &corrupt)
}

func TestNodeEncodingRejectsGarbage(t *testing.T) {
	t.Parallel()
	n := node{level: 1, entries: []entry{{size: 5}, {size: 1 << 40}}}
	got, err := decodeNode(encodeNode(n))
	require.NoError(t, err)
	require.Equal(t, n, got)
	for _, b := range [][]byte{nil, []byte("TADKN1"), append(encodeNode(n), 0), encodeNode(n)[:20]} {
		_, err := decodeNode(b)
		require.Error(t, err)
	}
	require.True(t, errors.Is(fmt.Errorf("x: %w", ErrNotFound), ErrNotFound))
}

// Taking a recent payload's chunks as they were gives the chunks cutting
// afresh gives, and a payload that only looks like it (same first chunk,
// other bytes after) is cut afresh.
func TestReusedCutsEqualFreshCuts(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(13, 14))
	s, _ := newTestStore(t, Options{})
	base := []byte(toolOutput(rng, 0, 300_000))
	for i, next := range [][]byte{
		append(bytes.Clone(base), []byte(toolOutput(rng, 1, 50_000))...),
		append(bytes.Clone(base[:150_000]), []byte(toolOutput(rng, 2, 200_000))...),
		base[:100],
		bytes.Clone(base),
	} {
		_, err := s.split(base)
		require.NoError(t, err)
		got, err := s.split(next)
		require.NoError(t, err)
		want, err := cut(next, -1)
		require.NoError(t, err)
		require.Equal(t, want, got, "case %d", i)
	}
}
