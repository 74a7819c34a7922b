package driver

import (
	"encoding/json"
	"errors"
	"math"
	"slices"
	"strconv"
	"unicode/utf8"

	"github.com/google/jsonschema-go/jsonschema"
)

// jsonschema-go's MarshalJSON goes through reflection and re-validates the
// output of every nested schema, which makes encoding a tool's schema cost
// tens of microseconds — a 100-tool catalogue, milliseconds. appendSchema
// writes the same JSON (the same keywords and values; key order may differ)
// by walking the struct directly. TestSchemaJSONMatchesJSONSchemaGo and
// FuzzSchemaJSON hold it to jsonschema-go's output, field by field.

// appendSchema appends s's JSON to b. When fields is not nil, it receives,
// for each top-level keyword, the offsets of its value in the returned
// slice.
func appendSchema(b []byte, s *jsonschema.Schema, fields map[string][2]int) ([]byte, error) {
	if s == nil {
		return append(b, "null"...), nil
	}
	if err := checkSchema(s); err != nil {
		return nil, err
	}
	w := schemaWriter{b: b, start: len(b), fields: fields}
	w.b = append(w.b, '{')
	var err error
	w.structure(s, &err)
	w.core(s, &err)
	w.validation(s, &err)
	w.applicators(s, &err)
	for _, k := range sortedKeys(s.Extra) {
		w.key(k)
		w.b, err = appendAny(w.b, s.Extra[k], err)
		w.done()
	}
	if err != nil {
		return nil, err
	}
	w.b = append(w.b, '}')
	// As jsonschema-go does: {} is true, {"not":true} is false.
	switch string(w.b[w.start:]) {
	case `{}`:
		w.b = append(w.b[:w.start], "true"...)
	case `{"not":true}`:
		w.b = append(w.b[:w.start], "false"...)
		clear(fields)
	}
	return w.b, nil
}

// structure writes type, properties, dependencies and items, which
// jsonschema-go writes first.
func (w *schemaWriter) structure(s *jsonschema.Schema, err *error) {
	switch {
	case s.Type != "":
		w.key("type")
		w.b = appendString(w.b, s.Type)
		w.done()
	case s.Types != nil:
		w.key("type")
		w.b = appendStrings(w.b, s.Types)
		w.done()
	}
	if s.Properties != nil && *err == nil {
		w.key("properties")
		w.b, *err = appendProperties(w.b, s.Properties, s.PropertyOrder)
		w.done()
	}
	if len(s.DependencySchemas)+len(s.DependencyStrings) > 0 {
		w.key("dependencies")
		w.b, *err = appendDependencies(w.b, s.DependencySchemas, s.DependencyStrings, *err)
		w.done()
	}
	switch {
	case s.Items != nil:
		w.schema("items", s.Items, err)
	case s.ItemsArray != nil:
		w.schemas("items", s.ItemsArray, err)
	}
}

// core writes the core vocabulary and the annotations.
func (w *schemaWriter) core(s *jsonschema.Schema, err *error) {
	w.str("$id", s.ID)
	w.str("$schema", s.Schema)
	w.str("$ref", s.Ref)
	w.str("$comment", s.Comment)
	w.schemaMap("$defs", s.Defs, err)
	w.schemaMap("definitions", s.Definitions, err)
	w.str("$anchor", s.Anchor)
	w.str("$dynamicAnchor", s.DynamicAnchor)
	w.str("$dynamicRef", s.DynamicRef)
	if len(s.Vocabulary) > 0 {
		w.key("$vocabulary")
		w.b, *err = appendAny(w.b, s.Vocabulary, *err)
		w.done()
	}
	w.str("title", s.Title)
	w.str("description", s.Description)
	if len(s.Default) > 0 {
		w.key("default")
		w.b, *err = appendAny(w.b, s.Default, *err)
		w.done()
	}
	w.flag("deprecated", s.Deprecated)
	w.flag("readOnly", s.ReadOnly)
	w.flag("writeOnly", s.WriteOnly)
	w.values("examples", s.Examples, err)
}

