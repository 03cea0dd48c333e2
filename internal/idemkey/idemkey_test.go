package idemkey_test

import (
	"bytes"
	"encoding/json"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/temporaladk/adk-go/internal/idemkey"
)

var scope = idemkey.Scope{Tenant: "acme", Run: "agent-run-1", Tool: "book_seat"}

func key(t *testing.T, s idemkey.Scope, args any, fields ...string) string {
	t.Helper()
	k, err := idemkey.Derive(s, args, fields)
	require.NoError(t, err)
	require.Regexp(t, regexp.MustCompile(`^[0-9a-f]{64}$`), k, "a SHA-256 in hex")
	return k
}

func rawJSON(s string) json.RawMessage { return json.RawMessage(s) }

func TestIdempotencyKeyEquivalences(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		a, b any
		same bool
	}{
		{"argument order is irrelevant", rawJSON(`{"flight":"LH400","seat":"12A"}`), rawJSON(`{"seat":"12A","flight":"LH400"}`), true},
		{"nested maps are ordered", rawJSON(`{"p":{"b":1,"a":{"y":2,"x":3}}}`), rawJSON(`{"p":{"a":{"x":3,"y":2},"b":1}}`), true},
		{"1.50 is 1.5", rawJSON(`{"amount":1.50}`), rawJSON(`{"amount":1.5}`), true},
		{"15e-1 is 1.5", rawJSON(`{"amount":15e-1}`), rawJSON(`{"amount":1.5}`), true},
		{"100 is 1e2", rawJSON(`{"n":100}`), rawJSON(`{"n":1E+2}`), true},
		{"0 is -0.0", rawJSON(`{"n":0}`), rawJSON(`{"n":-0.0}`), true},
		{"NFC: composed and decomposed é", map[string]any{"city": "Caf\u00e9"}, map[string]any{"city": "Cafe\u0301"}, true},
		{"NFC applies to keys", map[string]any{"caf\u00e9": 1}, map[string]any{"cafe\u0301": 1}, true},
		{"struct and map agree", struct {
			Flight string `json:"flight"`
			Seat   string `json:"seat"`
		}{"LH400", "12A"}, map[string]string{"seat": "12A", "flight": "LH400"}, true},
		{"true is not 1.0", rawJSON(`{"x":true}`), rawJSON(`{"x":1.0}`), false},
		{"false is not 0", rawJSON(`{"x":false}`), rawJSON(`{"x":0}`), false},
		{"the string 1 is not the number 1", rawJSON(`{"x":"1"}`), rawJSON(`{"x":1}`), false},
		{"null is not missing", rawJSON(`{"x":null}`), rawJSON(`{}`), false},
		{"lists keep their order", rawJSON(`{"x":[1,2]}`), rawJSON(`{"x":[2,1]}`), false},
		{"1.5 is not 1.05", rawJSON(`{"x":1.5}`), rawJSON(`{"x":1.05}`), false},
		{"string boundaries are kept", rawJSON(`{"a":"bc","d":""}`), rawJSON(`{"a":"b","d":"c"}`), false},
		{"nested list vs flat", rawJSON(`[[1],2]`), rawJSON(`[1,[2]]`), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tt.same, key(t, scope, tt.a) == key(t, scope, tt.b))
		})
	}
}

func TestIdempotencyKeyScope(t *testing.T) {
	t.Parallel()
	args := map[string]any{"flight": "LH400"}
	base := key(t, scope, args)
	otherRun, otherTenant, otherTool := scope, scope, scope
	otherRun.Run = "agent-run-2"
	otherTenant.Tenant = "globex"
	otherTool.Tool = "cancel_seat"
	assert.NotEqual(t, base, key(t, otherRun, args), "another run gives another key")
	assert.NotEqual(t, base, key(t, otherTenant, args), "another tenant gives another key")
	assert.NotEqual(t, base, key(t, otherTool, args), "another tool gives another key")
	assert.Equal(t, base, key(t, scope, args), "the key is stable")
	// Scope parts do not bleed into each other.
	assert.NotEqual(t,
		key(t, idemkey.Scope{Tenant: "ab", Run: "c", Tool: "t"}, args),
		key(t, idemkey.Scope{Tenant: "a", Run: "bc", Tool: "t"}, args))
}

func TestIdempotencyKeyFields(t *testing.T) {
	t.Parallel()
	a := map[string]any{"order": map[string]any{"id": "A1"}, "note": "window please", "amount": 12.5}
	b := map[string]any{"order": map[string]any{"id": "A1"}, "note": "aisle", "amount": 12.50}
	c := map[string]any{"order": map[string]any{"id": "A2"}, "note": "window please", "amount": 12.5}
	assert.Equal(t, key(t, scope, a, "order.id", "amount"), key(t, scope, b, "order.id", "amount"), "only declared fields count")
	assert.NotEqual(t, key(t, scope, a, "order.id"), key(t, scope, c, "order.id"))
	assert.NotEqual(t, key(t, scope, a), key(t, scope, b), "without key fields every argument counts")
	assert.Equal(t, key(t, scope, a, "order.id", "amount"), key(t, scope, a, "amount", "order.id"), "key field order is irrelevant")

	k, err := idemkey.Derive(scope, a, []string{"order.id", "passenger"})
	var missing *idemkey.MissingFieldError
	require.ErrorAs(t, err, &missing)
	assert.Equal(t, "passenger", missing.Field)
	assert.ErrorContains(t, err, `"passenger"`)
	assert.Empty(t, k, "a missing key field gives no key")

	_, err = idemkey.Derive(scope, a, []string{"note.text"})
	require.ErrorAs(t, err, &missing, "a path into a scalar is missing")
	assert.Equal(t, "note.text", missing.Field)
}

