package schema

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/google/jsonschema-go/jsonschema"
)

// Validator checks argument objects against one schema. Build it once per
// tool with [Compile]; it is safe for concurrent use.
//
// Two engines sit behind it. Schemas that use only the keywords tool inputs
// use (type, enum, const, numeric and string bounds, pattern, properties,
// required, additionalProperties, items, array bounds, local $ref,
// anyOf/oneOf/allOf/not) are checked by a small validator over the decoded
// JSON that reports the instance path of each failure and uses no
// reflection; anything else goes to jsonschema-go, the validator
// docs/design.md names. BenchmarkInvoke is the measured reason: jsonschema-go's
// reflection made validation a third of a call's cost.
type Validator struct {
	schema   *jsonschema.Schema
	resolved *jsonschema.Resolved
	fast     *compiled // nil when the schema needs jsonschema-go
}

// Compile resolves s (its $refs and $defs) for validation.
func Compile(s *jsonschema.Schema) (*Validator, error) {
	if err := checkCycles(s); err != nil {
		return nil, fmt.Errorf("compile schema: %w", err)
	}
	r, err := s.Resolve(&jsonschema.ResolveOptions{ValidateDefaults: false})
	if err != nil {
		return nil, fmt.Errorf("compile schema: %w", err)
	}
	v := &Validator{schema: s, resolved: r}
	if fast, ok := compileFast(s); ok {
		v.fast = fast
	}
	return v, nil
}

// ValidateAll checks a decoded JSON value and returns every failure with the
// JSON pointer of the value at fault (jsonschema-go, for schemas the fast
// validator does not cover, reports only the first).
func (v *Validator) ValidateAll(value any) []FieldError {
	if v.fast != nil {
		st := vstate{all: true}
		v.fast.check(value, &st)
		st.finish()
		return st.errs
	}
	if err := v.resolved.Validate(value); err != nil {
		return []FieldError{*toFieldError(err)}
	}
	return nil
}

// Schema returns the schema v checks against.
func (v *Validator) Schema() *jsonschema.Schema { return v.schema }

// FieldError is a validation failure: which field, and the rule it broke.
type FieldError struct {
	Field   string // a path such as "edits[0].old_string"; "" for the value itself
	Pointer string // the JSON pointer of the value at fault, e.g. "/edits/0/old_string"
	Rule    string // the keyword's complaint, e.g. `minimum: -1 is less than 0`
	// Keyword is the JSON Schema keyword that failed ("minimum",
	// "required", "additionalProperties"...), or "" when the validator
	// does not say.
	Keyword string
}

// keywordOf names the keyword behind a rule: the word before its first
// colon, or the keyword of the two rules worded for people.
func keywordOf(rule string) string {
	switch {
	case strings.HasPrefix(rule, "required field"):
		return "required"
	case strings.HasPrefix(rule, "unknown field"):
		return "additionalProperties"
	}
	kw, _, ok := strings.Cut(rule, ":")
	if !ok || kw == "" || strings.ContainsFunc(kw, func(r rune) bool { return !('a' <= r && r <= 'z' || 'A' <= r && r <= 'Z') }) {
		return ""
	}
	return kw
}

func (e *FieldError) Error() string {
	if e.Field == "" {
		return e.Rule
	}
	return fmt.Sprintf("field %q: %s", e.Field, e.Rule)
}

// Validate checks args, a decoded JSON object, in place. Explicit nulls for
// optional properties are removed first (they mean "absent"); Validate reports
// whether it removed any, so a caller holding the raw JSON knows to re-encode.
// A failure is a *FieldError.
func (v *Validator) Validate(args map[string]any) (changed bool, err error) {
	changed = hasNull(args) && dropNulls(args, v.schema, v.schema)
	if v.fast != nil {
		var stack [8]pathElem
		st := vstate{stack: stack[:0]}
		v.fast.check(args, &st)
		st.finish()
		if len(st.errs) > 0 {
			return changed, &st.errs[0]
		}
		return changed, nil
	}
	if err := v.resolved.Validate(args); err != nil {
		return changed, toFieldError(err)
	}
	return changed, nil
}

// dropNulls deletes properties whose value is null and which the schema does
// not require, recursing into nested objects it has schemas for.
func dropNulls(m map[string]any, s, root *jsonschema.Schema) bool {
	s = deref(s, root)
	if s == nil {
		return false
	}
	changed := false
	for k, val := range m {
		if val == nil {
			if !contains(s.Required, k) && !allowsNull(deref(s.Properties[k], root)) {
				delete(m, k)
				changed = true
			}
			continue
		}
		if sub, ok := val.(map[string]any); ok && s.Properties[k] != nil {
			changed = dropNulls(sub, s.Properties[k], root) || changed
		}
		if list, ok := val.([]any); ok && s.Properties[k] != nil {
			items := deref(s.Properties[k], root)
			if items != nil && items.Items != nil {
				for _, e := range list {
					if sub, ok := e.(map[string]any); ok {
						changed = dropNulls(sub, items.Items, root) || changed
					}
				}
			}
		}
	}
	return changed
}