// validation writes the assertions on values, arrays and objects.
func (w *schemaWriter) validation(s *jsonschema.Schema, err *error) {
	w.values("enum", s.Enum, err)
	if s.Const != nil {
		w.key("const")
		w.b, *err = appendAny(w.b, *s.Const, *err)
		w.done()
	}
	w.number("multipleOf", s.MultipleOf, err)
	w.number("minimum", s.Minimum, err)
	w.number("maximum", s.Maximum, err)
	w.number("exclusiveMinimum", s.ExclusiveMinimum, err)
	w.number("exclusiveMaximum", s.ExclusiveMaximum, err)
	w.integer("minLength", s.MinLength)
	w.integer("maxLength", s.MaxLength)
	w.str("pattern", s.Pattern)
	w.schemas("prefixItems", s.PrefixItems, err)
	w.integer("minItems", s.MinItems)
	w.integer("maxItems", s.MaxItems)
	w.schema("additionalItems", s.AdditionalItems, err)
	w.flag("uniqueItems", s.UniqueItems)
	w.schema("contains", s.Contains, err)
	w.integer("minContains", s.MinContains)
	w.integer("maxContains", s.MaxContains)
	w.schema("unevaluatedItems", s.UnevaluatedItems, err)
	w.integer("minProperties", s.MinProperties)
	w.integer("maxProperties", s.MaxProperties)
	if len(s.Required) > 0 {
		w.key("required")
		w.b = appendStrings(w.b, s.Required)
		w.done()
	}
	if len(s.DependentRequired) > 0 {
		w.key("dependentRequired")
		w.b, *err = appendAny(w.b, s.DependentRequired, *err)
		w.done()
	}
}

// applicators writes the keywords that hold subschemas, and the content and
// format annotations.
func (w *schemaWriter) applicators(s *jsonschema.Schema, err *error) {
	w.schemaMap("patternProperties", s.PatternProperties, err)
	w.schema("additionalProperties", s.AdditionalProperties, err)
	w.schema("propertyNames", s.PropertyNames, err)
	w.schema("unevaluatedProperties", s.UnevaluatedProperties, err)
	w.schemas("allOf", s.AllOf, err)
	w.schemas("anyOf", s.AnyOf, err)
	w.schemas("oneOf", s.OneOf, err)
	w.schema("not", s.Not, err)
	w.schema("if", s.If, err)
	w.schema("then", s.Then, err)
	w.schema("else", s.Else, err)
	w.schemaMap("dependentSchemas", s.DependentSchemas, err)
	w.str("contentEncoding", s.ContentEncoding)
	w.str("contentMediaType", s.ContentMediaType)
	w.schema("contentSchema", s.ContentSchema, err)
	w.str("format", s.Format)
}

// checkSchema makes the checks jsonschema-go's MarshalJSON makes.
func checkSchema(s *jsonschema.Schema) error {
	switch {
	case s.Type != "" && s.Types != nil:
		return errors.New("both Type and Types are set; at most one should be")
	case s.Defs != nil && s.Definitions != nil:
		return errors.New("both Defs and Definitions are set; at most one should be")
	case s.Items != nil && s.ItemsArray != nil:
		return errors.New("both Items and ItemsArray are set; at most one should be")
	}
	for i, p := range s.PropertyOrder {
		if slices.Contains(s.PropertyOrder[:i], p) {
			return errors.New("property order slice cannot contain duplicate entries, found duplicate " + strconv.Quote(p))
		}
	}
	for k := range s.DependencySchemas {
		if _, ok := s.DependencyStrings[k]; ok {
			return errors.New("dependency key " + strconv.Quote(k) + " cannot be defined as both a schema and a string array")
		}
	}
	return nil
}

type schemaWriter struct {
	b      []byte
	start  int
	n      int
	fields map[string][2]int
	cur    string
	at     int
}

// key starts a member; done (called by every writer below) records where its
// value lies for the top-level field map.
func (w *schemaWriter) key(k string) {
	if w.n > 0 {
		w.b = append(w.b, ',')
	}
	w.n++
	w.b = appendString(w.b, k)
	w.b = append(w.b, ':')
	w.cur, w.at = k, len(w.b)
}

func (w *schemaWriter) done() {
	if w.fields != nil {
		w.fields[w.cur] = [2]int{w.at, len(w.b)}
	}
}

