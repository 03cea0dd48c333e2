package payloads

import (
	"bytes"
	"container/list"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/restic/chunker"
	commonpb "go.temporal.io/api/common/v1"
	"go.temporal.io/sdk/converter"
	"google.golang.org/protobuf/proto"

	"github.com/temporaladk/adk-go/internal/logref"
)

// The chunking parameters are part of the stored format: a store written with
// other ones still reads, but dedups nothing against what was there.
const (
	// MinChunk is the smallest chunk, except a payload's last.
	MinChunk = 2 << 10
	// MaxChunk is the largest chunk.
	MaxChunk = 64 << 10
	// averageChunkBits cuts about every 4 KiB past MinChunk, 6 KiB chunks on average.
	averageChunkBits = 12
	// chunkPolynomial is the Rabin polynomial of the content-defined cuts
	// (irreducible, tested); fixed so every worker of a fleet cuts alike.
	chunkPolynomial = chunker.Pol(0x3DA3358B4DC173)
	// nodeFanout is the average number of entries of a tree node: an entry
	// ends its node when its hash says so, so equal runs of chunks make equal
	// nodes whatever came before them.
	nodeFanout = 16
	// maxNodeEntries caps a node.
	maxNodeEntries = 64
)

// DefaultCacheBytes is the decoded chunks and nodes a Store keeps in memory
// when Options.CacheBytes is 0.
const DefaultCacheBytes = 64 << 20

// DefaultName is the driver name a Store has when Options.Name is empty.
const DefaultName = "temporaladk-payloads"

// Options configures NewStore.
type Options struct {
	// Bucket holds the objects. Required.
	Bucket Bucket
	// Name is the storage driver's name, recorded in history with every
	// claim: every client and worker of the fleet must use the same one. If
	// empty, DefaultName.
	Name string
	// Codec, if set, encodes every object (chunk or tree node) before it is
	// written and decodes it after it is read: give your encryption or
	// compression codec here rather than on the DataConverter, so it runs
	// after deduplication (a codec on the DataConverter runs before the store
	// sees the payload; with a random nonce no two turns share a chunk). Object
	// names are SHA-256 of the plaintext. If nil, objects are written as they
	// are.
	Codec converter.PayloadCodec
	// CacheBytes bounds the decoded chunks and nodes kept in memory, shared by
	// every read and write of the Store, and, apart from them, the
	// conversations (conversation.Log) decoded from the store, counted by the
	// bytes of their segments. Set it above the largest conversation the
	// worker's activities read: a conversation larger than it is read and
	// decoded whole on every call, where one that fits costs what its last
	// turn added. If 0, DefaultCacheBytes. Negative is an error.
	CacheBytes int64
	// Now is the store's clock, for how long it trusts that an object is in
	// the bucket (PresenceWindow) and for Collect's grace. If nil, time.Now.
	Now func() time.Time
	// Threshold is the serialized payload size from which payloads are stored
	// (ExternalStorage.PayloadSizeThreshold). If 0, DefaultThreshold. Negative
	// is an error.
	Threshold int
}

// DefaultThreshold is Options.Threshold's default: a payload of 4 KiB or more
// is stored, so a turn adds a few claims of about 200 bytes to history.
const DefaultThreshold = 4 << 10

// Store is a content-addressed, content-chunked payload store over a Bucket.
// A payload's bytes are cut into chunks where their content says (Rabin
// fingerprints, 2–64 KiB), each chunk stored once under its SHA-256; the
// chunk list is a tree of nodes cut by content the same way, so a payload
// that extends another shares all but the right edge of its tree and adds
// O(log n) small nodes. Reads verify every object's hash. Safe for
// concurrent use.
type Store struct {
	bucket    Bucket
	name      string
	codec     converter.PayloadCodec
	threshold int
	now       func() time.Time
	cache     *lru
	lineages  *lineages
	decoded   *logref.Cache

	stats struct {
		bytesRead, objectsRead       atomic.Int64
		bytesWritten, objectsWritten atomic.Int64
		bytesStored, bytesDecoded    atomic.Int64
		statChecks                   atomic.Int64
	}
}

