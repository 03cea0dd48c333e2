// Package logref is the contract between a conversation log
// (conversation.Log) and the store that holds its messages (payloads.Store),
// so that neither package imports the other: the store's DataConverter finds
// the logs in what it encodes and decodes (Walk), hands each one over before
// it is encoded and binds each one after it is decoded.
//
// A log is a chain of segments. A segment is the JSON of the messages one
// Append added and the ID of the segment before it; its ID is the SHA-256 of
// its bytes, so the last segment's ID (the log's head) names the whole
// conversation, and a store that holds the segments under their IDs can
// give it back whole, every byte checked.
package logref

import (
	"container/list"
	"context"
	"encoding/hex"
	"fmt"
	"reflect"
	"sync"
)

// Marker is the JSON key whose presence marks a log's encoding; its value is
// the encoding's version, Version.
const Marker = "temporaladkLog"

// Version is the version of a log's encoding and of its segments.
const Version = 1

// SegmentPrefix begins the bucket key of every segment: the prefix, then
// the segment's ID in hex.
const SegmentPrefix = "segments/"

// Store is what a log needs of a store.
type Store interface {
	// Name is the store's name, recorded in every log it holds.
	Name() string
	// HasSegment reports whether the store holds the segment id names. A
	// store holds a segment only after every segment before it: PutSegment
	// is called oldest first.
	HasSegment(ctx context.Context, id [32]byte) (bool, error)
	// PutSegment stores data under id, the SHA-256 of data, once the
	// segment before it is stored.
	PutSegment(ctx context.Context, id [32]byte, data []byte) error
	// GetSegment returns the segment id names, checked against id.
	GetSegment(ctx context.Context, id [32]byte) ([]byte, error)
	// Decoded is the store's cache of decoded conversations.
	Decoded() *Cache
}

// Value is a log as the store's DataConverter sees it.
type Value interface {
	// HandOver writes what the log appended since it was last handed over
	// into s and binds the log to s; then its encoding names what it extends
	// and carries nothing else.
	HandOver(ctx context.Context, s Store) error
	// Bind gives a decoded log the store it reads its messages from.
	Bind(s Store)
	// Head is the ID of the log's last segment in hex, or "" while it is
	// empty.
	Head() string
}

// ParseID decodes a segment ID in hex; "" is the zero ID.
func ParseID(s string) ([32]byte, error) {
	var id [32]byte
	if s == "" {
		return id, nil
	}
	b, err := hex.DecodeString(s)
	if err != nil || len(b) != len(id) {
		return id, fmt.Errorf("%q is not a SHA-256 in hex", s)
	}
	copy(id[:], b)
	return id, nil
}

var valueType = reflect.TypeFor[Value]()

// mayHold caches, per type, whether a value of it can hold a Value where
// Walk looks, so that a value whose type cannot (a conversation as a slice
// of messages, a tool's output) costs one map read, whatever its length.
// Its keys are the program's types, a finite set.
var mayHold sync.Map // reflect.Type -> bool

// canHold reports whether a value of type t can hold a Value through
// pointers, exported struct fields, arrays, slices and map values. Interface
// fields are not looked into: a log there is encoded with its unsaved
// segments in it, and never decoded back as a log.
func canHold(t reflect.Type) bool {
	if v, ok := mayHold.Load(t); ok {
		return v.(bool)
	}
	mayHold.Store(t, false) // a recursive type answers false until it is known
	found := t.Implements(valueType) || reflect.PointerTo(t).Implements(valueType)
	if !found {
		switch t.Kind() {
		case reflect.Pointer, reflect.Slice, reflect.Array, reflect.Map:
			found = canHold(t.Elem())
		case reflect.Struct:
			for i := range t.NumField() {
				if f := t.Field(i); f.IsExported() && canHold(f.Type) {
					found = true
					break
				}
			}
		}
	}
	mayHold.Store(t, found)
	return found
}

// Walk calls fn for every Value v holds: v itself (through any number of
// pointers and interfaces), and what its exported struct fields, array and
// slice elements and map values hold. It stops at the first error fn
// returns.
func Walk(v any, fn func(Value) error) error {
	if v == nil {
		return nil
	}
	return walk(reflect.ValueOf(v), fn, true)
}

func walk(v reflect.Value, fn func(Value) error, top bool) error {
	if !v.IsValid() {
		return nil
	}
	if v.Kind() == reflect.Interface {
		if !top || v.IsNil() {
			return nil
		}
		return walk(v.Elem(), fn, true)
	}
	t := v.Type()
	if !canHold(t) {
		return nil
	}
	if t.Implements(valueType) {
		if t.Kind() == reflect.Pointer && v.IsNil() {
			return nil
		}
		return fn(v.Interface().(Value))
	}
	if v.CanAddr() && reflect.PointerTo(t).Implements(valueType) {
		return fn(v.Addr().Interface().(Value))
	}
	switch v.Kind() {
	case reflect.Pointer:
		if v.IsNil() {
			return nil
		}
		return walk(v.Elem(), fn, top)
	case reflect.Struct:
		for i := range v.NumField() {
			if t.Field(i).IsExported() {
				if err := walk(v.Field(i), fn, false); err != nil {
					return err
				}
			}
		}
	case reflect.Slice, reflect.Array:
		for i := range v.Len() {
			if err := walk(v.Index(i), fn, false); err != nil {
				return err
			}
		}
	case reflect.Map:
		it := v.MapRange()
		for it.Next() {
			if err := walk(it.Value(), fn, false); err != nil {
				return err
			}
		}
	}
	return nil
}

// Cache keeps decoded conversations by their Go type and head, bounded by
// the bytes of the segments they were decoded from; the least recently used
// goes first. Safe for concurrent use.
type Cache struct {
	mu    sync.Mutex
	limit int64
	used  int64
	order *list.List
	items map[cacheKey]*list.Element
}

type cacheKey struct {
	t    reflect.Type
	head [32]byte
}

type cacheItem struct {
	key  cacheKey
	v    any
	cost int64
}

// NewCache returns a cache of at most limit bytes.
func NewCache(limit int64) *Cache {
	return &Cache{limit: limit, order: list.New(), items: make(map[cacheKey]*list.Element)}
}

// Get returns the conversation of type t whose head is head.
func (c *Cache) Get(t reflect.Type, head [32]byte) (any, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.items[cacheKey{t, head}]
	if !ok {
		return nil, false
	}
	c.order.MoveToFront(el)
	return el.Value.(*cacheItem).v, true
}

// Put keeps v, the conversation of type t whose head is head, decoded from
// cost bytes; one larger than the whole cache is not kept.
func (c *Cache) Put(t reflect.Type, head [32]byte, v any, cost int64) {
	if cost > c.limit {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	key := cacheKey{t, head}
	if el, ok := c.items[key]; ok {
		c.order.MoveToFront(el)
		return
	}
	c.items[key] = c.order.PushFront(&cacheItem{key: key, v: v, cost: cost})
	c.used += cost
	for c.used > c.limit {
		el := c.order.Back()
		it := el.Value.(*cacheItem)
		c.order.Remove(el)
		delete(c.items, it.key)
		c.used -= it.cost
	}
}

// Bytes is what the cache holds, counted as Put counted it.
func (c *Cache) Bytes() int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.used
}
