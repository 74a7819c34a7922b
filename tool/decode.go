package tool

import (
	"encoding"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"reflect"
	"strings"
	"sync"
)

// The pipeline parses every call's arguments once, to validate them. A typed
// tool's input is then filled from that parse, not from the JSON text again:
// decoding twice was a third of a call's cost (BenchmarkInvoke). The direct
// path covers the field types tool inputs use — strings, booleans, numbers,
// slices and nested structs of those (float32 excepted: its rounding is
// encoding/json's to make); an input with anything else (maps,
// pointers, interfaces, types with their own UnmarshalJSON or UnmarshalText)
// is decoded by encoding/json as before. Either way the result is the one
// encoding/json gives for validated arguments.

// fieldPlan says how to fill one struct field from a decoded JSON value.
type fieldPlan struct {
	name  string // the JSON name
	index []int
	typ   reflect.Type
}

// structPlan is the plan for one struct type, or nil when it needs
// encoding/json.
type structPlan struct {
	fields map[string]fieldPlan
}

var plans sync.Map // reflect.Type -> *structPlan (nil pointer: not directly decodable)

func planFor(t reflect.Type) *structPlan {
	if p, ok := plans.Load(t); ok {
		return p.(*structPlan)
	}
	p := buildPlan(t, map[reflect.Type]bool{})
	plans.Store(t, p)
	return p
}

var (
	jsonUnmarshaler = reflect.TypeFor[json.Unmarshaler]()
	textUnmarshaler = reflect.TypeFor[encoding.TextUnmarshaler]()
)

func buildPlan(t reflect.Type, seen map[reflect.Type]bool) *structPlan {
	if t.Kind() != reflect.Struct || seen[t] || custom(t) {
		return nil
	}
	seen[t] = true // a type that contains itself is left to encoding/json
	defer delete(seen, t)
	p := &structPlan{fields: map[string]fieldPlan{}}
	for _, f := range reflect.VisibleFields(t) {
		if f.Anonymous {
			return nil // embedded structs: leave their promotion rules to encoding/json
		}
		if !f.IsExported() {
			continue
		}
		tag := f.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		if strings.Contains(opts, "string") {
			return nil
		}
		if name == "" {
			name = f.Name
		}
		if !directType(f.Type, seen) {
			return nil
		}
		p.fields[name] = fieldPlan{name: name, index: f.Index, typ: f.Type}
	}
	return p
}

func custom(t reflect.Type) bool {
	return t.Implements(jsonUnmarshaler) || reflect.PointerTo(t).Implements(jsonUnmarshaler) ||
		t.Implements(textUnmarshaler) || reflect.PointerTo(t).Implements(textUnmarshaler)
}

func directType(t reflect.Type, seen map[reflect.Type]bool) bool {
	if custom(t) {
		return false
	}
	switch t.Kind() {
	case reflect.String, reflect.Bool, reflect.Float64,
		reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return true
	case reflect.Slice:
		return t.Elem().Kind() != reflect.Uint8 && directType(t.Elem(), seen) // []byte is base64 in JSON
	case reflect.Struct:
		return buildPlan(t, seen) != nil
	}
	return false
}

// errInexact stops the direct path at an integer too large for a float64 to
// hold exactly; encoding/json, which reads the digits, decodes it instead.
var errInexact = errors.New("integer beyond float64 precision")

// decodeParsed fills dst (a pointer to a struct) from m. ok is false when the
// type, or a value, needs encoding/json; an error means m does not fit
// (which validated arguments never do).
//
// One difference from encoding/json, on purpose: an integer field accepts a
// number written with a fraction or an exponent when its value is whole
// (2.0, 1e3), as JSON Schema's "integer" does.
func decodeParsed(m map[string]any, dst any) (ok bool, err error) {
	v := reflect.ValueOf(dst).Elem()
	p := planFor(v.Type())
	if p == nil {
		return false, nil
	}
	if err := p.fill(v, m); err != nil {
		if errors.Is(err, errInexact) {
			v.SetZero()
			return false, nil
		}
		return true, err
	}
	return true, nil
}

func (p *structPlan) fill(v reflect.Value, m map[string]any) error {
	for k, val := range m {
		f, ok := p.fields[k]
		if !ok {
			return fmt.Errorf("json: unknown field %q", k)
		}
		if err := assign(v.FieldByIndex(f.index), val, f.name); err != nil {
			return err
		}
	}
	return nil
}

func assign(dst reflect.Value, val any, field string) error {
	if val == nil {
		return nil // encoding/json leaves the field as it is
	}
	mismatch := func(what string) error {
		return &json.UnmarshalTypeError{Value: what, Type: dst.Type(), Field: field}
	}
	switch dst.Kind() {
	case reflect.String:
		s, ok := val.(string)
		if !ok {
			return mismatch(jsonKind(val))
		}
		dst.SetString(s)
	case reflect.Bool:
		b, ok := val.(bool)
		if !ok {
			return mismatch(jsonKind(val))
		}
		dst.SetBool(b)
	case reflect.Float64:
		f, ok := val.(float64)
		if !ok {
			return mismatch(jsonKind(val))
		}
		dst.SetFloat(f)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		f, ok := val.(float64)
		if ok && math.Abs(f) >= 1<<53 {
			return errInexact
		}
		if !ok || f != math.Trunc(f) || dst.OverflowInt(int64(f)) {
			return mismatch("number")
		}
		dst.SetInt(int64(f))
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		f, ok := val.(float64)
		if ok && f >= 1<<53 {
			return errInexact
		}
		if !ok || f != math.Trunc(f) || f < 0 || dst.OverflowUint(uint64(f)) {
			return mismatch("number")
		}
		dst.SetUint(uint64(f))
	case reflect.Slice:
		list, ok := val.([]any)
		if !ok {
			return mismatch(jsonKind(val))
		}
		s := reflect.MakeSlice(dst.Type(), len(list), len(list))
		for i, e := range list {
			if err := assign(s.Index(i), e, field); err != nil {
				return err
			}
		}
		dst.Set(s)
	case reflect.Struct:
		sub, ok := val.(map[string]any)
		if !ok {
			return mismatch(jsonKind(val))
		}
		return planFor(dst.Type()).fill(dst, sub)
	default:
		return mismatch(jsonKind(val))
	}
	return nil
}

func jsonKind(v any) string {
	switch v.(type) {
	case string:
		return "string"
	case bool:
		return "bool"
	case float64:
		return "number"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	}
	return "null"
}
