// Package idemkey derives the idempotency keys of tool calls and checks
// declared key fields. It is the kit's own machinery: users declare key
// fields (temporaladk.Declaration.KeyFields) or give a key
// (temporaladk.WithIdempotencyKey), and the interceptor derives the key.
//
//	key, err := idemkey.Derive(idemkey.Scope{Tenant: "acme", Run: runID, Tool: "book_seat"}, args, []string{"seat"})
package idemkey

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"golang.org/x/text/unicode/norm"

	"github.com/temporaladk/adk-go/internal/logref"
)

// Scope is what an idempotency key is scoped to: two calls share a key
// only when they share the tenant, the run and the tool.
type Scope struct {
	// Tenant is the customer or account the call acts for. Required: keys
	// never cross tenants.
	Tenant string
	// Run identifies the agent run (a workflow ID, usually). Required.
	Run string
	// Tool is the tool's name. Required.
	Tool string
}

// MissingFieldError reports a declared key field that a call's arguments
// do not have. No key is derived: a key over fewer fields than declared would
// merge calls that are not the same.
type MissingFieldError struct {
	Field string
}

// Error describes the failure, with its fields.
func (e *MissingFieldError) Error() string {
	return fmt.Sprintf("temporaladk: no idempotency key: the arguments have no key field %q", e.Field)
}

// keyDomain separates these hashes from any other SHA-256 of the same bytes,
// and versions the canonical form.
const keyDomain = "temporaladk/idempotency-key/v1\n"

// Derive returns the idempotency key of one tool call: the
// SHA-256, in hex, of a canonical form of the scope and the arguments, or of
// only the declared keyFields of the arguments when there are any.
//
// The canonical form makes equal calls equal however they were spelled: map
// keys are sorted at every depth, strings are NFC-normalised, 1.50 and 1.5
// are one number, booleans stay distinct from numbers (true is not 1), and
// lists keep their order. args is anything encoding/json encodes (a struct, a
// map, ...); key fields are JSON names, "a.b" for nested ones.
//
// The key is a hash: it carries no argument value. A key field the arguments
// lack gives no key and a *MissingFieldError naming it.
func Derive(scope Scope, args any, keyFields []string) (string, error) {
	if err := scope.check(); err != nil {
		return "", err
	}
	value, err := toGeneric(args)
	if err != nil {
		return "", err
	}
	if len(keyFields) > 0 {
		selected := make(map[string]any, len(keyFields))
		for _, field := range keyFields {
			v, ok := lookupPath(value, field)
			if !ok {
				return "", &MissingFieldError{Field: field}
			}
			selected[field] = v
		}
		value = selected
	}
	return hash(scope, value)
}

// DeriveCall is Derive for a call's arguments, in order: key fields of the
// first argument are named as Derive names them ("flight", "a.b"), so that
// their keys are Derive's of args[0]; a field of a later argument names it
// by its place from 1, "$2.passenger" (or "$2" for the whole second
// argument). A call without the argument a field names gives no key and a
// *MissingFieldError naming the field; a call with no argument at all is an
// error.
func DeriveCall(scope Scope, args []any, keyFields []string) (string, error) {
	if len(args) == 0 {
		return "", errors.New("key fields are declared but the call has no argument")
	}
	if !slices.ContainsFunc(keyFields, func(f string) bool { _, _, later := laterArgument(f); return later }) {
		return Derive(scope, args[0], keyFields)
	}
	if err := scope.check(); err != nil {
		return "", err
	}
	values := make([]any, len(args))
	for i, a := range args {
		v, err := toGeneric(a)
		if err != nil {
			return "", err
		}
		values[i] = v
	}
	selected := make(map[string]any, len(keyFields))
	for _, field := range keyFields {
		arg, path := 0, field
		if n, p, later := laterArgument(field); later {
			arg, path = n-1, p
		}
		if arg >= len(values) {
			return "", &MissingFieldError{Field: field}
		}
		v := values[arg]
		if path != "" {
			var ok bool
			if v, ok = lookupPath(v, path); !ok {
				return "", &MissingFieldError{Field: field}
			}
		}
		selected[field] = v
	}
	return hash(scope, selected)
}

// laterArgument splits a key field of a later argument, "$N" or "$N.path"
// with N from 2, into N and the path ("" for the whole argument). later is
// false for any other field, a malformed "$" one included: ValidateFields
// refuses those.
func laterArgument(field string) (n int, path string, later bool) {
	rest, ok := strings.CutPrefix(field, "$")
	if !ok {
		return 0, "", false
	}
	num, path, dotted := strings.Cut(rest, ".")
	if !isDigits(num) || num[0] == '0' || (dotted && path == "") {
		return 0, "", false
	}
	n, err := strconv.Atoi(num)
	if err != nil || n < 2 {
		return 0, "", false
	}
	return n, path, true
}

// check reports the first empty field of the scope.
func (scope Scope) check() error {
	for _, f := range []struct{ name, value string }{{"Tenant", scope.Tenant}, {"Run", scope.Run}, {"Tool", scope.Tool}} {
		if f.value == "" {
			return fmt.Errorf("temporaladk: no idempotency key: Scope.%s is empty", f.name)
		}
	}
	return nil
}

// hash is the key of value under scope: the SHA-256, in hex, of the key
// domain, the scope and value's canonical form.
func hash(scope Scope, value any) (string, error) {
	var buf bytes.Buffer
	buf.WriteString(keyDomain)
	for _, s := range []string{scope.Tenant, scope.Run, scope.Tool} {
		writeString(&buf, s)
	}
	if err := writeCanonical(&buf, value); err != nil {
		return "", err
	}
	sum := sha256.Sum256(buf.Bytes())
	return hex.EncodeToString(sum[:]), nil
}