// NewStore returns a store over opts.Bucket.
func NewStore(opts Options) (*Store, error) {
	if opts.Bucket == nil {
		return nil, errors.New("payloads: Options.Bucket is nil")
	}
	if opts.CacheBytes < 0 {
		return nil, fmt.Errorf("payloads: Options.CacheBytes is %d; it must not be negative", opts.CacheBytes)
	}
	if opts.Threshold < 0 {
		return nil, fmt.Errorf("payloads: Options.Threshold is %d; it must not be negative", opts.Threshold)
	}
	name := opts.Name
	if name == "" {
		name = DefaultName
	}
	cacheBytes := opts.CacheBytes
	if cacheBytes == 0 {
		cacheBytes = DefaultCacheBytes
	}
	threshold := opts.Threshold
	if threshold == 0 {
		threshold = DefaultThreshold
	}
	now := opts.Now
	if now == nil {
		now = time.Now
	}
	return &Store{bucket: opts.Bucket, name: name, codec: opts.Codec, threshold: threshold, now: now, cache: newLRU(cacheBytes), lineages: newLineages(lineageEntries), decoded: logref.NewCache(cacheBytes)}, nil
}

// Name is the store's driver name.
func (s *Store) Name() string { return s.name }

// Ref names a stored byte string: the hash of its tree's root node and its
// length.
type Ref struct {
	// Root is the SHA-256 of the root node.
	Root [32]byte
	// Size is the length of the bytes.
	Size int64
}

// String is the root's hex and the size.
func (r Ref) String() string { return fmt.Sprintf("%x/%d", r.Root, r.Size) }

// Stats are a Store's counters since it was made.
type Stats struct {
	// BytesRead and ObjectsRead are what was fetched from the bucket (cache
	// misses), as stored (after the codec).
	BytesRead, ObjectsRead int64
	// BytesWritten and ObjectsWritten are what was written to the bucket.
	BytesWritten, ObjectsWritten int64
	// BytesStored is the length of all bytes given to Put; BytesDecoded of
	// all bytes Get returned.
	BytesStored, BytesDecoded int64
	// StatChecks is how many times the bucket was asked whether an object is
	// there.
	StatChecks int64
}

// Stats returns the counters.
func (s *Store) Stats() Stats {
	return Stats{
		BytesRead: s.stats.bytesRead.Load(), ObjectsRead: s.stats.objectsRead.Load(),
		BytesWritten: s.stats.bytesWritten.Load(), ObjectsWritten: s.stats.objectsWritten.Load(),
		BytesStored: s.stats.bytesStored.Load(), BytesDecoded: s.stats.bytesDecoded.Load(),
		StatChecks: s.stats.statChecks.Load(),
	}
}

// MissingError is a chunk or node the bucket does not have: lost, or
// collected while a run still referenced it. Nothing is decoded from a
// payload with a missing part.
type MissingError struct {
	// Store is the store's name.
	Store string
	// Key is the missing object.
	Key string
	// Cause is the bucket's error.
	Cause error
}

// Error names the store and the object.
func (e *MissingError) Error() string {
	return fmt.Sprintf("payloads: store %q has no object %s (lost, or garbage-collected while referenced): the payload cannot be restored: %v", e.Store, e.Key, e.Cause)
}

// Unwrap returns the bucket's error, which wraps ErrNotFound.
func (e *MissingError) Unwrap() error { return e.Cause }

// CorruptError is an object whose content does not hash to its name, or a
// payload whose parts do not add up to its recorded length.
type CorruptError struct {
	// Store is the store's name.
	Store string
	// Key is the object, or the payload's ref.
	Key string
	// Reason says what did not match.
	Reason string
}

// Error names the store, the object and what did not match.
func (e *CorruptError) Error() string {
	return fmt.Sprintf("payloads: store %q: %s is corrupt: %s", e.Store, e.Key, e.Reason)
}

func chunkKey(h [32]byte) string {
	x := hex.EncodeToString(h[:])
	return "chunks/" + x[:2] + "/" + x
}

func nodeKey(h [32]byte) string {
	x := hex.EncodeToString(h[:])
	return "nodes/" + x[:2] + "/" + x
}

// entry is one child of a node: a chunk (level 0) or a node, and the bytes
// under it.
type entry struct {
	hash [32]byte
	size int64
}

// node is a decoded tree node.
type node struct {
	level   int
	entries []entry
}

const nodeMagic = "TADKN1"

