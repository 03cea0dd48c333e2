package logref_test

import (
	"context"
	"reflect"
	"testing"

	"github.com/temporaladk/adk-go/internal/logref"
)

// fake is a Value that counts what was done to it.
type fake struct{ handed, bound int }

func (f *fake) HandOver(context.Context, logref.Store) error { f.handed++; return nil }
func (f *fake) Bind(logref.Store)                            { f.bound++ }
func (f *fake) Head() string                                 { return "" }

type node struct {
	Log   *fake
	Next  *node
	Kids  []node
	ByKey map[string]*fake
	Value fake // a value field: reached when addressable
	Any   any  // an interface field: not looked into
	note  *fake
}

type plain struct {
	Role, Content string
	Parts         []string
}

func count(t *testing.T, v any) int {
	t.Helper()
	n := 0
	if err := logref.Walk(v, func(logref.Value) error { n++; return nil }); err != nil {
		t.Fatal(err)
	}
	return n
}

// TestWalkFindsLogsWhereTheyAreEncoded holds Walk's reach: pointers,
// exported fields, slices, map values and addressable value fields, through
// a recursive type; not interface fields, nor unexported ones, which
// encoding/json does not encode.
func TestWalkFindsLogsWhereTheyAreEncoded(t *testing.T) {
	v := &node{
		Log:   &fake{},
		Next:  &node{Log: &fake{}},
		Kids:  []node{{Log: &fake{}}, {}},
		ByKey: map[string]*fake{"a": {}, "b": nil},
		Any:   &fake{},
		note:  &fake{},
	}
	// Log, Next.Log, Kids[0].Log, ByKey["a"], and the Value fields of v,
	// v.Next, v.Kids[0] and v.Kids[1] (addressable through pointers and a
	// slice).
	if got := count(t, v); got != 8 {
		t.Errorf("Walk found %d logs; want 8", got)
	}
	if got := count(t, *v); got != 7 {
		t.Errorf("Walk of a value found %d logs; want 7 (v's own Value field is not addressable)", got)
	}
	if got := count(t, any(&fake{})); got != 1 {
		t.Errorf("Walk of a log found %d; want 1", got)
	}
	if got := count(t, []plain{{Role: "user"}}); got != 0 {
		t.Errorf("Walk of messages found %d logs", got)
	}
}

// TestWalkStopsAtTheFirstError holds that an error of fn is Walk's.
func TestWalkStopsAtTheFirstError(t *testing.T) {
	calls := 0
	err := logref.Walk([]*fake{{}, {}}, func(logref.Value) error { calls++; return context.Canceled })
	if err != context.Canceled || calls != 1 {
		t.Errorf("Walk returned %v after %d calls; want context.Canceled after 1", err, calls)
	}
}

// TestCacheIsBounded holds the cache's bound: an entry past it evicts the
// least recently used, and one larger than the cache is not kept.
func TestCacheIsBounded(t *testing.T) {
	c := logref.NewCache(100)
	typ := reflect.TypeFor[[]plain]()
	c.Put(typ, [32]byte{1}, "one", 60)
	c.Put(typ, [32]byte{2}, "two", 30)
	if _, ok := c.Get(typ, [32]byte{1}); !ok {
		t.Fatal("entry 1 is gone with 90 of 100 bytes used")
	}
	c.Put(typ, [32]byte{3}, "three", 30) // 120 > 100: evicts 2, the least recently used
	if _, ok := c.Get(typ, [32]byte{2}); ok {
		t.Error("entry 2 is still kept past the bound")
	}
	if c.Bytes() != 90 {
		t.Errorf("the cache holds %d bytes; want 90", c.Bytes())
	}
	c.Put(typ, [32]byte{4}, "four", 101)
	if _, ok := c.Get(typ, [32]byte{4}); ok {
		t.Error("an entry larger than the cache is kept")
	}
	if _, ok := c.Get(reflect.TypeFor[string](), [32]byte{1}); ok {
		t.Error("an entry is found under another type")
	}
}
