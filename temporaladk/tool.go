package temporaladk

import (
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"time"
)

// Idempotency is what a tool declares about repeating it.
type Idempotency uint8

const (
	// Undeclared is the zero value: the tool said nothing, so it is treated
	// as Effectful. Assuming otherwise is assuming in the expensive direction.
	Undeclared Idempotency = iota
	// ReadOnly tools change nothing; repeating one costs latency only.
	ReadOnly
	// Idempotent tools may change the world, but a repeat lands on the
	// first call's result.
	Idempotent
	// Effectful tools change the world on every call: the second call books a
	// second seat. They get one attempt unless called with an idempotency key.
	Effectful
)

var idempotencyNames = [...]string{"UNDECLARED", "READ_ONLY", "IDEMPOTENT", "EFFECTFUL"}

// String returns the declaration's name: UNDECLARED, READ_ONLY, IDEMPOTENT or
// EFFECTFUL.
func (i Idempotency) String() string {
	if int(i) < len(idempotencyNames) {
		return idempotencyNames[i]
	}
	return fmt.Sprintf("Idempotency(%d)", uint8(i))
}

// Valid reports whether i is one of the four declarations.
func (i Idempotency) Valid() bool { return int(i) < len(idempotencyNames) }

// TreatedAsEffectful reports whether a tool with this declaration is handled
// as effectful: Effectful itself, and Undeclared.
func (i Idempotency) TreatedAsEffectful() bool { return i == Effectful || i == Undeclared }

// ParseIdempotency returns the declaration named by name, in any letter case,
// with '-' or '_' ("read-only", "READ_ONLY"). An unknown name is an error.
func ParseIdempotency(name string) (Idempotency, error) {
	n := strings.ReplaceAll(strings.ToUpper(name), "-", "_")
	for i, known := range idempotencyNames {
		if n == known {
			return Idempotency(i), nil
		}
	}
	return 0, fmt.Errorf("temporaladk: unknown idempotency %q (want one of UNDECLARED, READ_ONLY, IDEMPOTENT, EFFECTFUL)", name)
}

// Declaration is what the kit knows about one activity type, declared once
// at registration (interceptors.Options.Activities, keyed by activity type)
// so that untouched workflow code gets the policy: its class, what it says
// about repeating it, how long one call may take, and which input fields
// identify one logical call.
type Declaration struct {
	// Class is the activity's class. If not set, a call's class comes from
	// the tag on the workflow context, else the interceptor's DefaultClass.
	Class Class
	// Idempotency is what the activity says about repeating it. The zero
	// value, Undeclared, is treated as Effectful for a tool: one attempt
	// unless the call has an idempotency key. A TOOL declaration keeps this
	// rule whatever class tag a call carries.
	Idempotency Idempotency
	// Timeout is how long one call may take: it becomes StartToClose and the
	// heartbeat window is derived from it. If not set, the class policy's
	// StartToClose applies. Must not be negative.
	Timeout time.Duration
	// KeyFields are the fields of the activity's first argument (JSON names,
	// "a.b" for nested ones) whose values identify one logical call. When
	// set, every call carries an idempotency key derived from them, the
	// workflow's tenant and its run. If not set, a call has a key only when
	// the workflow gives one (WithIdempotencyKey): deriving one from every
	// argument would silently give retries back to a tool that does not
	// deduplicate.
	KeyFields []string
	// Input, if not nil, is an example of the activity's first argument:
	// each key field must name a field it has, and not one the JSON form
	// leaves out when zero (omitempty, omitzero).
	Input any
}

// DeclarationError reports a declaration that was refused, naming the
// activity and the field.
type DeclarationError struct {
	Activity string // the activity type the declaration is for
	Field    string // the Declaration field at fault
	Reason   string
}

// Error describes the failure, with its fields.
func (e *DeclarationError) Error() string {
	return fmt.Sprintf("temporaladk: declaration of %q: %s %s", e.Activity, e.Field, e.Reason)
}

// Validate checks the declaration of activityType and returns the first
// problem as a *DeclarationError naming the field.
func (d Declaration) Validate(activityType string) error {
	fail := func(field, reason string) error {
		return &DeclarationError{Activity: activityType, Field: field, Reason: reason}
	}
	switch {
	case strings.TrimSpace(activityType) == "":
		return fail("activity type", "is empty: a declaration is for a named activity type")
	case d.Class != "" && !d.Class.Valid():
		return fail("Class", fmt.Sprintf("is %q, which is not one of MODEL, TOOL, RETRIEVAL, MEMORY", d.Class))
	case !d.Idempotency.Valid():
		return fail("Idempotency", fmt.Sprintf("is %v, which is not a declaration", d.Idempotency))
	case d.Timeout < 0:
		return fail("Timeout", fmt.Sprintf("is %v: it must not be negative (zero uses the class policy)", d.Timeout))
	}
	if err := ValidateKeyFields(d.KeyFields, d.Input); err != nil {
		return fail("KeyFields", err.Error())
	}
	return nil
}