func encodeNode(n node) []byte {
	b := make([]byte, 0, len(nodeMagic)+2+len(n.entries)*(32+4))
	b = append(b, nodeMagic...)
	b = append(b, byte(n.level))
	b = binary.AppendUvarint(b, uint64(len(n.entries)))
	for _, e := range n.entries {
		b = append(b, e.hash[:]...)
		b = binary.AppendUvarint(b, uint64(e.size))
	}
	return b
}

func decodeNode(b []byte) (node, error) {
	if !bytes.HasPrefix(b, []byte(nodeMagic)) || len(b) < len(nodeMagic)+2 {
		return node{}, errors.New("not a tree node")
	}
	b = b[len(nodeMagic):]
	n := node{level: int(b[0])}
	b = b[1:]
	count, k := binary.Uvarint(b)
	if k <= 0 || count > maxNodeEntries {
		return node{}, errors.New("bad entry count")
	}
	b = b[k:]
	n.entries = make([]entry, count)
	for i := range n.entries {
		if len(b) < 32 {
			return node{}, errors.New("truncated entry")
		}
		copy(n.entries[i].hash[:], b)
		size, k := binary.Uvarint(b[32:])
		if k <= 0 {
			return node{}, errors.New("bad entry size")
		}
		n.entries[i].size = int64(size)
		b = b[32+k:]
	}
	if len(b) != 0 {
		return node{}, errors.New("trailing bytes")
	}
	return n, nil
}

// cutAfter reports whether a node ends after this entry.
func cutAfter(h [32]byte) bool {
	return binary.BigEndian.Uint32(h[:4])%nodeFanout == 0
}

// Put stores data and returns its ref. Chunks and nodes the bucket already
// has are not written again; a node is written after everything under it, so
// a node in the bucket means its whole subtree is there.
func (s *Store) Put(ctx context.Context, data []byte) (Ref, error) {
	s.stats.bytesStored.Add(int64(len(data)))
	chunks := make(map[[32]byte][]byte)
	level, err := s.split(data)
	if err != nil {
		return Ref{}, err
	}
	offset := 0
	for _, e := range level {
		chunks[e.hash] = data[offset : offset+int(e.size)]
		offset += int(e.size)
	}
	nodes := make(map[[32]byte]node)
	nodeBytes := make(map[[32]byte][]byte)
	for depth := 0; ; depth++ {
		var up []entry
		var cur node
		cur.level = depth
		flush := func() {
			b := encodeNode(cur)
			h := sha256.Sum256(b)
			nodes[h], nodeBytes[h] = cur, b
			var size int64
			for _, e := range cur.entries {
				size += e.size
			}
			up = append(up, entry{hash: h, size: size})
			cur = node{level: depth}
		}
		for _, e := range level {
			cur.entries = append(cur.entries, e)
			if cutAfter(e.hash) || len(cur.entries) == maxNodeEntries {
				flush()
			}
		}
		if len(cur.entries) > 0 || len(up) == 0 {
			flush()
		}
		if len(up) == 1 {
			ref := Ref{Root: up[0].hash, Size: int64(len(data))}
			if err := s.ensureNode(ctx, up[0].hash, nodes, nodeBytes, chunks); err != nil {
				return Ref{}, err
			}
			return ref, nil
		}
		level = up
	}
}

// split cuts data into chunks. Cutting is a function of the bytes since the
// last cut (the chunker starts afresh at every cut), so when data begins
// like a payload cut recently (the same first chunk: a conversation that
// grew), its chunks up to that payload's last cut are taken as they were,
// each checked by its SHA-256, and only what follows is cut again: a turn
// costs hashing the conversation, not fingerprinting it byte by byte.
func (s *Store) split(data []byte) ([]entry, error) {
	var out []entry
	offset := 0
	first, err := cut(data, 1)
	if err != nil {
		return nil, err
	}
	if len(first) == 1 {
		if prev, ok := s.lineages.get(first[0].hash); ok {
			for _, e := range prev[:len(prev)-1] {
				end := offset + int(e.size)
				if end > len(data) || sha256.Sum256(data[offset:end]) != e.hash {
					break
				}
				out = append(out, e)
				offset = end
			}
		}
	}
	rest, err := cut(data[offset:], -1)
	if err != nil {
		return nil, err
	}
	out = append(out, rest...)
	if len(out) > 1 {
		s.lineages.put(out[0].hash, out)
	}
	return out, nil
}

