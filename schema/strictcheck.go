package schema

import (
	"fmt"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
)

// CheckOpenAIStrict reports the first way s breaks OpenAI strict mode's rules: a
// root that is not an object; an object that is not closed or does not list
// every property as required; a keyword strict mode rejects; a $ref that
// does not resolve to $defs.
func CheckOpenAIStrict(s *jsonschema.Schema) error {
	if s.Type != "object" {
		return fmt.Errorf("root type %q, want object", s.Type)
	}
	return checkNode(s, s, "#")
}

func checkNode(root, n *jsonschema.Schema, at string) error {
	if n == nil {
		return nil
	}
	switch {
	case n.Default != nil, n.MinLength != nil, n.MaxLength != nil, n.AllOf != nil, n.OneOf != nil, n.Not != nil,
		n.If != nil, n.PatternProperties != nil, n.MinProperties != nil, n.MaxProperties != nil, n.Schema != "":
		return fmt.Errorf("%s: a keyword strict mode rejects", at)
	}
	if n.Ref != "" {
		name, ok := strings.CutPrefix(n.Ref, "#/$defs/")
		if !ok || root.Defs[name] == nil {
			return fmt.Errorf("%s: $ref %q does not resolve", at, n.Ref)
		}
	}
	isObject := n.Type == "object"
	for _, t := range n.Types {
		isObject = isObject || t == "object"
	}
	if isObject {
		if n.AdditionalProperties == nil || n.AdditionalProperties.Not == nil {
			return fmt.Errorf("%s: object not closed (additionalProperties must be false)", at)
		}
		if len(n.Required) != len(n.Properties) {
			return fmt.Errorf("%s: %d properties but %d required", at, len(n.Properties), len(n.Required))
		}
		for _, r := range n.Required {
			if n.Properties[r] == nil {
				return fmt.Errorf("%s: required %q is not a property", at, r)
			}
		}
	}
	for k, p := range n.Properties {
		if untyped(p) {
			return fmt.Errorf("%s/properties/%s: no type", at, k)
		}
		if err := checkNode(root, p, at+"/properties/"+k); err != nil {
			return err
		}
	}
	for k, d := range n.Defs {
		if err := checkNode(root, d, at+"/$defs/"+k); err != nil {
			return err
		}
	}
	for i, a := range n.AnyOf {
		if err := checkNode(root, a, fmt.Sprintf("%s/anyOf/%d", at, i)); err != nil {
			return err
		}
	}
	return checkNode(root, n.Items, at+"/items")
}
