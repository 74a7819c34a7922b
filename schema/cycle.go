package schema

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
)

// checkCycles refuses a schema that can refer back to itself without
// descending into the data ({"$defs": {"a": {"$ref": "#/$defs/a"}}}, or
// {"anyOf": [{"$ref": "#"}]}): validating any value against it recurses
// until the stack overflows, in jsonschema-go as in any validator, and a
// stack overflow is a fatal error that no recover catches. Such a schema
// can arrive from an MCP server or an operator's output type. A $ref
// inside properties, items and the like is fine: each step goes one level
// into the data, which is finite.
//
// Local references are followed ("#", "#/$defs/NAME",
// "#/definitions/NAME"); others cannot be resolved here.
func checkCycles(root *jsonschema.Schema) error {
	const visiting, done = 1, 2
	state := map[*jsonschema.Schema]int{}
	var visit func(s *jsonschema.Schema) error
	visit = func(s *jsonschema.Schema) error {
		switch state[s] {
		case visiting:
			return fmt.Errorf("the schema refers to itself without going into the data (through $ref %q or an allOf, anyOf, oneOf, not or if/then/else around it); no value could be checked against it", s.Ref)
		case done:
			return nil
		}
		state[s] = visiting
		for _, next := range sameInstance(root, s) {
			if err := visit(next); err != nil {
				return err
			}
		}
		state[s] = done
		return nil
	}
	var walkErr error
	walkSchemas(root, func(s *jsonschema.Schema) bool {
		walkErr = visit(s)
		return walkErr == nil
	})
	return walkErr
}

// sameInstance returns the schemas that apply to the same value as s.
func sameInstance(root, s *jsonschema.Schema) []*jsonschema.Schema {
	out := slices.Concat(s.AllOf, s.AnyOf, s.OneOf,
		[]*jsonschema.Schema{s.Not, s.If, s.Then, s.Else, localRef(root, s.Ref)},
		slices.Collect(maps.Values(s.DependentSchemas)), slices.Collect(maps.Values(s.DependencySchemas)))
	return slices.DeleteFunc(out, func(x *jsonschema.Schema) bool { return x == nil })
}

// localRef resolves "#", "#/$defs/NAME" and "#/definitions/NAME".
func localRef(root *jsonschema.Schema, ref string) *jsonschema.Schema {
	switch {
	case ref == "#":
		return root
	case strings.HasPrefix(ref, "#/$defs/"):
		return root.Defs[strings.TrimPrefix(ref, "#/$defs/")]
	case strings.HasPrefix(ref, "#/definitions/"):
		return root.Definitions[strings.TrimPrefix(ref, "#/definitions/")]
	}
	return nil
}

// walkSchemas calls f on s and every schema inside it, until f returns
// false.
func walkSchemas(s *jsonschema.Schema, f func(*jsonschema.Schema) bool) bool {
	if s == nil {
		return true
	}
	if !f(s) {
		return false
	}
	children := slices.Concat(s.AllOf, s.AnyOf, s.OneOf, s.PrefixItems, s.ItemsArray,
		[]*jsonschema.Schema{s.Not, s.If, s.Then, s.Else, s.Items, s.AdditionalItems, s.Contains,
			s.AdditionalProperties, s.PropertyNames, s.UnevaluatedItems, s.UnevaluatedProperties})
	for _, m := range []map[string]*jsonschema.Schema{s.Defs, s.Definitions, s.Properties, s.PatternProperties, s.DependentSchemas, s.DependencySchemas} {
		for _, k := range slices.Sorted(maps.Keys(m)) {
			children = append(children, m[k])
		}
	}
	for _, c := range children {
		if !walkSchemas(c, f) {
			return false
		}
	}
	return true
}
