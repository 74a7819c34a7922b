package schema

import (
	"errors"
	"fmt"
	"slices"

	"github.com/google/jsonschema-go/jsonschema"
)

// ErrNotStrict is returned by [OpenAIStrict] for a schema that strict mode
// cannot express, such as an object with arbitrary keys (a Go map). Such a
// tool is sent with strict off.
var ErrNotStrict = errors.New("schema cannot be expressed in OpenAI strict mode")

// OpenAIStrict returns a copy of s that meets OpenAI's strict mode for
// function calling:
//
//   - every object is closed (additionalProperties: false) and lists every
//     property in required;
//   - a property that was optional becomes nullable (type [T, "null"], or
//     anyOf with {"type":"null"} for $ref and anyOf properties), so the model
//     may send null for it; [Validator] treats that null as absent;
//   - $defs and $ref are kept (strict mode resolves local references);
//   - a value of any type (a schema with no type, $ref, anyOf, enum or
//     const) cannot be expressed: ErrNotStrict;
//   - oneOf becomes anyOf; keywords strict mode rejects (default, minLength,
//     maxLength, allOf, not, if/then/else, patternProperties, $schema, $id...)
//     are removed.
//
// s itself is not changed.
func OpenAIStrict(s *jsonschema.Schema) (*jsonschema.Schema, error) {
	if s == nil {
		return nil, fmt.Errorf("%w: nil schema", ErrNotStrict)
	}
	out := cloneTree(s)
	if out.Type != "object" {
		return nil, fmt.Errorf("%w: root must be an object, is %q", ErrNotStrict, out.Type)
	}
	var err error
	walk(out, func(n *jsonschema.Schema) {
		if err == nil {
			err = strictNode(n)
		}
	})
	if err != nil {
		return nil, err
	}
	out.Schema, out.ID = "", ""
	return out, nil
}

func strictNode(n *jsonschema.Schema) error {
	if isFalse(n) {
		return nil // the false schema of a closed object: keep its "not"
	}
	n.Default, n.MinLength, n.MaxLength = nil, nil, nil
	n.AllOf, n.Not, n.If, n.Then, n.Else = nil, nil, nil, nil, nil
	n.PatternProperties, n.PropertyNames, n.DependentRequired, n.DependentSchemas = nil, nil, nil, nil
	n.MinProperties, n.MaxProperties, n.UnevaluatedProperties, n.UnevaluatedItems = nil, nil, nil, nil
	n.Examples, n.Comment, n.ReadOnly, n.WriteOnly, n.Deprecated = nil, "", false, false, false
	n.Contains, n.MinContains, n.MaxContains, n.UniqueItems = nil, nil, nil, false
	n.Extra = nil
	if len(n.OneOf) > 0 {
		n.AnyOf = append(n.AnyOf, n.OneOf...)
		n.OneOf = nil
	}
	if n.Items != nil && untyped(n.Items) {
		return fmt.Errorf("%w: array items of any type (strict mode needs a type)", ErrNotStrict)
	}
	if n.Type != "object" && !contains(n.Types, "object") {
		return nil
	}
	if n.AdditionalProperties != nil && !isFalse(n.AdditionalProperties) {
		return fmt.Errorf("%w: an object with arbitrary keys", ErrNotStrict)
	}
	n.AdditionalProperties = &jsonschema.Schema{Not: &jsonschema.Schema{}}
	required := map[string]bool{}
	for _, r := range n.Required {
		required[r] = true
	}
	n.Required = n.Required[:0]
	for _, name := range propertyNames(n) {
		if untyped(n.Properties[name]) {
			return fmt.Errorf("%w: property %q may be any type (strict mode needs a type)", ErrNotStrict, name)
		}
		if !required[name] {
			makeNullable(n.Properties[name])
		}
		n.Required = append(n.Required, name)
	}
	if n.Properties == nil {
		n.Properties = map[string]*jsonschema.Schema{}
	}
	return nil
}

