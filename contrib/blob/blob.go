package blob

import (
	"context"
	"errors"
	"fmt"
	"io"

	"gocloud.dev/blob"
	_ "gocloud.dev/blob/azureblob" // azblob://
	_ "gocloud.dev/blob/fileblob"  // file://
	_ "gocloud.dev/blob/gcsblob"   // gs://
	_ "gocloud.dev/blob/s3blob"    // s3://
	"gocloud.dev/gcerrors"

	"github.com/temporaladk/adk-go/payloads"
)

// Bucket is a payloads.Bucket on a gocloud.dev/blob bucket.
type Bucket struct {
	b *blob.Bucket
}

var _ payloads.Bucket = (*Bucket)(nil)

// Open opens the bucket at url: file:///dir, s3://bucket?region=…
// (endpoint=… and use_path_style=true for an S3-compatible server; the
// credentials come from the AWS SDK's usual chain, AWS_ACCESS_KEY_ID and
// AWS_SECRET_ACCESS_KEY among them), gs://bucket or azblob://container, as
// gocloud.dev/blob reads URLs. Close it when done.
func Open(ctx context.Context, url string) (*Bucket, error) {
	if url == "" {
		return nil, errors.New("blob: Open: url is empty")
	}
	b, err := blob.OpenBucket(ctx, url)
	if err != nil {
		return nil, fmt.Errorf("blob: Open %q: %w", url, err)
	}
	return &Bucket{b: b}, nil
}

// New adapts an open gocloud.dev/blob bucket; closing it stays the caller's.
func New(b *blob.Bucket) (*Bucket, error) {
	if b == nil {
		return nil, errors.New("blob: New: bucket is nil")
	}
	return &Bucket{b: b}, nil
}

// Close closes the bucket.
func (b *Bucket) Close() error { return b.b.Close() }

func notFound(err error, key string) error {
	if gcerrors.Code(err) == gcerrors.NotFound {
		return fmt.Errorf("%w: %s: %v", payloads.ErrNotFound, key, err)
	}
	return err
}

// Get reads the object.
func (b *Bucket) Get(ctx context.Context, key string) ([]byte, error) {
	data, err := b.b.ReadAll(ctx, key)
	if err != nil {
		return nil, notFound(err, key)
	}
	return data, nil
}

// Put writes the object.
func (b *Bucket) Put(ctx context.Context, key string, data []byte) error {
	return b.b.WriteAll(ctx, key, data, &blob.WriterOptions{ContentType: "application/octet-stream"})
}

// Stat reads the object's attributes.
func (b *Bucket) Stat(ctx context.Context, key string) (payloads.Object, error) {
	a, err := b.b.Attributes(ctx, key)
	if err != nil {
		return payloads.Object{}, notFound(err, key)
	}
	return payloads.Object{Key: key, Size: a.Size, ModTime: a.ModTime}, nil
}

// Delete removes the object; a missing one is not an error.
func (b *Bucket) Delete(ctx context.Context, key string) error {
	if err := b.b.Delete(ctx, key); err != nil && gcerrors.Code(err) != gcerrors.NotFound {
		return err
	}
	return nil
}

// List lists the objects under prefix.
func (b *Bucket) List(ctx context.Context, prefix string, fn func(payloads.Object) error) error {
	it := b.b.List(&blob.ListOptions{Prefix: prefix})
	for {
		o, err := it.Next(ctx)
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		if o.IsDir {
			continue
		}
		if err := fn(payloads.Object{Key: o.Key, Size: o.Size, ModTime: o.ModTime}); err != nil {
			return err
		}
	}
}
