package gemini

import (
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
	"google.golang.org/genai"
)

// ErrRecursiveSchema is returned by [Schema] for a schema whose $refs lead
// back to themselves: Gemini's Schema has no references, so such a schema
// cannot be written out. [Tools] sends those tools as parametersJsonSchema.
var ErrRecursiveSchema = errors.New("recursive $ref cannot be inlined into a Gemini schema")

// Schema converts a canonical JSON Schema to Gemini's Schema (an OpenAPI 3.0
// subset):
//
//   - $ref is inlined from $defs/definitions (a recursive one is
//     [ErrRecursiveSchema]); $defs, $schema, $id never appear;
//   - a type array such as ["null","array"] becomes the one non-null type
//     with nullable; several non-null types become anyOf; an anyOf/oneOf
//     branch {"type":"null"} becomes nullable;
//   - additionalProperties, patternProperties, not, if/then/else and other
//     keywords Gemini rejects are dropped (the toolkit still validates the
//     arguments against the full schema);
//   - const becomes a one-value enum; enums of non-strings are dropped, their
//     values named in the description; formats Gemini does not know are
//     dropped.
//
// s is not changed.
func Schema(s *jsonschema.Schema) (*genai.Schema, error) {
	if s == nil {
		return nil, nil
	}
	c := converter{root: s, stack: map[*jsonschema.Schema]bool{}}
	return c.convert(s)
}

type converter struct {
	root  *jsonschema.Schema
	stack map[*jsonschema.Schema]bool // the $ref targets being inlined, to catch recursion
}

func (c *converter) convert(s *jsonschema.Schema) (*genai.Schema, error) {
	if s.Ref != "" {
		target, err := c.resolve(s.Ref)
		if err != nil {
			return nil, err
		}
		if c.stack[target] {
			return nil, fmt.Errorf("%w: %s", ErrRecursiveSchema, s.Ref)
		}
		c.stack[target] = true
		out, err := c.convert(target)
		delete(c.stack, target)
		if err != nil {
			return nil, err
		}
		if s.Description != "" {
			out.Description = s.Description // the use site's description is the more specific one
		}
		return out, nil
	}
	out := &genai.Schema{Title: s.Title, Description: s.Description, Pattern: s.Pattern, Minimum: s.Minimum, Maximum: s.Maximum}
	if err := c.types(s, out); err != nil {
		return nil, err
	}
	if err := c.children(s, out); err != nil {
		return nil, err
	}
	limits(s, out)
	values(s, out)
	return out, nil
}

func (c *converter) resolve(ref string) (*jsonschema.Schema, error) {
	if name, ok := strings.CutPrefix(ref, "#/$defs/"); ok && c.root.Defs[name] != nil {
		return c.root.Defs[name], nil
	}
	if name, ok := strings.CutPrefix(ref, "#/definitions/"); ok && c.root.Definitions[name] != nil {
		return c.root.Definitions[name], nil
	}
	if ref == "#" {
		return c.root, nil
	}
	return nil, fmt.Errorf("$ref %q: only local references to $defs or definitions can be inlined", ref)
}

// types sets out's type, nullable and anyOf from s's type, type array,
// anyOf and oneOf.
func (c *converter) types(s *jsonschema.Schema, out *genai.Schema) error {
	types := s.Types
	if s.Type != "" {
		types = []string{s.Type}
	}
	var kept []string
	for _, t := range types {
		if t == "null" {
			out.Nullable = genai.Ptr(true)
			continue
		}
		kept = append(kept, t)
	}
	switch {
	case len(kept) == 1:
		out.Type = genaiType(kept[0])
	case len(kept) > 1:
		for _, t := range kept {
			out.AnyOf = append(out.AnyOf, &genai.Schema{Type: genaiType(t)})
		}
	case len(types) > 0: // only "null"
		out.Type = genai.TypeNULL
	case s.Properties != nil:
		out.Type = genai.TypeObject
	case s.Items != nil:
		out.Type = genai.TypeArray
	}
	branches := append(append([]*jsonschema.Schema{}, s.AnyOf...), s.OneOf...)
	var alts []*genai.Schema
	for _, b := range branches {
		if b.Type == "null" && b.Ref == "" && b.Properties == nil {
			out.Nullable = genai.Ptr(true)
			continue
		}
		g, err := c.convert(b)
		if err != nil {
			return err
		}
		alts = append(alts, g)
	}
	switch {
	case len(alts) == 1 && out.Type == "" && len(out.AnyOf) == 0:
		merge(out, alts[0]) // anyOf [X, null]: just a nullable X
	case len(alts) > 0:
		out.AnyOf = append(out.AnyOf, alts...)
	}
	for _, a := range s.AllOf {
		g, err := c.convert(a)
		if err != nil {
			return err
		}
		merge(out, g)
	}
	return nil
}