// Canonicalize returns the canonical form Derive hashes for
// args. Two argument values give the same bytes exactly when they are the
// same call. The form holds the argument values: log the key, never this.
func Canonicalize(args any) ([]byte, error) {
	value, err := toGeneric(args)
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	if err := writeCanonical(&buf, value); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// toGeneric turns args into the values encoding/json decodes into: maps,
// slices, strings, json.Number, bools and nil.
func toGeneric(args any) (any, error) {
	raw, err := json.Marshal(args)
	if err != nil {
		return nil, fmt.Errorf("temporaladk: arguments cannot be canonicalised: %w", err)
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, fmt.Errorf("temporaladk: arguments cannot be canonicalised: %w", err)
	}
	return logIdentities(v), nil
}

// logIdentities replaces each conversation log's encoding in v by what names
// its messages: its head (the hash of every segment) and its length. The
// rest of the encoding says where the messages are (a store, or segments
// carried because no store took them yet), which differs between a worker
// that encoded the log before and one that replays the call.
func logIdentities(v any) any {
	switch v := v.(type) {
	case map[string]any:
		if _, ok := v[logref.Marker]; ok {
			return map[string]any{logref.Marker: v[logref.Marker], "head": v["head"], "len": v["len"]}
		}
		for k, e := range v {
			v[k] = logIdentities(e)
		}
	case []any:
		for i, e := range v {
			v[i] = logIdentities(e)
		}
	}
	return v
}

// lookupPath finds a dotted field path in a generic value. A field that is
// present with a null value is present.
func lookupPath(v any, path string) (any, bool) {
	for _, part := range strings.Split(path, ".") {
		m, ok := v.(map[string]any)
		if !ok {
			return nil, false
		}
		if v, ok = m[part]; !ok {
			return nil, false
		}
	}
	return v, true
}

// writeCanonical writes v with a type tag and a length before every
// variable-length part, so that no two different values share a form.
func writeCanonical(buf *bytes.Buffer, v any) error {
	switch v := v.(type) {
	case nil:
		buf.WriteByte('z')
	case bool:
		if v {
			buf.WriteByte('t')
		} else {
			buf.WriteByte('f')
		}
	case json.Number:
		n, err := canonicalNumber(string(v))
		if err != nil {
			return err
		}
		buf.WriteByte('n')
		buf.WriteString(n)
		buf.WriteByte(';')
	case string:
		writeString(buf, v)
	case []any:
		buf.WriteByte('l')
		buf.WriteString(strconv.Itoa(len(v)))
		buf.WriteByte('[')
		for _, item := range v {
			if err := writeCanonical(buf, item); err != nil {
				return err
			}
		}
		buf.WriteByte(']')
	case map[string]any:
		keys := make([]string, 0, len(v))
		byKey := make(map[string]any, len(v))
		for k, item := range v {
			nk := norm.NFC.String(k)
			if _, dup := byKey[nk]; dup {
				return fmt.Errorf("temporaladk: arguments cannot be canonicalised: two keys are %q after NFC normalisation", nk)
			}
			byKey[nk] = item
			keys = append(keys, nk)
		}
		slices.Sort(keys)
		buf.WriteByte('m')
		buf.WriteString(strconv.Itoa(len(keys)))
		buf.WriteByte('{')
		for _, k := range keys {
			writeString(buf, k)
			if err := writeCanonical(buf, byKey[k]); err != nil {
				return err
			}
		}
		buf.WriteByte('}')
	default:
		return fmt.Errorf("temporaladk: arguments cannot be canonicalised: unexpected %T", v)
	}
	return nil
}

func writeString(buf *bytes.Buffer, s string) {
	s = norm.NFC.String(s)
	buf.WriteByte('s')
	buf.WriteString(strconv.Itoa(len(s)))
	buf.WriteByte(':')
	buf.WriteString(s)
}

// canonicalNumber rewrites a JSON number exactly, without rounding, as
// sign, significant digits and exponent: "1.50", "1.5" and "15e-1" all
// become "15e-1"; every zero becomes "0".
func canonicalNumber(s string) (string, error) {
	orig := s
	bad := func() (string, error) {
		return "", fmt.Errorf("temporaladk: arguments cannot be canonicalised: %q is not a JSON number", orig)
	}
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	mant, expPart, hasExp := strings.Cut(strings.ToLower(s), "e")
	intPart, frac, _ := strings.Cut(mant, ".")
	if intPart == "" || !isDigits(intPart) || (frac != "" && !isDigits(frac)) || strings.HasSuffix(mant, ".") {
		return bad()
	}
	exp := int64(0)
	if hasExp {
		e, err := strconv.ParseInt(strings.TrimPrefix(expPart, "+"), 10, 64)
		if err != nil || expPart == "" || expPart == "+" || expPart == "-" {
			return "", fmt.Errorf("temporaladk: arguments cannot be canonicalised: exponent of %q is out of range", orig)
		}
		exp = e
	}
	digits := strings.TrimLeft(intPart+frac, "0")
	if digits == "" {
		return "0", nil
	}
	trimmed := strings.TrimRight(digits, "0")
	// Both adjustments are bounded by the number's length, so only an
	// exponent already near the int64 limit can overflow.
	shift := int64(len(digits)-len(trimmed)) - int64(len(frac))
	if (shift > 0 && exp > (1<<63-1)-shift) || (shift < 0 && exp < (-1<<63)-shift) {
		return "", fmt.Errorf("temporaladk: arguments cannot be canonicalised: exponent of %q is out of range", orig)
	}
	exp += shift
	sign := ""
	if neg {
		sign = "-"
	}
	return sign + trimmed + "e" + strconv.FormatInt(exp, 10), nil
}

// isDigits reports whether s is one or more ASCII digits.
func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}
