package schema

import (
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/google/jsonschema-go/jsonschema"
)

// compiled is a schema prepared for the fast validator: the keywords tool
// input schemas use, checked on decoded JSON without reflection, reporting
// the instance path of each failure. Schemas with other keywords are
// validated by jsonschema-go instead (see [Compile]).
type compiled struct {
	types            []string
	enum             []any
	constant         *any
	min, max         *float64
	exclMin, exclMax *float64
	multipleOf       *float64
	minLen, maxLen   *int
	pattern          *regexp.Regexp
	props            map[string]*compiled
	required         []string
	additional       *compiled // nil: anything goes
	noAdditional     bool
	items            *compiled
	minItems         *int
	maxItems         *int
	unique           bool
	anyOf, oneOf     []*compiled
	allOf            []*compiled
	not              *compiled
	ref              string
	root             *compiler
}

type compiler struct {
	defs map[string]*compiled
	src  *jsonschema.Schema
}

// compileFast compiles s for the fast validator, or reports that it uses a
// keyword the fast validator does not implement.
func compileFast(s *jsonschema.Schema) (*compiled, bool) {
	c := &compiler{defs: map[string]*compiled{}, src: s}
	for name, d := range s.Defs {
		n, ok := c.node(d)
		if !ok {
			return nil, false
		}
		c.defs["#/$defs/"+name] = n
	}
	for name, d := range s.Definitions {
		n, ok := c.node(d)
		if !ok {
			return nil, false
		}
		c.defs["#/definitions/"+name] = n
	}
	return c.node(s)
}

func (c *compiler) node(s *jsonschema.Schema) (*compiled, bool) {
	if s == nil {
		return nil, true
	}
	if unsupported(s) {
		return nil, false
	}
	n := &compiled{root: c, enum: normalize(s.Enum), min: s.Minimum, max: s.Maximum, exclMin: s.ExclusiveMinimum,
		exclMax: s.ExclusiveMaximum, multipleOf: s.MultipleOf, minLen: s.MinLength, maxLen: s.MaxLength,
		required: s.Required, minItems: s.MinItems, maxItems: s.MaxItems, unique: s.UniqueItems, ref: s.Ref}
	if s.Type != "" {
		n.types = []string{s.Type}
	} else {
		n.types = s.Types
	}
	if s.Const != nil {
		v := normalizeValue(*s.Const)
		n.constant = &v
	}
	if n.ref != "" && !strings.HasPrefix(n.ref, "#/$defs/") && !strings.HasPrefix(n.ref, "#/definitions/") {
		return nil, false
	}
	if s.Pattern != "" {
		re, err := regexp.Compile(s.Pattern)
		if err != nil {
			return nil, false
		}
		n.pattern = re
	}
	var ok bool
	if len(s.Properties) > 0 {
		n.props = map[string]*compiled{}
		for k, p := range s.Properties {
			if n.props[k], ok = c.node(p); !ok {
				return nil, false
			}
		}
	}
	if s.AdditionalProperties != nil {
		if isFalse(s.AdditionalProperties) {
			n.noAdditional = true
		} else if n.additional, ok = c.node(s.AdditionalProperties); !ok {
			return nil, false
		}
	}
	if n.items, ok = c.node(s.Items); !ok {
		return nil, false
	}
	if n.not, ok = c.node(s.Not); !ok {
		return nil, false
	}
	for _, l := range []struct {
		src []*jsonschema.Schema
		dst *[]*compiled
	}{{s.AnyOf, &n.anyOf}, {s.OneOf, &n.oneOf}, {s.AllOf, &n.allOf}} {
		for _, sub := range l.src {
			cn, ok := c.node(sub)
			if !ok {
				return nil, false
			}
			*l.dst = append(*l.dst, cn)
		}
	}
	return n, true
}

// unsupported reports keywords the fast validator leaves to jsonschema-go.
func unsupported(s *jsonschema.Schema) bool {
	return s.PatternProperties != nil || s.PropertyNames != nil || s.DependentRequired != nil ||
		s.DependentSchemas != nil || s.DependencySchemas != nil || s.DependencyStrings != nil ||
		s.If != nil || s.Then != nil || s.Else != nil || s.PrefixItems != nil || s.ItemsArray != nil ||
		s.AdditionalItems != nil || s.Contains != nil || s.UnevaluatedItems != nil ||
		s.UnevaluatedProperties != nil || s.MinProperties != nil || s.MaxProperties != nil ||
		s.DynamicRef != "" || s.DynamicAnchor != "" || s.Anchor != "" || s.ID != ""
}

// normalize makes enum values compare equal to decoded JSON.
func normalize(vs []any) []any {
	if vs == nil {
		return nil
	}
	out := make([]any, len(vs))
	for i, v := range vs {
		out[i] = normalizeValue(v)
	}
	return out
}

func normalizeValue(v any) any {
	b, err := json.Marshal(v)
	if err != nil {
		return v
	}
	var out any
	if json.Unmarshal(b, &out) != nil {
		return v
	}
	return out
}