// merge copies into dst what src says and dst does not, and unions the
// properties and required lists of object schemas.
func merge(dst, src *genai.Schema) {
	if dst.Type == "" {
		dst.Type = src.Type
	}
	if dst.Description == "" {
		dst.Description = src.Description
	}
	if dst.Title == "" {
		dst.Title = src.Title
	}
	if dst.Format == "" {
		dst.Format = src.Format
	}
	if dst.Items == nil {
		dst.Items = src.Items
	}
	if dst.Enum == nil {
		dst.Enum = src.Enum
	}
	if len(dst.AnyOf) == 0 {
		dst.AnyOf = src.AnyOf
	}
	if src.Nullable != nil {
		dst.Nullable = src.Nullable
	}
	for k, v := range src.Properties {
		if dst.Properties == nil {
			dst.Properties = map[string]*genai.Schema{}
		}
		if _, ok := dst.Properties[k]; !ok {
			dst.Properties[k] = v
			dst.PropertyOrdering = appendOrder(dst.PropertyOrdering, src.PropertyOrdering, k)
		}
	}
	for _, r := range src.Required {
		if !contains(dst.Required, r) {
			dst.Required = append(dst.Required, r)
		}
	}
	if dst.Minimum == nil {
		dst.Minimum, dst.Maximum = src.Minimum, src.Maximum
	}
	if dst.MinLength == nil {
		dst.MinLength, dst.MaxLength, dst.Pattern = src.MinLength, src.MaxLength, src.Pattern
	}
	if dst.MinItems == nil {
		dst.MinItems, dst.MaxItems = src.MinItems, src.MaxItems
	}
}

func appendOrder(order, srcOrder []string, k string) []string {
	if len(srcOrder) == 0 && len(order) == 0 {
		return nil
	}
	return append(order, k)
}

func (c *converter) children(s *jsonschema.Schema, out *genai.Schema) error {
	if s.Items != nil {
		items, err := c.convert(s.Items)
		if err != nil {
			return err
		}
		out.Items = items
	}
	if len(s.Properties) == 0 {
		return nil
	}
	out.Properties = make(map[string]*genai.Schema, len(s.Properties))
	for name, p := range s.Properties {
		g, err := c.convert(p)
		if err != nil {
			return fmt.Errorf("property %q: %w", name, err)
		}
		out.Properties[name] = g
	}
	out.Required = append([]string(nil), s.Required...)
	out.PropertyOrdering = order(s)
	return nil
}

// order keeps the declared property order (Gemini fills arguments in it),
// listing properties the order misses after it, sorted.
func order(s *jsonschema.Schema) []string {
	if len(s.PropertyOrder) == 0 {
		return nil
	}
	var out []string
	seen := map[string]bool{}
	for _, p := range s.PropertyOrder {
		if _, ok := s.Properties[p]; ok && !seen[p] {
			out, seen[p] = append(out, p), true
		}
	}
	var rest []string
	for p := range s.Properties {
		if !seen[p] {
			rest = append(rest, p)
		}
	}
	sort.Strings(rest)
	return append(out, rest...)
}

func limits(s *jsonschema.Schema, out *genai.Schema) {
	i64 := func(p *int) *int64 {
		if p == nil {
			return nil
		}
		v := int64(*p)
		return &v
	}
	out.MinLength, out.MaxLength = i64(s.MinLength), i64(s.MaxLength)
	out.MinItems, out.MaxItems = i64(s.MinItems), i64(s.MaxItems)
	out.MinProperties, out.MaxProperties = i64(s.MinProperties), i64(s.MaxProperties)
	switch s.Format {
	case "enum", "date-time", "int32", "int64", "float", "double":
		out.Format = s.Format
	}
}

// values carries enum, const, default and examples.
func values(s *jsonschema.Schema, out *genai.Schema) {
	enum := s.Enum
	if s.Const != nil {
		enum = []any{*s.Const}
	}
	var strs []string
	allStrings := true
	for _, v := range enum {
		switch v := v.(type) {
		case string:
			strs = append(strs, v)
		case nil:
			out.Nullable = genai.Ptr(true)
		default:
			allStrings = false
		}
	}
	switch {
	case !allStrings: // Gemini enums are strings only; say it in words instead
		out.Description = strings.TrimSpace(out.Description + fmt.Sprintf(" One of: %v.", enum))
	case len(strs) > 0:
		out.Enum = strs
		if out.Type == "" {
			out.Type = genai.TypeString
		}
	}
	if len(s.Default) > 0 {
		out.Default = s.Default
	}
	if len(s.Examples) > 0 {
		out.Example = s.Examples[0]
	}
}

func genaiType(t string) genai.Type {
	switch t {
	case "string":
		return genai.TypeString
	case "number":
		return genai.TypeNumber
	case "integer":
		return genai.TypeInteger
	case "boolean":
		return genai.TypeBoolean
	case "array":
		return genai.TypeArray
	case "object":
		return genai.TypeObject
	case "null":
		return genai.TypeNULL
	}
	return genai.TypeUnspecified
}

func contains(list []string, s string) bool {
	for _, e := range list {
		if e == s {
			return true
		}
	}
	return false
}
