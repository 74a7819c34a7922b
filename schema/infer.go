package schema

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strconv"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
)

// Infer returns the canonical input schema for T, which must be a struct type
// (or a pointer to one): an object schema with additionalProperties false.
func Infer[T any]() (*jsonschema.Schema, error) {
	return InferType(reflect.TypeFor[T]())
}

// InferType is [Infer] for a reflect.Type.
func InferType(t reflect.Type) (*jsonschema.Schema, error) {
	s, err := jsonschema.ForType(t, nil)
	if err != nil {
		return nil, fmt.Errorf("infer schema: %w", err)
	}
	dropNullTypes(s)
	if err := applyTags(s, t); err != nil {
		return nil, fmt.Errorf("infer schema for %s: %w", t, err)
	}
	return s, nil
}

// InferOutput returns the schema for an output type T. Non-object outputs
// return nil: MCP output schemas must be objects.
func InferOutput[T any]() *jsonschema.Schema {
	t := reflect.TypeFor[T]()
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct {
		return nil
	}
	s, err := InferType(t)
	if err != nil {
		return nil
	}
	return s
}

// dropNullTypes rewrites every ["null", T] union to T, in place.
func dropNullTypes(s *jsonschema.Schema) {
	walk(s, func(s *jsonschema.Schema) {
		if len(s.Types) == 0 {
			return
		}
		var kept []string
		for _, t := range s.Types {
			if t != "null" {
				kept = append(kept, t)
			}
		}
		switch len(kept) {
		case 0:
			s.Types = nil
			s.Type = "null"
		case 1:
			s.Types = nil
			s.Type = kept[0]
		default:
			s.Types = kept
		}
	})
}

// walk calls fn on s and every schema below it.
func walk(s *jsonschema.Schema, fn func(*jsonschema.Schema)) {
	if s == nil {
		return
	}
	fn(s)
	for _, c := range s.Properties {
		walk(c, fn)
	}
	for _, c := range s.Defs {
		walk(c, fn)
	}
	for _, c := range s.Definitions {
		walk(c, fn)
	}
	for _, list := range [][]*jsonschema.Schema{s.AllOf, s.AnyOf, s.OneOf, s.PrefixItems, s.ItemsArray} {
		for _, c := range list {
			walk(c, fn)
		}
	}
	for _, c := range []*jsonschema.Schema{s.Items, s.AdditionalProperties, s.Not, s.AdditionalItems, s.Contains} {
		walk(c, fn)
	}
}

// applyTags copies the constraint tags of t's fields onto the properties of s,
// recursing into nested structs, slices of structs and maps of structs.
func applyTags(s *jsonschema.Schema, t reflect.Type) error {
	for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice || t.Kind() == reflect.Array || t.Kind() == reflect.Map {
		switch {
		case t.Kind() == reflect.Pointer:
		case s.Items != nil && (t.Kind() == reflect.Slice || t.Kind() == reflect.Array):
			s = s.Items
		case s.AdditionalProperties != nil && t.Kind() == reflect.Map:
			s = s.AdditionalProperties
		default:
			return nil
		}
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct || s == nil || s.Properties == nil {
		return nil
	}
	for _, f := range reflect.VisibleFields(t) {
		name := jsonName(f)
		prop := s.Properties[name]
		if name == "" || prop == nil || f.Anonymous {
			continue
		}
		if err := applyFieldTags(prop, f); err != nil {
			return fmt.Errorf("field %s: %w", f.Name, err)
		}
		if err := applyTags(prop, f.Type); err != nil {
			return err
		}
	}
	return nil
}

func jsonName(f reflect.StructField) string {
	if !f.IsExported() {
		return ""
	}
	tag := f.Tag.Get("json")
	if tag == "-" {
		return ""
	}
	name, _, _ := strings.Cut(tag, ",")
	if name == "" {
		name = f.Name
	}
	return name
}

func applyFieldTags(p *jsonschema.Schema, f reflect.StructField) error {
	if v, ok := f.Tag.Lookup("enum"); ok {
		p.Enum = nil
		for _, e := range strings.Split(v, ",") {
			p.Enum = append(p.Enum, e)
		}
	}
	for _, nt := range []struct {
		tag string
		dst **float64
	}{{"minimum", &p.Minimum}, {"maximum", &p.Maximum}} {
		if v, ok := f.Tag.Lookup(nt.tag); ok {
			n, err := strconv.ParseFloat(v, 64)
			if err != nil {
				return fmt.Errorf("%s tag: %w", nt.tag, err)
			}
			*nt.dst = &n
		}
	}
	for _, it := range []struct {
		tag string
		dst **int
	}{{"minLength", &p.MinLength}, {"maxLength", &p.MaxLength}, {"minItems", &p.MinItems}, {"maxItems", &p.MaxItems}} {
		if v, ok := f.Tag.Lookup(it.tag); ok {
			n, err := strconv.Atoi(v)
			if err != nil {
				return fmt.Errorf("%s tag: %w", it.tag, err)
			}
			*it.dst = &n
		}
	}
	if v, ok := f.Tag.Lookup("pattern"); ok {
		p.Pattern = v
	}
	if v, ok := f.Tag.Lookup("default"); ok {
		if !json.Valid([]byte(v)) {
			return fmt.Errorf("default tag %q is not JSON", v)
		}
		p.Default = json.RawMessage(v)
	}
	return nil
}