// vstate is one validation: the failures so far and the instance location,
// kept as a stack so that a location becomes a string only when a failure is
// reported.
type vstate struct {
	all      bool
	errs     []FieldError
	stack    []pathElem
	depth    int  // check calls in progress, alternatives' included
	steps    int  // check calls made, alternatives' included
	exceeded bool // the validation ran out of depth or steps
}

// Bounds of one validation. A schema can refer to itself ($defs/a holding
// {"$ref": "#/$defs/a"}, or alternatives that do), which would recurse
// until the stack overflowed, a fatal error no recover catches, or, through
// anyOf, take exponential time; a schema can come from an MCP server or an
// operator's output type. maxCheckDepth is past the 10,000 levels of
// nesting encoding/json decodes, so real data never reaches it.
const (
	maxCheckDepth = 25_000
	maxCheckSteps = 5_000_000
)

type pathElem struct {
	key   string
	index int // used when key is ""
}

func (st *vstate) push(key string, index int) { st.stack = append(st.stack, pathElem{key, index}) }
func (st *vstate) pop()                       { st.stack = st.stack[:len(st.stack)-1] }

// done reports whether validation should stop: a failure, when only the
// first is wanted.
func (st *vstate) done() bool { return !st.all && len(st.errs) > 0 }

func (st *vstate) pointer() string {
	var b strings.Builder
	for _, e := range st.stack {
		b.WriteByte('/')
		if e.key == "" {
			b.WriteString(strconv.Itoa(e.index))
		} else {
			b.WriteString(escapePointer(e.key))
		}
	}
	return b.String()
}

func (st *vstate) fail(format string, args ...any) {
	ptr := st.pointer()
	rule := fmt.Sprintf(format, args...)
	st.errs = append(st.errs, FieldError{Pointer: ptr, Field: pointerToField(ptr), Rule: rule, Keyword: keywordOf(rule)})
}

const errTooComplex = "the schema is too deep or too complex to check here (does it refer to itself?)"

// finish makes a validation that ran out of budget fail, even where the
// failure was inside an alternative whose failure made the value pass
// ("not").
func (st *vstate) finish() {
	if st.exceeded && len(st.errs) == 0 {
		st.fail(errTooComplex)
	}
}

// check validates v at the current location.
func (n *compiled) check(v any, st *vstate) {
	if n == nil {
		return
	}
	st.steps++
	st.depth++
	defer func() { st.depth-- }()
	if st.depth > maxCheckDepth || st.steps > maxCheckSteps {
		st.exceeded = true
		st.fail(errTooComplex)
		return
	}
	if n.ref != "" {
		if target := n.root.defs[n.ref]; target != nil {
			if target.check(v, st); st.done() {
				return
			}
		}
	}
	if len(n.types) > 0 && !typeMatches(v, n.types) {
		st.fail("type: %s has type %q, want %s", describe(v), jsonType(v), strings.Join(quoteAll(n.types), " or "))
		return
	}
	if n.enum != nil && !containsValue(n.enum, v) {
		st.fail("enum: %s is not one of %s", describe(v), describeList(n.enum))
	}
	if n.constant != nil && !reflect.DeepEqual(*n.constant, v) {
		st.fail("const: %s does not equal %s", describe(v), describe(*n.constant))
	}
	switch v := v.(type) {
	case float64:
		n.checkNumber(v, st)
	case string:
		n.checkString(v, st)
	case []any:
		n.checkArray(v, st)
	case map[string]any:
		n.checkObject(v, st)
	}
	if st.done() {
		return
	}
	n.checkCombinators(v, st)
}

func (n *compiled) checkNumber(v float64, st *vstate) {
	switch {
	case n.min != nil && v < *n.min:
		st.fail("minimum: %s is less than %s", num(v), num(*n.min))
	case n.max != nil && v > *n.max:
		st.fail("maximum: %s is greater than %s", num(v), num(*n.max))
	case n.exclMin != nil && v <= *n.exclMin:
		st.fail("exclusiveMinimum: %s is not greater than %s", num(v), num(*n.exclMin))
	case n.exclMax != nil && v >= *n.exclMax:
		st.fail("exclusiveMaximum: %s is not less than %s", num(v), num(*n.exclMax))
	case n.multipleOf != nil && *n.multipleOf != 0 && !isMultiple(v, *n.multipleOf):
		st.fail("multipleOf: %s is not a multiple of %s", num(v), num(*n.multipleOf))
	}
}

// isMultiple reports whether v is a multiple of m as the decimals a person
// writes mean it: 1.25 is a multiple of 0.01 although 1.25/0.01 is
// 124.99999999999999 in binary floating point. jsonschema-go compares the
// binary quotient exactly and says no; FuzzFastMatchesJSONSchemaGo allows
// this one difference.
func isMultiple(v, m float64) bool {
	q := v / m
	if math.IsInf(q, 0) || math.IsNaN(q) {
		return false
	}
	return math.Abs(q-math.Round(q)) <= 1e-12*math.Max(1, math.Abs(q))
}