// cut chunks data by content, at most max chunks (all when max < 0).
func cut(data []byte, max int) ([]entry, error) {
	var out []entry
	c := chunker.NewWithBoundaries(bytes.NewReader(data), chunkPolynomial, MinChunk, MaxChunk)
	c.SetAverageBits(averageChunkBits)
	offset := 0
	for max < 0 || len(out) < max {
		ch, err := c.Next(nil)
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("payloads: chunking: %w", err)
		}
		part := data[offset : offset+int(ch.Length)]
		offset += int(ch.Length)
		out = append(out, entry{hash: sha256.Sum256(part), size: int64(len(part))})
	}
	return out, nil
}

// lineages remembers the chunk lists of recent payloads by their first
// chunk, bounded by entries (48 bytes each).
type lineages struct {
	mu    sync.Mutex
	limit int
	used  int
	order *list.List
	items map[[32]byte]*list.Element
}

type lineage struct {
	first  [32]byte
	chunks []entry
}

// lineageEntries bounds what lineages keep: about 12 MiB.
const lineageEntries = 1 << 18

func newLineages(limit int) *lineages {
	return &lineages{limit: limit, order: list.New(), items: make(map[[32]byte]*list.Element)}
}

func (l *lineages) get(first [32]byte) ([]entry, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	el, ok := l.items[first]
	if !ok {
		return nil, false
	}
	l.order.MoveToFront(el)
	return el.Value.(*lineage).chunks, true
}

func (l *lineages) put(first [32]byte, chunks []entry) {
	if len(chunks) > l.limit {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if el, ok := l.items[first]; ok {
		l.used -= len(el.Value.(*lineage).chunks)
		l.order.Remove(el)
		delete(l.items, first)
	}
	l.items[first] = l.order.PushFront(&lineage{first: first, chunks: slices.Clone(chunks)})
	l.used += len(chunks)
	for l.used > l.limit {
		el := l.order.Back()
		old := el.Value.(*lineage)
		l.order.Remove(el)
		delete(l.items, old.first)
		l.used -= len(old.chunks)
	}
}

func (s *Store) ensureNode(ctx context.Context, h [32]byte, nodes map[[32]byte]node, nodeBytes map[[32]byte][]byte, chunks map[[32]byte][]byte) error {
	key := nodeKey(h)
	if ok, err := s.present(ctx, key); err != nil || ok {
		return err
	}
	n := nodes[h]
	for _, e := range n.entries {
		if n.level > 0 {
			if err := s.ensureNode(ctx, e.hash, nodes, nodeBytes, chunks); err != nil {
				return err
			}
			continue
		}
		ck := chunkKey(e.hash)
		if ok, err := s.present(ctx, ck); err != nil {
			return err
		} else if ok {
			continue
		}
		if err := s.write(ctx, ck, chunks[e.hash]); err != nil {
			return err
		}
	}
	return s.write(ctx, key, nodeBytes[h])
}

// PresenceWindow is how long a store trusts that an object it wrote, read or
// saw written within the window is still in the bucket, and so does not
// write it again; an older object is rewritten when a new payload uses it,
// which renews its time. Collect's grace must be at least twice the window,
// so that it never deletes an object a write in flight relies on.
const PresenceWindow = 10 * time.Minute

// present reports whether the bucket has key written within PresenceWindow,
// from the cache when it can. A key it reports absent is written again.
func (s *Store) present(ctx context.Context, key string) (bool, error) {
	now := s.now()
	if s.cache.has(key, now.Add(-PresenceWindow)) {
		return true, nil
	}
	s.stats.statChecks.Add(1)
	obj, err := s.bucket.Stat(ctx, key)
	if errors.Is(err, ErrNotFound) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("payloads: store %q: checking %s: %w", s.name, key, err)
	}
	if obj.ModTime.Before(now.Add(-PresenceWindow)) {
		return false, nil
	}
	s.cache.mark(key, obj.ModTime)
	return true, nil
}