func TestIdempotencyKeyHoldsNoArgumentValue(t *testing.T) {
	t.Parallel()
	card := "4111111111111111"
	k := key(t, scope, map[string]any{"card": card, "amount": 12})
	assert.NotContains(t, k, card)
	assert.NotContains(t, k, "4111")
	canonical, err := idemkey.Canonicalize(map[string]any{"card": card})
	require.NoError(t, err)
	assert.True(t, bytes.Contains(canonical, []byte(card)), "the canonical form holds values; the key does not")
}

func TestIdempotencyKeyBadInput(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		scope   idemkey.Scope
		args    any
		wantErr string
	}{
		{"no tenant", idemkey.Scope{Run: "r", Tool: "t"}, 1, "Scope.Tenant is empty"},
		{"no run", idemkey.Scope{Tenant: "a", Tool: "t"}, 1, "Scope.Run is empty"},
		{"no tool", idemkey.Scope{Tenant: "a", Run: "r"}, 1, "Scope.Tool is empty"},
		{"unencodable", scope, map[string]any{"f": func() {}}, "cannot be canonicalised"},
		{"channel", scope, make(chan int), "cannot be canonicalised"},
		{"keys equal after NFC", scope, map[string]any{"caf\u00e9": 1, "cafe\u0301": 2}, "after NFC normalisation"},
		{"huge exponent", scope, rawJSON(`{"n":1e9223372036854775808}`), "out of range"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			k, err := idemkey.Derive(tt.scope, tt.args, nil)
			require.ErrorContains(t, err, tt.wantErr)
			assert.Empty(t, k)
		})
	}
}

func TestCanonicalNumbers(t *testing.T) {
	t.Parallel()
	same := [][]string{
		{"1.5", "1.50", "15e-1", "0.15e1", "150E-2"},
		{"0", "0.0", "-0", "0e10", "-0.000e-3"},
		{"-12", "-12.0", "-1.2e1", "-120e-1"},
		{"1e400", "10e399"},
		{"123456789012345678901234567890", "1.2345678901234567890123456789e29"},
	}
	for _, group := range same {
		first, err := idemkey.Canonicalize(rawJSON(group[0]))
		require.NoError(t, err)
		for _, n := range group[1:] {
			got, err := idemkey.Canonicalize(rawJSON(n))
			require.NoError(t, err)
			assert.Equal(t, string(first), string(got), "%s and %s", group[0], n)
		}
	}
	a, _ := idemkey.Canonicalize(rawJSON("123456789012345678901234567890"))
	b, _ := idemkey.Canonicalize(rawJSON("123456789012345678901234567891"))
	assert.NotEqual(t, string(a), string(b), "numbers are compared exactly, beyond float64")
}

func FuzzCanonicalize(f *testing.F) {
	for _, seed := range []string{
		`{"b":1,"a":[true,false,null,"x"]}`, `1.50`, `-0.0e-0`, `"Cafe\u0301"`, `{"caf\u00e9":1,"cafe\u0301":2}`,
		`[[],{},""]`, `1e9223372036854775807`, `{"n":123456789012345678901234567890}`,
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, doc string) {
		if !json.Valid([]byte(doc)) {
			return
		}
		first, err := idemkey.Canonicalize(json.RawMessage(doc))
		if err != nil {
			return
		}
		again, err := idemkey.Canonicalize(json.RawMessage(doc))
		if err != nil || !bytes.Equal(first, again) {
			t.Fatalf("canonical form of %q is not stable", doc)
		}
		// Re-encoding the document (keys reordered, numbers respelled by
		// encoding/json) must not change the form.
		var generic any
		dec := json.NewDecoder(strings.NewReader(doc))
		dec.UseNumber()
		if dec.Decode(&generic) != nil {
			return
		}
		reencoded, err := json.Marshal(generic)
		if err != nil {
			return
		}
		third, err := idemkey.Canonicalize(json.RawMessage(reencoded))
		if err != nil || !bytes.Equal(first, third) {
			t.Fatalf("canonical form of %q changed after re-encoding to %q", doc, reencoded)
		}
		k1, err1 := idemkey.Derive(scope, json.RawMessage(doc), nil)
		k2, err2 := idemkey.Derive(scope, json.RawMessage(reencoded), nil)
		if err1 != nil || err2 != nil || k1 != k2 {
			t.Fatalf("key of %q not stable: %v %v", doc, err1, err2)
		}
	})
}