// Clone returns a copy of d that shares no slice with it.
func (d Declaration) Clone() Declaration {
	d.KeyFields = slices.Clone(d.KeyFields)
	return d
}

// IsTool reports whether the declaration makes its activity a tool whose
// idempotency rule applies: declared TOOL, or declared EFFECTFUL.
func (d Declaration) IsTool() bool { return d.Class == Tool || d.Idempotency == Effectful }

// ValidateKeyFields checks declared idempotency key fields: each a field
// path ("a.b"), none twice, and, when input (an example of the tool's input)
// is not nil, each one a field input has. With key fields and a nil input
// only the paths are checked. The error says what is wrong, without a
// prefix, for the caller to place.
func ValidateKeyFields(keyFields []string, input any) error {
	seen := make(map[string]bool, len(keyFields))
	for _, f := range keyFields {
		if f == "" || strings.HasPrefix(f, ".") || strings.HasSuffix(f, ".") || strings.Contains(f, "..") {
			return fmt.Errorf("holds %q, which is not a field path", f)
		}
		if seen[f] {
			return fmt.Errorf("names %q twice", f)
		}
		seen[f] = true
	}
	if input == nil {
		return nil
	}
	for _, f := range keyFields {
		if err := hasFieldPath(reflect.TypeOf(input), reflect.ValueOf(input), strings.Split(f, ".")); err != nil {
			return fmt.Errorf("names %q, which the tool's input %T does not have: %v", f, input, err)
		}
	}
	return nil
}

var errNoField = errors.New("no such field")

// hasFieldPath reports whether the JSON form of a value of type t (with value
// v, used for maps) has the nested field path.
func hasFieldPath(t reflect.Type, v reflect.Value, path []string) error {
	if len(path) == 0 {
		return nil
	}
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
		if v.IsValid() {
			if v.IsNil() {
				v = reflect.Value{}
			} else {
				v = v.Elem()
			}
		}
	}
	if t == nil {
		return errNoField
	}
	switch t.Kind() {
	case reflect.Struct:
		f, ok := jsonField(t, path[0])
		if !ok {
			return fmt.Errorf("%w %q", errNoField, path[0])
		}
		if _, opts, _ := strings.Cut(f.Tag.Get("json"), ","); slices.ContainsFunc(strings.Split(opts, ","), func(o string) bool { return o == "omitempty" || o == "omitzero" }) {
			// A zero value would be missing from the call's JSON, and the key
			// could not be derived for a legitimate call.
			return fmt.Errorf("field %q is tagged %s: a zero value is left out of the input, so no key could be derived from it; drop the option or key on another field", path[0], opts)
		}
		var fv reflect.Value
		if v.IsValid() {
			// A nil embedded pointer leaves no value to look into; the type
			// still answers for structs.
			fv, _ = v.FieldByIndexErr(f.Index)
		}
		return hasFieldPath(f.Type, fv, path[1:])
	case reflect.Map:
		if t.Key().Kind() != reflect.String {
			return fmt.Errorf("map keys of %v are not strings", t)
		}
		if !v.IsValid() {
			return fmt.Errorf("%w %q: a map's keys can only be checked on an example value", errNoField, path[0])
		}
		ev := v.MapIndex(reflect.ValueOf(path[0]).Convert(t.Key()))
		if !ev.IsValid() {
			return fmt.Errorf("%w %q", errNoField, path[0])
		}
		if ev.Kind() == reflect.Interface && !ev.IsNil() {
			ev = ev.Elem()
			return hasFieldPath(ev.Type(), ev, path[1:])
		}
		return hasFieldPath(t.Elem(), ev, path[1:])
	case reflect.Interface:
		if v.IsValid() && !v.IsNil() {
			return hasFieldPath(v.Elem().Type(), v.Elem(), path)
		}
		return fmt.Errorf("%w %q: the input is an empty interface", errNoField, path[0])
	}
	return fmt.Errorf("%w %q: %v has no fields", errNoField, path[0], t)
}

// jsonField finds the struct field that encoding/json names name, including
// fields promoted from embedded structs.
func jsonField(t reflect.Type, name string) (reflect.StructField, bool) {
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		if tag == "-" {
			continue
		}
		tagName, _, _ := strings.Cut(tag, ",")
		if f.Anonymous && tagName == "" {
			et := f.Type
			if et.Kind() == reflect.Pointer {
				et = et.Elem()
			}
			if et.Kind() == reflect.Struct {
				if inner, ok := jsonField(et, name); ok {
					inner.Index = append([]int{i}, inner.Index...)
					return inner, true
				}
			}
			continue
		}
		if !f.IsExported() {
			continue
		}
		fieldName := tagName
		if fieldName == "" {
			fieldName = f.Name
		}
		if fieldName == name || (tagName == "" && strings.EqualFold(f.Name, name)) {
			return f, true
		}
	}
	return reflect.StructField{}, false
}