func (s *Store) write(ctx context.Context, key string, plain []byte) error {
	obj := plain
	if s.codec != nil {
		enc, err := s.codec.Encode([]*commonpb.Payload{{Data: plain}})
		if err != nil {
			return fmt.Errorf("payloads: store %q: encoding %s: %w", s.name, key, err)
		}
		if len(enc) != 1 {
			return fmt.Errorf("payloads: store %q: Options.Codec returned %d payloads for 1", s.name, len(enc))
		}
		if obj, err = proto.Marshal(enc[0]); err != nil {
			return fmt.Errorf("payloads: store %q: encoding %s: %w", s.name, key, err)
		}
	}
	if err := s.bucket.Put(ctx, key, obj); err != nil {
		return fmt.Errorf("payloads: store %q: writing %s: %w", s.name, key, err)
	}
	s.stats.bytesWritten.Add(int64(len(obj)))
	s.stats.objectsWritten.Add(1)
	s.cache.add(key, bytes.Clone(plain), s.now())
	return nil
}

// read returns the object's plaintext, verified against its hash.
func (s *Store) read(ctx context.Context, key string, h [32]byte) ([]byte, error) {
	return s.readChecked(ctx, key, func(plain []byte) string {
		if sha256.Sum256(plain) != h {
			return "content does not hash to its name"
		}
		return ""
	})
}

// readChecked returns the object's plaintext if check finds nothing wrong
// with it, else a *CorruptError with check's reason; only checked objects
// are cached.
func (s *Store) readChecked(ctx context.Context, key string, check func([]byte) string) ([]byte, error) {
	if b, ok := s.cache.get(key); ok {
		return b, nil
	}
	obj, err := s.bucket.Get(ctx, key)
	if errors.Is(err, ErrNotFound) {
		return nil, &MissingError{Store: s.name, Key: key, Cause: err}
	}
	if err != nil {
		return nil, fmt.Errorf("payloads: store %q: reading %s: %w", s.name, key, err)
	}
	s.stats.bytesRead.Add(int64(len(obj)))
	s.stats.objectsRead.Add(1)
	plain := obj
	if s.codec != nil {
		var p commonpb.Payload
		if err := proto.Unmarshal(obj, &p); err != nil {
			return nil, &CorruptError{Store: s.name, Key: key, Reason: "not an encoded object: " + err.Error()}
		}
		dec, err := s.codec.Decode([]*commonpb.Payload{&p})
		if err != nil {
			return nil, fmt.Errorf("payloads: store %q: decoding %s: %w", s.name, key, err)
		}
		if len(dec) != 1 {
			return nil, fmt.Errorf("payloads: store %q: Options.Codec returned %d payloads for 1", s.name, len(dec))
		}
		plain = dec[0].GetData()
	}
	if reason := check(plain); reason != "" {
		return nil, &CorruptError{Store: s.name, Key: key, Reason: reason}
	}
	// Read, not written: its time in the bucket is unknown, so a write does
	// not count on it (the zero time is outside every window).
	s.cache.add(key, plain, time.Time{})
	return plain, nil
}

// Get returns the bytes ref names, reading only the objects not in the
// cache. A missing object is a *MissingError, one that does not hash to its
// name or a total that does not match ref.Size a *CorruptError: nothing is
// returned but the bytes that were stored.
func (s *Store) Get(ctx context.Context, ref Ref) ([]byte, error) {
	if ref.Size < 0 {
		return nil, &CorruptError{Store: s.name, Key: ref.String(), Reason: "negative size"}
	}
	out := make([]byte, 0, ref.Size)
	if err := s.walk(ctx, ref.Root, true, func(part []byte) error {
		if int64(len(out)+len(part)) > ref.Size {
			return &CorruptError{Store: s.name, Key: ref.String(), Reason: "parts longer than the recorded size"}
		}
		out = append(out, part...)
		return nil
	}); err != nil {
		return nil, err
	}
	if int64(len(out)) != ref.Size {
		return nil, &CorruptError{Store: s.name, Key: ref.String(), Reason: fmt.Sprintf("parts add up to %d bytes, not %d", len(out), ref.Size)}
	}
	s.stats.bytesDecoded.Add(ref.Size)
	return out, nil
}

