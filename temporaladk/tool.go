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

// ToolDeclaration is what a tool says about itself: how long it may take,
// whether repeating it is safe, and which of its input fields identify one
// logical call (the idempotency key fields).
//
// Build one with DeclareTool, which checks it; the zero value is not a valid
// declaration.
type ToolDeclaration struct {
	// Name is the tool's name, usually its activity type. Required.
	Name string
	// Timeout is how long one call may take; it becomes the activity's
	// StartToClose and the heartbeat window is derived from it. Required,
	// greater than zero.
	Timeout time.Duration
	// Idempotency is what the tool says about repeating it. The zero value,
	// Undeclared, is treated as Effectful.
	Idempotency Idempotency
	// KeyFields are the input fields (JSON names; "a.b" for nested fields)
	// that identify one logical call. If not set, the idempotency key covers
	// every argument.
	KeyFields []string
}

// DeclarationError reports a tool declaration that was refused, naming the
// tool and the field.
type DeclarationError struct {
	Tool   string // the tool's name as given
	Field  string // the ToolDeclaration field at fault
	Reason string
}

// Error describes the failure, with its fields.
func (e *DeclarationError) Error() string {
	return fmt.Sprintf("temporaladk: tool %q: %s %s", e.Tool, e.Field, e.Reason)
}

// DeclareTool checks decl and returns a copy of it that shares nothing with
// the caller's slices.
//
// input is an example of the tool's input (a struct, a pointer to one, or a
// map with the keys the tool takes); every key field must name a field it
// has. input may be nil only when there are no key fields.
func DeclareTool(decl ToolDeclaration, input any) (ToolDeclaration, error) {
	fail := func(field, reason string) (ToolDeclaration, error) {
		return ToolDeclaration{}, &DeclarationError{Tool: decl.Name, Field: field, Reason: reason}
	}
	if strings.TrimSpace(decl.Name) == "" {
		return fail("Name", "is empty: a tool declaration needs the tool's name")
	}
	if decl.Timeout <= 0 {
		return fail("Timeout", fmt.Sprintf("is %v: a tool declares how long one call may take, and it must be greater than zero", decl.Timeout))
	}
	if !decl.Idempotency.Valid() {
		return fail("Idempotency", fmt.Sprintf("is %v, which is not a declaration", decl.Idempotency))
	}
	if len(decl.KeyFields) > 0 && input == nil {
		return fail("KeyFields", "are declared, but no input was given to check them against")
	}
	if err := ValidateKeyFields(decl.KeyFields, input); err != nil {
		return fail("KeyFields", err.Error())
	}
	decl.KeyFields = slices.Clone(decl.KeyFields)
	return decl, nil
}

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
