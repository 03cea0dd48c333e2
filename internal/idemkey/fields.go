package idemkey

import (
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
)

// ValidateFields checks declared idempotency key fields: each a field
// path of the first argument ("a.b") or of a later one ("$2.a.b", "$2";
// see DeriveCall), none twice, and, when input (an example of the tool's
// first argument) is not nil, each field of the first argument one that
// input has; a later argument's fields are checked as paths only. The error
// says what is wrong, without a prefix, for the caller to place.
func ValidateFields(keyFields []string, input any) error {
	seen := make(map[string]bool, len(keyFields))
	for _, f := range keyFields {
		if f == "" || strings.HasPrefix(f, ".") || strings.HasSuffix(f, ".") || strings.Contains(f, "..") {
			return fmt.Errorf("holds %q, which is not a field path", f)
		}
		if strings.HasPrefix(f, "$") {
			if _, _, later := laterArgument(f); !later {
				if f == "$1" {
					return fmt.Errorf("holds \"$1\": the whole first argument is no key field; name its fields, which take no prefix")
				}
				if rest, first := strings.CutPrefix(f, "$1."); first {
					return fmt.Errorf("holds %q: the first argument's fields take no prefix: write %q", f, rest)
				}
				return fmt.Errorf("holds %q, which names no argument: a later argument is \"$N\" or \"$N.field\", N from 2", f)
			}
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
		if strings.HasPrefix(f, "$") {
			continue
		}
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