// walk visits the tree under root in order: chunk bytes to fn when chunks,
// else every object key (nodes and chunks) through keys.
func (s *Store) walk(ctx context.Context, root [32]byte, chunks bool, fn func([]byte) error) error {
	b, err := s.read(ctx, nodeKey(root), root)
	if err != nil {
		return err
	}
	n, err := decodeNode(b)
	if err != nil {
		return &CorruptError{Store: s.name, Key: nodeKey(root), Reason: err.Error()}
	}
	for _, e := range n.entries {
		if n.level > 0 {
			if err := s.walk(ctx, e.hash, chunks, fn); err != nil {
				return err
			}
			continue
		}
		if !chunks {
			continue
		}
		part, err := s.read(ctx, chunkKey(e.hash), e.hash)
		if err != nil {
			return err
		}
		if int64(len(part)) != e.size {
			return &CorruptError{Store: s.name, Key: chunkKey(e.hash), Reason: "length differs from its node's entry"}
		}
		if err := fn(part); err != nil {
			return err
		}
	}
	return nil
}

// keys adds every object key of the tree under root to into, reading nodes
// only: the mark of a collection.
func (s *Store) keys(ctx context.Context, root [32]byte, into map[string]struct{}) error {
	key := nodeKey(root)
	if _, seen := into[key]; seen {
		return nil
	}
	b, err := s.read(ctx, key, root)
	if err != nil {
		return err
	}
	n, err := decodeNode(b)
	if err != nil {
		return &CorruptError{Store: s.name, Key: key, Reason: err.Error()}
	}
	into[key] = struct{}{}
	for _, e := range n.entries {
		if n.level > 0 {
			if err := s.keys(ctx, e.hash, into); err != nil {
				return err
			}
			continue
		}
		into[chunkKey(e.hash)] = struct{}{}
	}
	return nil
}

// lru is a cache of decoded objects bounded by their bytes, which also
// remembers (at a nominal cost) keys known to be in the bucket.
type lru struct {
	mu    sync.Mutex
	limit int64
	used  int64
	order *list.List
	items map[string]*list.Element
}

type lruItem struct {
	key  string
	data []byte    // nil: known present, content not kept
	seen time.Time // when it was known to be fresh in the bucket
}

// presenceCost is what remembering a key without its content costs.
const presenceCost = 128

func newLRU(limit int64) *lru {
	return &lru{limit: limit, order: list.New(), items: make(map[string]*list.Element)}
}

func cost(it *lruItem) int64 { return int64(len(it.data)) + presenceCost }

func (c *lru) get(key string) ([]byte, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.items[key]
	if !ok || el.Value.(*lruItem).data == nil {
		return nil, false
	}
	c.order.MoveToFront(el)
	return el.Value.(*lruItem).data, true
}

// has reports whether key was known fresh in the bucket after since.
func (c *lru) has(key string, since time.Time) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.items[key]
	if !ok || !el.Value.(*lruItem).seen.After(since) {
		return false
	}
	c.order.MoveToFront(el)
	return true
}

func (c *lru) mark(key string, seen time.Time) { c.put(key, nil, seen) }

func (c *lru) add(key string, data []byte, seen time.Time) {
	if data == nil {
		data = []byte{}
	}
	c.put(key, data, seen)
}

func (c *lru) put(key string, data []byte, seen time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.items[key]; ok {
		it := el.Value.(*lruItem)
		if data != nil && it.data == nil {
			c.used -= cost(it)
			it.data = data
			c.used += cost(it)
		}
		if seen.After(it.seen) {
			it.seen = seen
		}
		c.order.MoveToFront(el)
	} else {
		it := &lruItem{key: key, data: data, seen: seen}
		if cost(it) > c.limit {
			return
		}
		c.items[key] = c.order.PushFront(it)
		c.used += cost(it)
	}
	for c.used > c.limit {
		el := c.order.Back()
		it := el.Value.(*lruItem)
		c.order.Remove(el)
		delete(c.items, it.key)
		c.used -= cost(it)
	}
}

// forget drops key, so that the next read goes to the bucket.
func (c *lru) forget(key string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.items[key]; ok {
		c.used -= cost(el.Value.(*lruItem))
		c.order.Remove(el)
		delete(c.items, key)
	}
}

// CachedBytes is what the cache holds now, for tests of its bound.
func (s *Store) CachedBytes() int64 {
	s.cache.mu.Lock()
	defer s.cache.mu.Unlock()
	return s.cache.used
}