func (n *compiled) checkString(v string, st *vstate) {
	if n.minLen != nil || n.maxLen != nil {
		l := utf8.RuneCountInString(v)
		if n.minLen != nil && l < *n.minLen {
			st.fail("minLength: the string has %d characters, fewer than %d", l, *n.minLen)
		}
		if n.maxLen != nil && l > *n.maxLen {
			st.fail("maxLength: the string has %d characters, more than %d", l, *n.maxLen)
		}
	}
	if n.pattern != nil && !n.pattern.MatchString(v) {
		st.fail("pattern: %s does not match %q", describe(v), n.pattern.String())
	}
}

func (n *compiled) checkArray(v []any, st *vstate) {
	if n.minItems != nil && len(v) < *n.minItems {
		st.fail("minItems: %d items, fewer than %d", len(v), *n.minItems)
	}
	if n.maxItems != nil && len(v) > *n.maxItems {
		st.fail("maxItems: %d items, more than %d", len(v), *n.maxItems)
	}
	if n.unique {
	pairs: // one failure for the array, naming the first equal pair
		for i := range v {
			for j := i + 1; j < len(v); j++ {
				if reflect.DeepEqual(v[i], v[j]) {
					st.fail("uniqueItems: items %d and %d are equal", i, j)
					break pairs
				}
			}
		}
	}
	if n.items != nil {
		for i, e := range v {
			st.push("", i)
			n.items.check(e, st)
			st.pop()
			if st.done() {
				return
			}
		}
	}
}

func (n *compiled) checkObject(v map[string]any, st *vstate) {
	for _, r := range n.required {
		if _, ok := v[r]; !ok {
			st.push(r, 0)
			st.fail("required field is missing")
			st.pop()
			if st.done() {
				return
			}
		}
	}
	for k, val := range v {
		st.push(k, 0)
		if p, ok := n.props[k]; ok {
			p.check(val, st)
		} else if n.noAdditional {
			st.fail("unknown field (the schema allows no other properties)")
		} else if n.additional != nil {
			n.additional.check(val, st)
		}
		st.pop()
		if st.done() {
			return
		}
	}
}

func (n *compiled) checkCombinators(v any, st *vstate) {
	for _, s := range n.allOf {
		s.check(v, st)
	}
	if len(n.anyOf) > 0 && countMatching(n.anyOf, v, st) == 0 {
		st.fail("anyOf: %s matches none of the %d allowed shapes", describe(v), len(n.anyOf))
	}
	if len(n.oneOf) > 0 {
		if c := countMatching(n.oneOf, v, st); c != 1 {
			st.fail("oneOf: %s matches %d of the allowed shapes, want exactly 1", describe(v), c)
		}
	}
	if n.not != nil && countMatching([]*compiled{n.not}, v, st) == 1 {
		st.fail("not: %s matches a shape that is not allowed", describe(v))
	}
}

func countMatching(list []*compiled, v any, st *vstate) int {
	c := 0
	for _, s := range list {
		sub := vstate{depth: st.depth, steps: st.steps}
		s.check(v, &sub)
		st.steps, st.exceeded = sub.steps, st.exceeded || sub.exceeded
		if len(sub.errs) == 0 {
			c++
		}
	}
	return c
}

func typeMatches(v any, types []string) bool {
	got := jsonType(v)
	for _, t := range types {
		if t == got || (t == "number" && got == "integer") {
			return true
		}
	}
	return false
}

func jsonType(v any) string {
	switch v := v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case float64:
		if v == math.Trunc(v) && !math.IsInf(v, 0) {
			return "integer"
		}
		return "number"
	case json.Number:
		if _, err := v.Int64(); err == nil {
			return "integer"
		}
		return "number"
	case string:
		return "string"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	}
	return fmt.Sprintf("%T", v)
}

func containsValue(list []any, v any) bool {
	for _, e := range list {
		if reflect.DeepEqual(e, v) {
			return true
		}
	}
	return false
}

func describe(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	if len(b) > 60 {
		return string(b[:57]) + "..."
	}
	return string(b)
}

func describeList(vs []any) string {
	parts := make([]string, len(vs))
	for i, v := range vs {
		parts[i] = describe(v)
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

func quoteAll(s []string) []string {
	out := make([]string, len(s))
	for i, e := range s {
		out[i] = strconv.Quote(e)
	}
	return out
}

func num(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }

func escapePointer(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1")
}

// pointerToField turns "/edits/0/old_string" into "edits[0].old_string".
func pointerToField(ptr string) string {
	if ptr == "" {
		return ""
	}
	var b strings.Builder
	for _, part := range strings.Split(ptr[1:], "/") {
		part = strings.ReplaceAll(strings.ReplaceAll(part, "~1", "/"), "~0", "~")
		if _, err := strconv.Atoi(part); err == nil {
			b.WriteString("[" + part + "]")
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('.')
		}
		b.WriteString(part)
	}
	return b.String()
}