// A call's later arguments are named from 2: the first argument's fields
// keep Derive's key, a later argument's fields count, and a call without
// the argument a field names gives no key.
func TestIdempotencyKeyOverSeveralArguments(t *testing.T) {
	t.Parallel()
	flight := map[string]any{"flight": "OS2", "note": "window"}
	ana, bo := map[string]any{"name": "ana", "meal": "veg"}, map[string]any{"name": "bo", "meal": "veg"}
	derive := func(args []any, fields ...string) string {
		t.Helper()
		k, err := idemkey.DeriveCall(scope, args, fields)
		require.NoError(t, err)
		return k
	}
	assert.Equal(t, key(t, scope, flight, "flight"), derive([]any{flight, ana}, "flight"), "fields of the first argument alone: Derive's key of it")
	assert.NotEqual(t, derive([]any{flight, ana}, "flight", "$2.name"), derive([]any{flight, bo}, "flight", "$2.name"), "the second argument's field counts")
	assert.Equal(t, derive([]any{flight, ana}, "flight", "$2.name"), derive([]any{flight, map[string]any{"name": "ana", "meal": "fish"}}, "flight", "$2.name"), "only its declared field counts")
	assert.NotEqual(t, derive([]any{flight, ana}, "flight", "$2"), derive([]any{flight, bo}, "flight", "$2"), "the whole second argument")
	assert.NotEqual(t, derive([]any{flight, ana}, "flight", "$2.name"), derive([]any{flight, ana}, "flight"), "a later field is part of the key")
	assert.NotEqual(t, derive([]any{flight, "x", "y"}, "$3"), derive([]any{flight, "x", "z"}, "$3"), "a third argument")

	var missing *idemkey.MissingFieldError
	_, err := idemkey.DeriveCall(scope, []any{flight}, []string{"flight", "$2.name"})
	require.ErrorAs(t, err, &missing, "a call without the second argument")
	assert.Equal(t, "$2.name", missing.Field)
	_, err = idemkey.DeriveCall(scope, []any{flight, ana}, []string{"$2.seat"})
	require.ErrorAs(t, err, &missing)
	assert.Equal(t, "$2.seat", missing.Field)
	_, err = idemkey.DeriveCall(scope, nil, []string{"flight"})
	assert.ErrorContains(t, err, "the call has no argument")
	_, err = idemkey.DeriveCall(idemkey.Scope{Run: "r", Tool: "t"}, []any{flight, ana}, []string{"$2.name"})
	assert.ErrorContains(t, err, "Scope.Tenant is empty")
}

// A field that names no argument is refused, naming the field and the
// spelling to use.
func TestValidateFieldsOfLaterArguments(t *testing.T) {
	t.Parallel()
	type booking struct {
		Flight string `json:"flight"`
	}
	require.NoError(t, idemkey.ValidateFields([]string{"flight", "$2.name", "$3"}, booking{}), "a later argument's fields are checked as paths only")
	tests := []struct {
		fields []string
		want   string
	}{
		{[]string{"$1.flight"}, `holds "$1.flight": the first argument's fields take no prefix: write "flight"`},
		{[]string{"$1"}, `holds "$1": the whole first argument is no key field`},
		{[]string{"$0"}, `holds "$0", which names no argument`},
		{[]string{"$02"}, `holds "$02", which names no argument`},
		{[]string{"$x.name"}, `holds "$x.name", which names no argument`},
		{[]string{"$"}, `holds "$", which names no argument`},
		{[]string{"$2."}, `holds "$2.", which is not a field path`},
		{[]string{"$2..name"}, `holds "$2..name", which is not a field path`},
		{[]string{"$2.name", "$2.name"}, `names "$2.name" twice`},
		{[]string{"$2.name", "seat"}, `names "seat", which the tool's input`},
	}
	for _, tt := range tests {
		err := idemkey.ValidateFields(tt.fields, booking{})
		assert.ErrorContains(t, err, tt.want, "%v", tt.fields)
	}
}

// TestLogIsCanonicalisedByItsHead holds that a conversation log's encoding
// canonicalises to its marker, head and length: the same log encoded with
// its segments carried (a worker that has not handed it to a store, as a
// replay has not) and as a store's reference gives one key, and another head
// another key.
func TestLogIsCanonicalisedByItsHead(t *testing.T) {
	scope := idemkey.Scope{Tenant: "t", Run: "r", Tool: "summarise"}
	key := func(log string) string {
		t.Helper()
		k, err := idemkey.Derive(scope, map[string]any{"conversation": json.RawMessage(log)}, nil)
		if err != nil {
			t.Fatal(err)
		}
		return k
	}
	stored := key(`{"temporaladkLog":1,"store":"temporaladk-payloads","head":"ab","len":2,"bytes":90}`)
	carried := key(`{"temporaladkLog":1,"head":"ab","len":2,"bytes":90,"pending":[{"v":1,"prev":"","msgs":[{"role":"user"}]}]}`)
	if stored != carried {
		t.Errorf("the same log gives two keys: %s stored, %s carried", stored, carried)
	}
	if other := key(`{"temporaladkLog":1,"store":"temporaladk-payloads","head":"cd","len":2,"bytes":90}`); other == stored {
		t.Error("logs with different heads give one key")
	}
}
