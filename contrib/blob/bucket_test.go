package blob_test

import (
	"bytes"
	"context"
	"math/rand/v2"
	"sort"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/temporaladk/adk-go/contrib/blob"
	"github.com/temporaladk/adk-go/contrib/blob/blobtest"
	"github.com/temporaladk/adk-go/payloads"
)

// s3Bucket opens the bucket "payloads" of a versitygw of this test.
func s3Bucket(t *testing.T) (*blob.Bucket, *blobtest.S3) {
	t.Helper()
	srv := blobtest.StartS3(t)
	t.Setenv("AWS_ACCESS_KEY_ID", srv.AccessKey)
	t.Setenv("AWS_SECRET_ACCESS_KEY", srv.SecretKey)
	b, err := blob.Open(context.Background(), srv.URL("payloads"))
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, b.Close()) })
	return b, srv
}

func TestBucketOnS3AndOnADirectory(t *testing.T) {
	ctx := context.Background()
	s3, _ := s3Bucket(t)
	dir, err := blob.Open(ctx, "file://"+t.TempDir())
	require.NoError(t, err)
	defer dir.Close()
	for name, b := range map[string]*blob.Bucket{"s3 (versitygw)": s3, "file": dir} {
		t.Run(name, func(t *testing.T) {
			start := time.Now().Add(-time.Minute)
			_, err := b.Get(ctx, "chunks/ab/missing")
			require.ErrorIs(t, err, payloads.ErrNotFound)
			_, err = b.Stat(ctx, "chunks/ab/missing")
			require.ErrorIs(t, err, payloads.ErrNotFound)
			require.NoError(t, b.Delete(ctx, "chunks/ab/missing"))

			require.NoError(t, b.Put(ctx, "chunks/ab/one", []byte("one")))
			require.NoError(t, b.Put(ctx, "nodes/cd/two", []byte("two!")))
			got, err := b.Get(ctx, "chunks/ab/one")
			require.NoError(t, err)
			require.Equal(t, []byte("one"), got)
			o, err := b.Stat(ctx, "nodes/cd/two")
			require.NoError(t, err)
			require.Equal(t, int64(4), o.Size)
			require.True(t, o.ModTime.After(start), "mod time %v", o.ModTime)

			var keys []string
			require.NoError(t, b.List(ctx, "", func(o payloads.Object) error { keys = append(keys, o.Key); return nil }))
			sort.Strings(keys)
			require.Equal(t, []string{"chunks/ab/one", "nodes/cd/two"}, keys)
			keys = nil
			require.NoError(t, b.List(ctx, "nodes/", func(o payloads.Object) error { keys = append(keys, o.Key); return nil }))
			require.Equal(t, []string{"nodes/cd/two"}, keys)

			require.NoError(t, b.Delete(ctx, "chunks/ab/one"))
			_, err = b.Get(ctx, "chunks/ab/one")
			require.ErrorIs(t, err, payloads.ErrNotFound)
		})
	}
	_, err = blob.Open(ctx, "")
	require.ErrorContains(t, err, "url is empty")
	_, err = blob.New(nil)
	require.ErrorContains(t, err, "bucket is nil")
}

// The store on S3: a round trip, and a lost chunk is an error naming it.
func TestStoreOnS3(t *testing.T) {
	ctx := context.Background()
	b, _ := s3Bucket(t)
	s, err := payloads.NewStore(payloads.Options{Bucket: b})
	require.NoError(t, err)
	data := make([]byte, 300_000)
	rng := rand.New(rand.NewPCG(1, 1))
	for i := range data {
		data[i] = byte(rng.IntN(256))
	}
	ref, err := s.Put(ctx, data)
	require.NoError(t, err)
	reader, err := payloads.NewStore(payloads.Options{Bucket: b})
	require.NoError(t, err)
	got, err := reader.Get(ctx, ref)
	require.NoError(t, err)
	require.True(t, bytes.Equal(data, got))

	var chunk string
	require.NoError(t, b.List(ctx, "chunks/", func(o payloads.Object) error { chunk = o.Key; return nil }))
	require.NoError(t, b.Delete(ctx, chunk))
	cold, err := payloads.NewStore(payloads.Options{Bucket: b})
	require.NoError(t, err)
	got, err = cold.Get(ctx, ref)
	require.Nil(t, got)
	var missing *payloads.MissingError
	require.ErrorAs(t, err, &missing)
	require.Equal(t, chunk, missing.Key)
}
