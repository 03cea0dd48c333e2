package payloads

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// ErrNotFound is what a Bucket returns (wrapped or not) for a key it does not
// hold. The store turns it into a *MissingError naming the key.
var ErrNotFound = errors.New("payloads: object not found")

// Object describes one object of a Bucket listing.
type Object struct {
	// Key is the object's key, as given to Put.
	Key string
	// Size is its length in bytes.
	Size int64
	// ModTime is when it was last written.
	ModTime time.Time
}

// Bucket is the blob storage under a Store: a flat namespace of immutable
// objects. Keys are made of lowercase hex, '/' and '.'. Implementations must
// be safe for concurrent use; a Put of a key that exists may replace it with
// the same bytes (the store writes only content-addressed objects). DirBucket
// is the local one; contrib/blob adapts gocloud.dev/blob (file://, s3://,
// gs://, azblob://).
type Bucket interface {
	// Get returns the object's bytes, or an error wrapping ErrNotFound.
	Get(ctx context.Context, key string) ([]byte, error)
	// Put writes the object.
	Put(ctx context.Context, key string, data []byte) error
	// Stat describes the object, or returns an error wrapping ErrNotFound.
	Stat(ctx context.Context, key string) (Object, error)
	// Delete removes the object; deleting a missing object is not an error.
	Delete(ctx context.Context, key string) error
	// List calls fn for every object whose key starts with prefix.
	List(ctx context.Context, prefix string, fn func(Object) error) error
}

// DirBucket is a Bucket in a local directory: one file per object, written
// to a temporary file and renamed, so a reader never sees half an object.
// Several processes on one machine (or on a shared file system with atomic
// rename) may use one directory.
type DirBucket struct {
	root string
}

// NewDirBucket returns a bucket in dir, creating it when missing.
func NewDirBucket(dir string) (*DirBucket, error) {
	if dir == "" {
		return nil, errors.New("payloads: NewDirBucket: dir is empty")
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("payloads: NewDirBucket: dir %q: %w", dir, err)
	}
	if err := os.MkdirAll(abs, 0o755); err != nil {
		return nil, fmt.Errorf("payloads: NewDirBucket: dir %q: %w", dir, err)
	}
	return &DirBucket{root: abs}, nil
}

// Dir is the bucket's directory.
func (b *DirBucket) Dir() string { return b.root }

func (b *DirBucket) path(key string) (string, error) {
	if key == "" || strings.Contains(key, "..") || strings.HasPrefix(key, "/") {
		return "", fmt.Errorf("payloads: bad object key %q", key)
	}
	return filepath.Join(b.root, filepath.FromSlash(key)), nil
}

// Get reads the object's file.
func (b *DirBucket) Get(ctx context.Context, key string) ([]byte, error) {
	p, err := b.path(key)
	if err != nil {
		return nil, err
	}
	data, err := os.ReadFile(p)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%w: %s", ErrNotFound, key)
	}
	return data, err
}

// Put writes the object through a temporary file and a rename.
func (b *DirBucket) Put(ctx context.Context, key string, data []byte) error {
	p, err := b.path(key)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	f, err := os.CreateTemp(filepath.Dir(p), ".tmp-*")
	if err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		os.Remove(f.Name())
		return err
	}
	if err := f.Close(); err != nil {
		os.Remove(f.Name())
		return err
	}
	if err := os.Rename(f.Name(), p); err != nil {
		os.Remove(f.Name())
		return err
	}
	return nil
}

// Stat stats the object's file.
func (b *DirBucket) Stat(ctx context.Context, key string) (Object, error) {
	p, err := b.path(key)
	if err != nil {
		return Object{}, err
	}
	info, err := os.Stat(p)
	if errors.Is(err, fs.ErrNotExist) {
		return Object{}, fmt.Errorf("%w: %s", ErrNotFound, key)
	}
	if err != nil {
		return Object{}, err
	}
	return Object{Key: key, Size: info.Size(), ModTime: info.ModTime()}, nil
}

// Delete removes the object's file.
func (b *DirBucket) Delete(ctx context.Context, key string) error {
	p, err := b.path(key)
	if err != nil {
		return err
	}
	if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}

// List walks the directory; temporary files of writes in flight are skipped.
func (b *DirBucket) List(ctx context.Context, prefix string, fn func(Object) error) error {
	return filepath.WalkDir(b.root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			return err
		}
		if d.IsDir() || strings.HasPrefix(d.Name(), ".tmp-") {
			return nil
		}
		rel, err := filepath.Rel(b.root, p)
		if err != nil {
			return err
		}
		key := filepath.ToSlash(rel)
		if !strings.HasPrefix(key, prefix) {
			return nil
		}
		info, err := d.Info()
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		if err != nil {
			return err
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		return fn(Object{Key: key, Size: info.Size(), ModTime: info.ModTime()})
	})
}