// propertyNames lists n's properties in PropertyOrder first, then the rest
// sorted, so output is deterministic.
func propertyNames(n *jsonschema.Schema) []string {
	var names []string
	seen := map[string]bool{}
	for _, p := range n.PropertyOrder {
		if _, ok := n.Properties[p]; ok && !seen[p] {
			names = append(names, p)
			seen[p] = true
		}
	}
	var rest []string
	for p := range n.Properties {
		if !seen[p] {
			rest = append(rest, p)
		}
	}
	slices.Sort(rest)
	return append(names, rest...)
}

func makeNullable(p *jsonschema.Schema) {
	switch {
	case p.Type != "" && p.Type != "null":
		p.Types = []string{p.Type, "null"}
		p.Type = ""
		if len(p.Enum) > 0 {
			p.Enum = append(p.Enum, nil)
		}
	case len(p.Types) > 0 && !contains(p.Types, "null"):
		p.Types = append(p.Types, "null")
	case p.Ref != "" || len(p.AnyOf) > 0:
		inner := *p
		*p = jsonschema.Schema{Description: inner.Description}
		inner.Description = ""
		if len(inner.AnyOf) > 0 && inner.Ref == "" && inner.Type == "" {
			p.AnyOf = append(inner.AnyOf, &jsonschema.Schema{Type: "null"})
		} else {
			p.AnyOf = []*jsonschema.Schema{&inner, {Type: "null"}}
		}
	}
}

func isFalse(s *jsonschema.Schema) bool {
	return s.Not != nil && s.Not.Type == "" && len(s.Not.Types) == 0 && s.Not.Properties == nil && s.Not.Ref == ""
}

// cloneTree copies s deeply enough for OpenAIStrict to change the copy freely:
// every schema node, and every slice and map the conversion rewrites. It is
// hand-written because jsonschema-go's reflective CloneSchemas was most of a
// cold catalogue conversion's cost (driver/openai's benchmark).
func cloneTree(s *jsonschema.Schema) *jsonschema.Schema {
	if s == nil {
		return nil
	}
	c := *s
	c.Types = slices.Clone(s.Types)
	c.Required = slices.Clone(s.Required)
	c.Enum = slices.Clone(s.Enum)
	c.PropertyOrder = slices.Clone(s.PropertyOrder)
	c.Properties = cloneMap(s.Properties)
	c.Defs = cloneMap(s.Defs)
	c.Definitions = cloneMap(s.Definitions)
	c.PatternProperties = cloneMap(s.PatternProperties)
	c.DependentSchemas = cloneMap(s.DependentSchemas)
	c.AllOf = cloneList(s.AllOf)
	c.AnyOf = cloneList(s.AnyOf)
	c.OneOf = cloneList(s.OneOf)
	c.PrefixItems = cloneList(s.PrefixItems)
	c.ItemsArray = cloneList(s.ItemsArray)
	for _, p := range []**jsonschema.Schema{&c.Items, &c.AdditionalProperties, &c.Not, &c.AdditionalItems,
		&c.Contains, &c.If, &c.Then, &c.Else, &c.PropertyNames, &c.UnevaluatedItems, &c.UnevaluatedProperties, &c.ContentSchema} {
		*p = cloneTree(*p)
	}
	return &c
}

func cloneMap(m map[string]*jsonschema.Schema) map[string]*jsonschema.Schema {
	if m == nil {
		return nil
	}
	out := make(map[string]*jsonschema.Schema, len(m))
	for k, v := range m {
		out[k] = cloneTree(v)
	}
	return out
}

func cloneList(l []*jsonschema.Schema) []*jsonschema.Schema {
	if l == nil {
		return nil
	}
	out := make([]*jsonschema.Schema, len(l))
	for i, v := range l {
		out[i] = cloneTree(v)
	}
	return out
}

// untyped reports whether s says nothing of its value's type.
func untyped(s *jsonschema.Schema) bool {
	return s.Type == "" && len(s.Types) == 0 && s.Ref == "" && len(s.AnyOf) == 0 && len(s.OneOf) == 0 &&
		s.Enum == nil && s.Const == nil
}