func (w *schemaWriter) str(k, v string) {
	if v != "" {
		w.key(k)
		w.b = appendString(w.b, v)
		w.done()
	}
}

func (w *schemaWriter) flag(k string, v bool) {
	if v {
		w.key(k)
		w.b = append(w.b, "true"...)
		w.done()
	}
}

func (w *schemaWriter) integer(k string, v *int) {
	if v != nil {
		w.key(k)
		w.b = strconv.AppendInt(w.b, int64(*v), 10)
		w.done()
	}
}

func (w *schemaWriter) number(k string, v *float64, err *error) {
	if v != nil {
		w.key(k)
		w.b, *err = appendFloat(w.b, *v, *err)
		w.done()
	}
}

func (w *schemaWriter) values(k string, v []any, err *error) {
	if len(v) > 0 {
		w.key(k)
		w.b, *err = appendAny(w.b, v, *err)
		w.done()
	}
}

func (w *schemaWriter) schema(k string, v *jsonschema.Schema, err *error) {
	if v != nil && *err == nil {
		w.key(k)
		w.b, *err = appendSchema(w.b, v, nil)
		w.done()
	}
}

func (w *schemaWriter) schemas(k string, v []*jsonschema.Schema, err *error) {
	if len(v) == 0 || *err != nil {
		return
	}
	w.key(k)
	w.b = append(w.b, '[')
	for i, s := range v {
		if i > 0 {
			w.b = append(w.b, ',')
		}
		if w.b, *err = appendSchema(w.b, s, nil); *err != nil {
			return
		}
	}
	w.b = append(w.b, ']')
	w.done()
}

func (w *schemaWriter) schemaMap(k string, m map[string]*jsonschema.Schema, err *error) {
	if len(m) == 0 || *err != nil {
		return
	}
	w.key(k)
	w.b, *err = appendProperties(w.b, m, nil)
	w.done()
}

// appendProperties writes m with the keys of order first, then the others
// sorted.
func appendProperties(b []byte, m map[string]*jsonschema.Schema, order []string) ([]byte, error) {
	b = append(b, '{')
	n := 0
	var err error
	write := func(k string) {
		if n > 0 {
			b = append(b, ',')
		}
		n++
		b = appendString(b, k)
		b = append(b, ':')
		b, err = appendSchema(b, m[k], nil)
	}
	for _, k := range order {
		if _, ok := m[k]; ok && err == nil {
			write(k)
		}
	}
	for _, k := range sortedKeys(m) {
		if !slices.Contains(order, k) && err == nil {
			write(k)
		}
	}
	return append(b, '}'), err
}

func appendDependencies(b []byte, schemas map[string]*jsonschema.Schema, strs map[string][]string, err error) ([]byte, error) {
	if err != nil {
		return b, err
	}
	all := make(map[string]any, len(schemas)+len(strs))
	for k, v := range schemas {
		all[k] = v
	}
	for k, v := range strs {
		all[k] = v
	}
	return appendAny(b, all, nil)
}

// appendAny writes a value that is not a schema (enum values, defaults,
// extra keywords) with encoding/json: such values are rare and small.
func appendAny(b []byte, v any, err error) ([]byte, error) {
	if err != nil {
		return b, err
	}
	j, err := json.Marshal(v)
	if err != nil {
		return b, err
	}
	return append(b, j...), nil
}

// appendFloat writes f as encoding/json does.
func appendFloat(b []byte, f float64, err error) ([]byte, error) {
	if math.IsNaN(f) || math.IsInf(f, 0) || f != 0 && (math.Abs(f) < 1e-6 || math.Abs(f) >= 1e21) {
		return appendAny(b, f, err)
	}
	return strconv.AppendFloat(b, f, 'f', -1, 64), err
}

func appendStrings(b []byte, list []string) []byte {
	b = append(b, '[')
	for i, s := range list {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendString(b, s)
	}
	return append(b, ']')
}

// appendString writes s as a JSON string; plain ASCII, the common case, is
// copied as is, anything else goes through encoding/json.
func appendString(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' || c >= utf8.RuneSelf {
			j, _ := json.Marshal(s) // a string always encodes
			return append(b, j...)
		}
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}

func sortedKeys[V any](m map[string]V) []string {
	if len(m) == 0 {
		return nil
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