func allowsNull(s *jsonschema.Schema) bool {
	return s != nil && (s.Type == "null" || contains(s.Types, "null") || (s.Type == "" && len(s.Types) == 0))
}

// deref follows a local "#/$defs/X" reference.
func deref(s, root *jsonschema.Schema) *jsonschema.Schema {
	for i := 0; s != nil && s.Ref != "" && i < 16; i++ {
		name, ok := strings.CutPrefix(s.Ref, "#/$defs/")
		if !ok {
			name, ok = strings.CutPrefix(s.Ref, "#/definitions/")
			if !ok {
				return nil
			}
			s = root.Definitions[name]
			continue
		}
		s = root.Defs[name]
	}
	return s
}

func contains(list []string, s string) bool {
	for _, e := range list {
		if e == s {
			return true
		}
	}
	return false
}

// The regular expressions that read jsonschema-go's messages are compiled
// on first use, not when the package is initialised (start-up cost).
var (
	validatingPrefix = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^validating ([^:]*): `) })
	quotedString     = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`"(?:[^"\\]|\\.)*"`) })
)

// firstQuoted returns the least of the Go-quoted strings in a list such as
// ["b" "a"]: jsonschema-go lists missing and extra properties in map
// order, and the same failure must be reported the same way every time.
func firstQuoted(list string) (string, bool) {
	var names []string
	for _, q := range quotedString().FindAllString(list, -1) {
		if name, err := strconv.Unquote(q); err == nil {
			names = append(names, name)
		}
	}
	if len(names) == 0 {
		return "", false
	}
	return slices.Min(names), true
}

// toFieldError turns jsonschema-go's chain of "validating /properties/x: ..."
// wrappers into the field path and the rule that failed.
func toFieldError(err error) *FieldError {
	msg := err.Error()
	deepest := ""
	for {
		m := validatingPrefix().FindStringSubmatch(msg)
		if m == nil {
			break
		}
		deepest = m[1]
		msg = msg[len(m[0]):]
	}
	field := schemaPathToField(deepest)
	for _, kw := range []string{"required: missing properties: ", "unexpected additional properties "} {
		if rest, ok := strings.CutPrefix(msg, kw); ok {
			if name, ok := firstQuoted(rest); ok {
				field = joinField(field, name)
			}
			if kw[0] == 'u' {
				msg = "unknown field (the schema allows no other properties)"
			} else {
				msg = "required field is missing"
			}
		}
	}
	rule := tidyNumbers(msg)
	return &FieldError{Field: field, Rule: rule, Keyword: keywordOf(rule)}
}

// Compiled on first use (start-up cost).
var (
	ratio       = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(-?\d+)/1\b`) })
	zeroDecimal = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(\d)\.0{6}\b`) })
)

// tidyNumbers rewrites jsonschema-go's "0/1 is less than 1.000000" as "0 is
// less than 1".
func tidyNumbers(s string) string {
	return zeroDecimal().ReplaceAllString(ratio().ReplaceAllString(s, "$1"), "$1")
}

// schemaPathToField turns "/properties/edits/items/properties/old" into
// "edits[].old".
func schemaPathToField(p string) string {
	parts := strings.Split(strings.Trim(p, "/"), "/")
	var b strings.Builder
	for i := 0; i < len(parts); i++ {
		switch parts[i] {
		case "properties":
			if i+1 < len(parts) {
				if b.Len() > 0 {
					b.WriteByte('.')
				}
				b.WriteString(parts[i+1])
				i++
			}
		case "items":
			b.WriteString("[]")
		case "prefixItems":
			if i+1 < len(parts) {
				b.WriteString("[" + parts[i+1] + "]")
				i++
			}
		case "$defs", "definitions":
			b.Reset()
			i++
		default:
			if _, err := strconv.Atoi(parts[i]); err != nil && parts[i] != "" {
				// keywords like anyOf/0 add nothing a model can act on
				continue
			}
		}
	}
	return b.String()
}

func joinField(base, name string) string {
	if base == "" {
		return name
	}
	return base + "." + name
}

// hasNull reports whether any value in m, at any depth, is null; most
// arguments have none, and then nothing needs dropping.
func hasNull(m map[string]any) bool {
	for _, val := range m {
		switch val := val.(type) {
		case nil:
			return true
		case map[string]any:
			if hasNull(val) {
				return true
			}
		case []any:
			for _, e := range val {
				if sub, ok := e.(map[string]any); ok && hasNull(sub) {
					return true
				}
			}
		}
	}
	return false
}
