package tools

import (
	"bytes"
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"math/big"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/quiverkit/quiver/tool"
)

//go:embed validate_output.md
var validateOutputDescription string

// ValidateOutputInput is validate_output's input. Data is any JSON value,
// so its schema is open (no type): providers' strict modes cannot express
// that, and send this tool without strict mode.
type ValidateOutputInput struct {
	OutputType string          `json:"outputType" jsonschema:"the name of the output type to check against" minLength:"1"`
	Data       json.RawMessage `json:"data"`
}

// OutputProblem is one error or warning, at a JSON pointer into data ("" is
// data itself).
type OutputProblem struct {
	Pointer string `json:"pointer"`
	Message string `json:"message"`
}

// ValidateOutputOutput is validate_output's typed output.
type ValidateOutputOutput struct {
	OutputType string          `json:"outputType"`
	Valid      bool            `json:"valid"`
	Errors     []OutputProblem `json:"errors"`
	Warnings   []OutputProblem `json:"warnings"`
}

// ValidateOutput is a typed reference to validate_output, for quiver.Call.
var ValidateOutput = tool.RefTo[ValidateOutputInput, *ValidateOutputOutput]("validate_output")

// OutputTypesKey is the dependency key of the toolkit's output types. It is
// Shared: the toolkit registers types on one *OutputTypes (from code, or
// from [outputs.NAME] in quiver.toml) and every call sees them.
var OutputTypesKey = tool.Key[*OutputTypes]{ID: "quiver.output-types", Shared: true,
	Create: func(context.Context) (*OutputTypes, error) { return NewOutputTypes(), nil }}

// OutputTypes maps output type names to JSON Schemas. Safe for concurrent
// use.
type OutputTypes struct {
	mu    sync.RWMutex
	types map[string]*jsonschema.Schema
}

// NewOutputTypes returns an empty registry.
func NewOutputTypes() *OutputTypes { return &OutputTypes{types: map[string]*jsonschema.Schema{}} }

var outputTypeName = regexp.MustCompile(`^[A-Za-z0-9_.-]{1,64}$`)

// Register adds (or replaces) output type name. It refuses a schema whose
// $refs do not resolve within it or whose patterns do not compile, so that
// such faults surface at registration, not in a model's validation.
func (r *OutputTypes) Register(name string, s *jsonschema.Schema) error {
	if !outputTypeName.MatchString(name) {
		return fmt.Errorf("output type %q: a name is 1 to 64 letters, digits, '_', '.' or '-'", name)
	}
	if s == nil {
		return fmt.Errorf("output type %q: nil schema", name)
	}
	if err := checkSchema(s, s, "#", 0); err != nil {
		return fmt.Errorf("output type %q: %w", name, err)
	}
	r.mu.Lock()
	r.types[name] = s
	r.mu.Unlock()
	return nil
}

// Names returns the registered names, sorted.
func (r *OutputTypes) Names() []string {
	r.mu.RLock()
	defer r.mu.RUnlock()
	names := make([]string, 0, len(r.types))
	for n := range r.types {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// Schema returns the schema of output type name.
func (r *OutputTypes) Schema(name string) (*jsonschema.Schema, bool) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	s, ok := r.types[name]
	return s, ok
}

func init() { register(newValidateOutput) }

func newValidateOutput() *tool.Tool {
	return tool.Func("validate_output", validateOutputDescription, validateOutput,
		tool.ReadOnly(),
		tool.WithSchema(func(s *jsonschema.Schema) {
			s.Properties["data"] = &jsonschema.Schema{Description: "the value to check: any JSON value " +
				"(an object, usually); a string holding JSON is parsed first when the schema does not want a string"}
			if !slices.Contains(s.Required, "data") {
				s.Required = append(s.Required, "data")
			}
		}))
}

func validateOutput(ctx context.Context, tc tool.Context, in ValidateOutputInput) (*ValidateOutputOutput, error) {
	types, err := tool.Resolve(ctx, tc, OutputTypesKey)
	if err != nil {
		return nil, err
	}
	s, ok := types.Schema(in.OutputType)
	if !ok {
		names := types.Names()
		if len(names) == 0 {
			return nil, tool.Errorf(tool.CodeInvalidArguments,
				"outputType %q: no output types are registered, so there is nothing to check against", in.OutputType)
		}
		return nil, tool.Errorf(tool.CodeInvalidArguments, "outputType %q is not registered; the known ones are: %s",
			in.OutputType, strings.Join(names, ", "))
	}
	v, err := decodeData(in.Data)
	if err != nil {
		return nil, tool.Errorf(tool.CodeInvalidArguments, "data: %v", err)
	}
	out := &ValidateOutputOutput{OutputType: in.OutputType, Errors: []OutputProblem{}, Warnings: []OutputProblem{}}
	if str, ok := v.(string); ok && !schemaAllows(s, s, "string") {
		if parsed, err := decodeData(json.RawMessage(str)); err == nil {
			v = parsed
			out.Warnings = append(out.Warnings, OutputProblem{Message: "data was a string holding JSON; it was parsed and the JSON checked (send the value itself next time)"})
		}
	}
	c := &schemaCheck{root: s}
	c.check(s, v, "", 0)
	out.Errors, out.Warnings = append(out.Errors, c.capped(c.errs)...), append(out.Warnings, c.capped(c.warns)...)
	out.Valid = len(out.Errors) == 0
	return out, nil
}

// decodeData parses one JSON value, keeping numbers exact.
func decodeData(raw json.RawMessage) (any, error) {
	if len(bytes.TrimSpace(raw)) == 0 {
		return nil, fmt.Errorf("missing: give the value to check")
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, fmt.Errorf("not JSON: %w", err)
	}
	if dec.More() {
		return nil, fmt.Errorf("more than one JSON value")
	}
	return v, nil
}

// Render lists the errors and warnings with their pointers.
func (o *ValidateOutputOutput) Render() tool.Result {
	var b strings.Builder
	if o.Valid {
		fmt.Fprintf(&b, "valid: the data matches output type %s", o.OutputType)
	} else {
		fmt.Fprintf(&b, "invalid: %d errors against output type %s", len(o.Errors), o.OutputType)
	}
	for _, p := range o.Errors {
		fmt.Fprintf(&b, "\nerror at %s: %s", displayPointer(p.Pointer), p.Message)
	}
	for _, p := range o.Warnings {
		fmt.Fprintf(&b, "\nwarning at %s: %s", displayPointer(p.Pointer), p.Message)
	}
	return tool.Text(b.String())
}

func displayPointer(p string) string {
	if p == "" {
		return "(the whole value)"
	}
	return p
}

// schemaCheck validates a value against a JSON Schema and collects every
// failure with the JSON pointer of the value that fails.
//
// Why not jsonschema-go's validator, which checks the tools' arguments: it
// stops at the first failure and names the schema's path, not the data's. A
// model fixing its output needs every failure, each at its place in the
// data. This walk covers the keywords output schemas use: type, enum,
// const, the string, number, array and object keywords (properties,
// patternProperties, additionalProperties, propertyNames, required,
// dependentRequired, prefixItems, items, contains, uniqueItems and the
// min/max bounds), allOf, anyOf, oneOf, not, if/then/else, and $ref to
// "#", "#/$defs/NAME" or "#/definitions/NAME" (other refs are refused at
// registration). format is an annotation, as JSON Schema 2020-12 makes it
// by default, and is not checked; patterns use Go's RE2 syntax, which
// agrees with ECMA-262 on what output schemas use.
type schemaCheck struct {
	root  *jsonschema.Schema
	errs  []OutputProblem
	warns []OutputProblem
	steps *int // schema nodes visited, shared with sub-checks
}

// Bounds of one check: problems reported, schema nesting followed (which
// stops a $ref cycle), and schema nodes visited in all (which stops
// alternatives that recurse, such as {"anyOf": [{"$ref": "#"}, {"$ref": "#"}]},
// from taking exponential time).
const (
	maxProblems    = 100
	maxSchemaDepth = 64
)

var maxSchemaSteps = 1_000_000 // a variable so that tests reach it quickly

const unknownPropertyWarning = "unknown property: the schema does not describe it (it allows it, since the object is open; misspelled?)"

func (c *schemaCheck) fail(ptr, format string, args ...any) {
	c.errs = append(c.errs, OutputProblem{Pointer: ptr, Message: fmt.Sprintf(format, args...)})
}

func (c *schemaCheck) warn(ptr, msg string) {
	c.warns = append(c.warns, OutputProblem{Pointer: ptr, Message: msg})
}

// capped drops repeated problems, keeps the first maxProblems and says how
// many more there were.
func (c *schemaCheck) capped(list []OutputProblem) []OutputProblem {
	seen := map[OutputProblem]bool{}
	list = slices.DeleteFunc(list, func(p OutputProblem) bool {
		dup := seen[p]
		seen[p] = true
		return dup
	})
	if len(list) <= maxProblems {
		return list
	}
	more := len(list) - maxProblems
	return append(list[:maxProblems:maxProblems], OutputProblem{Message: fmt.Sprintf("... and %d more like these", more)})
}

func (c *schemaCheck) sub() *schemaCheck { return &schemaCheck{root: c.root, steps: c.steps} }

func (c *schemaCheck) check(s *jsonschema.Schema, v any, ptr string, depth int) {
	if c.steps == nil {
		c.steps = new(int)
	}
	*c.steps++
	switch {
	case s == nil:
		return
	case *c.steps > maxSchemaSteps:
		// fail every check from here on, so that no alternative passes
		// for want of being checked; the duplicates are merged at the end
		c.fail(ptr, "the schema is too complex to check here (over %d steps); simplify its alternatives", maxSchemaSteps)
		return
	case depth > maxSchemaDepth:
		c.fail(ptr, "the schema nests deeper than %d levels here (a $ref cycle?)", maxSchemaDepth)
		return
	case isFalseSchema(s):
		c.fail(ptr, "no value is allowed here")
		return
	}
	if s.Ref != "" {
		c.check(resolveRef(c.root, s.Ref), v, ptr, depth+1)
	}
	if !c.checkType(s, v, ptr) {
		return
	}
	c.checkEnum(s, v, ptr)
	switch x := v.(type) {
	case string:
		c.checkString(s, x, ptr)
	case json.Number:
		c.checkNumber(s, x, ptr)
	case map[string]any:
		c.checkObject(s, x, ptr, depth)
	case []any:
		c.checkArray(s, x, ptr, depth)
	}
	c.checkAllOf(s, v, ptr, depth)
	c.checkAlternatives(s, v, ptr, depth)
	if s.Not != nil && c.passes(s.Not, v, ptr, depth) {
		c.fail(ptr, `must not match the "not" schema`)
	}
	if s.If != nil {
		if c.passes(s.If, v, ptr, depth) {
			c.check(s.Then, v, ptr, depth+1)
		} else {
			c.check(s.Else, v, ptr, depth+1)
		}
	}
}

// passes reports whether v matches s, without reporting anything.
func (c *schemaCheck) passes(s *jsonschema.Schema, v any, ptr string, depth int) bool {
	sc := c.sub()
	sc.check(s, v, ptr, depth+1)
	return len(sc.errs) == 0
}

// checkType reports a type mismatch and returns false on one: the other
// keywords would only add noise about a value of the wrong kind.
func (c *schemaCheck) checkType(s *jsonschema.Schema, v any, ptr string) bool {
	want := s.Types
	if s.Type != "" {
		want = []string{s.Type}
	}
	if len(want) == 0 {
		return true
	}
	got := jsonTypeOf(v)
	for _, w := range want {
		if w == got || (w == "number" && got == "integer") {
			return true
		}
	}
	c.fail(ptr, "want %s, got %s %s", strings.Join(want, " or "), got, schemaPreview(v))
	return false
}

func (c *schemaCheck) checkEnum(s *jsonschema.Schema, v any, ptr string) {
	if s.Const != nil && !jsonEqual(v, *s.Const) {
		c.fail(ptr, "must be %s, is %s", schemaPreview(*s.Const), schemaPreview(v))
	}
	if len(s.Enum) == 0 {
		return
	}
	for _, e := range s.Enum {
		if jsonEqual(v, e) {
			return
		}
	}
	var opts []string
	for _, e := range s.Enum[:min(len(s.Enum), 12)] {
		opts = append(opts, schemaPreview(e))
	}
	if len(s.Enum) > 12 {
		opts = append(opts, "...")
	}
	c.fail(ptr, "must be one of %s; is %s", strings.Join(opts, ", "), schemaPreview(v))
}

func (c *schemaCheck) checkString(s *jsonschema.Schema, str string, ptr string) {
	n := len([]rune(str))
	if s.MinLength != nil && n < *s.MinLength {
		c.fail(ptr, "must be at least %d characters long, is %d", *s.MinLength, n)
	}
	if s.MaxLength != nil && n > *s.MaxLength {
		c.fail(ptr, "must be at most %d characters long, is %d", *s.MaxLength, n)
	}
	if s.Pattern != "" {
		if re, err := compileSchemaPattern(s.Pattern); err == nil && !re.MatchString(str) {
			c.fail(ptr, "must match the pattern %s", s.Pattern)
		}
	}
}

func (c *schemaCheck) checkNumber(s *jsonschema.Schema, num json.Number, ptr string) {
	v, ok := new(big.Rat).SetString(num.String())
	if !ok {
		c.fail(ptr, "%s is not a number this check can read", num)
		return
	}
	bounds := []struct {
		limit  *float64
		holds  func(cmp int) bool
		format string
	}{
		{s.Minimum, func(c int) bool { return c >= 0 }, "must be at least %s, is %s"},
		{s.Maximum, func(c int) bool { return c <= 0 }, "must be at most %s, is %s"},
		{s.ExclusiveMinimum, func(c int) bool { return c > 0 }, "must be greater than %s, is %s"},
		{s.ExclusiveMaximum, func(c int) bool { return c < 0 }, "must be less than %s, is %s"},
	}
	for _, b := range bounds {
		if b.limit != nil && !b.holds(v.Cmp(schemaRat(*b.limit))) {
			c.fail(ptr, b.format, schemaNumber(*b.limit), num)
		}
	}
	if s.MultipleOf != nil && *s.MultipleOf > 0 {
		if !new(big.Rat).Quo(v, schemaRat(*s.MultipleOf)).IsInt() {
			c.fail(ptr, "must be a multiple of %s, is %s", schemaNumber(*s.MultipleOf), num)
		}
	}
}

func (c *schemaCheck) checkObject(s *jsonschema.Schema, obj map[string]any, ptr string, depth int) {
	for _, name := range s.Required {
		v, ok := obj[name]
		switch arr, isArr := v.([]any); {
		case !ok:
			c.fail(ptr+"/"+pointerToken(name), "required property is missing")
		case isArr && len(arr) == 0:
			c.warn(ptr+"/"+pointerToken(name), "required array is empty")
		}
	}
	for name, deps := range s.DependentRequired {
		if _, ok := obj[name]; !ok {
			continue
		}
		for _, d := range deps {
			if _, ok := obj[d]; !ok {
				c.fail(ptr+"/"+pointerToken(d), "required when %q is present, and missing", name)
			}
		}
	}
	if s.MinProperties != nil && len(obj) < *s.MinProperties {
		c.fail(ptr, "must have at least %d properties, has %d", *s.MinProperties, len(obj))
	}
	if s.MaxProperties != nil && len(obj) > *s.MaxProperties {
		c.fail(ptr, "must have at most %d properties, has %d", *s.MaxProperties, len(obj))
	}
	for _, k := range slices.Sorted(maps.Keys(obj)) {
		c.checkProperty(s, k, obj[k], ptr+"/"+pointerToken(k), depth)
	}
}

// checkProperty checks one property against properties, patternProperties
// and additionalProperties; an undescribed property of an open object is a
// warning.
func (c *schemaCheck) checkProperty(s *jsonschema.Schema, k string, v any, ptr string, depth int) {
	if s.PropertyNames != nil {
		sc := c.sub()
		sc.check(s.PropertyNames, k, ptr, depth+1)
		for _, e := range sc.errs {
			c.fail(ptr, "property name %q: %s", k, e.Message)
		}
	}
	described := false
	if ps, ok := s.Properties[k]; ok {
		c.check(ps, v, ptr, depth+1)
		described = true
	}
	for pat, ps := range s.PatternProperties {
		if re, err := compileSchemaPattern(pat); err == nil && re.MatchString(k) {
			c.check(ps, v, ptr, depth+1)
			described = true
		}
	}
	switch {
	case described:
	case s.AdditionalProperties != nil && isFalseSchema(s.AdditionalProperties):
		c.fail(ptr, "unknown property; the schema allows only: %s", strings.Join(slices.Sorted(maps.Keys(s.Properties)), ", "))
	case s.AdditionalProperties != nil:
		c.check(s.AdditionalProperties, v, ptr, depth+1)
	case len(s.Properties) > 0:
		c.warn(ptr, unknownPropertyWarning)
	}
}

func (c *schemaCheck) checkArray(s *jsonschema.Schema, arr []any, ptr string, depth int) {
	prefix := s.PrefixItems
	if len(prefix) == 0 {
		prefix = s.ItemsArray // draft-07 items as an array
	}
	for i, item := range arr {
		ip := ptr + "/" + strconv.Itoa(i)
		switch {
		case i < len(prefix):
			c.check(prefix[i], item, ip, depth+1)
		case s.Items != nil:
			c.check(s.Items, item, ip, depth+1)
		case len(s.ItemsArray) > 0 && s.AdditionalItems != nil:
			c.check(s.AdditionalItems, item, ip, depth+1)
		}
	}
	if s.MinItems != nil && len(arr) < *s.MinItems {
		c.fail(ptr, "must hold at least %d items, holds %d", *s.MinItems, len(arr))
	}
	if s.MaxItems != nil && len(arr) > *s.MaxItems {
		c.fail(ptr, "must hold at most %d items, holds %d", *s.MaxItems, len(arr))
	}
	if s.UniqueItems {
		seen := map[string]int{}
		for i, item := range arr {
			key := canonicalValue(item)
			if j, dup := seen[key]; dup {
				c.fail(ptr+"/"+strconv.Itoa(i), "equals item %d; the items must be unique", j)
				continue
			}
			seen[key] = i
		}
	}
	if s.Contains != nil {
		matched := 0
		for i, item := range arr {
			if c.passes(s.Contains, item, ptr+"/"+strconv.Itoa(i), depth) {
				matched++
			}
		}
		least := 1
		if s.MinContains != nil {
			least = *s.MinContains
		}
		if matched < least {
			c.fail(ptr, `must hold at least %d items that match the "contains" schema, holds %d`, least, matched)
		}
		if s.MaxContains != nil && matched > *s.MaxContains {
			c.fail(ptr, `must hold at most %d items that match the "contains" schema, holds %d`, *s.MaxContains, matched)
		}
	}
}

// checkAllOf checks every branch. A property one branch describes is not
// "unknown" to another: objects composed with allOf describe their
// properties across branches.
func (c *schemaCheck) checkAllOf(s *jsonschema.Schema, v any, ptr string, depth int) {
	if len(s.AllOf) == 0 {
		return
	}
	known := map[string]bool{}
	for _, b := range append([]*jsonschema.Schema{s}, s.AllOf...) {
		if b = derefAll(c.root, b); b != nil {
			for k := range b.Properties {
				known[ptr+"/"+pointerToken(k)] = true
			}
		}
	}
	for _, b := range s.AllOf {
		sc := c.sub()
		sc.check(b, v, ptr, depth+1)
		c.errs = append(c.errs, sc.errs...)
		for _, w := range sc.warns {
			if w.Message != unknownPropertyWarning || !known[w.Pointer] {
				c.warns = append(c.warns, w)
			}
		}
	}
}

// checkAlternatives checks anyOf and oneOf. When no alternative matches,
// the failures of the closest one (fewest errors) are reported, which is
// what a model needs to fix its value; the warnings of the alternative that
// matched are kept.
func (c *schemaCheck) checkAlternatives(s *jsonschema.Schema, v any, ptr string, depth int) {
	for _, group := range []struct {
		name string
		alts []*jsonschema.Schema
	}{{"anyOf", s.AnyOf}, {"oneOf", s.OneOf}} {
		if len(group.alts) == 0 {
			continue
		}
		var passed []int
		var closest *schemaCheck
		closestAt := 0
		for i, alt := range group.alts {
			sc := c.sub()
			sc.check(alt, v, ptr, depth+1)
			if len(sc.errs) == 0 {
				if len(passed) == 0 {
					c.warns = append(c.warns, sc.warns...)
				}
				passed = append(passed, i)
			} else if closest == nil || distance(sc, ptr) < distance(closest, ptr) {
				closest, closestAt = sc, i
			}
		}
		switch {
		case len(passed) == 0:
			c.fail(ptr, "matches none of the %d alternatives (%s); the closest, alternative %d, fails as follows", len(group.alts), group.name, closestAt)
			c.errs = append(c.errs, closest.errs...)
		case group.name == "oneOf" && len(passed) > 1:
			c.fail(ptr, "matches alternatives %v, but must match exactly one (oneOf)", passed)
		}
	}
}

// distance ranks a failed alternative: by its errors, and far behind the
// others if the value is not even of its type.
func distance(sc *schemaCheck, ptr string) int {
	d := len(sc.errs)
	for _, e := range sc.errs {
		if e.Pointer == ptr && strings.HasPrefix(e.Message, "want ") {
			d += 1000
		}
	}
	return d
}

// isFalseSchema reports whether s is the schema false, which jsonschema-go
// reads as {"not": {}}.
func isFalseSchema(s *jsonschema.Schema) bool {
	if s.Not == nil {
		return false
	}
	empty, err := json.Marshal(s.Not)
	return err == nil && (string(empty) == "{}" || string(empty) == "true")
}

// resolveRef returns the schema ref points to within root, or nil.
func resolveRef(root *jsonschema.Schema, ref string) *jsonschema.Schema {
	if ref == "#" {
		return root
	}
	for _, p := range []struct {
		prefix string
		defs   map[string]*jsonschema.Schema
	}{{"#/$defs/", root.Defs}, {"#/definitions/", root.Definitions}} {
		if name, ok := strings.CutPrefix(ref, p.prefix); ok && !strings.Contains(name, "/") {
			name = strings.NewReplacer("~1", "/", "~0", "~").Replace(name)
			return p.defs[name]
		}
	}
	return nil
}

// derefAll follows a chain of $refs from s.
func derefAll(root, s *jsonschema.Schema) *jsonschema.Schema {
	for i := 0; s != nil && s.Ref != "" && i < maxSchemaDepth; i++ {
		s = resolveRef(root, s.Ref)
	}
	return s
}

// schemaAllows reports whether s may accept a value of JSON type typ.
func schemaAllows(root, s *jsonschema.Schema, typ string) bool {
	s = derefAll(root, s)
	if s == nil {
		return true
	}
	for _, alts := range [][]*jsonschema.Schema{s.AnyOf, s.OneOf} {
		if len(alts) > 0 {
			return slices.ContainsFunc(alts, func(a *jsonschema.Schema) bool { return schemaAllows(root, a, typ) })
		}
	}
	switch {
	case s.Type != "":
		return s.Type == typ
	case len(s.Types) > 0:
		return slices.Contains(s.Types, typ)
	}
	return true
}

// checkSchema refuses, at registration, what the check cannot follow:
// references other than to the root or its $defs, references that do not
// resolve, and patterns that do not compile.
func checkSchema(root, s *jsonschema.Schema, at string, depth int) error {
	if s == nil {
		return nil
	}
	if depth > maxSchemaDepth {
		return fmt.Errorf("%s: the schema nests deeper than %d levels", at, maxSchemaDepth)
	}
	if s.Ref != "" && resolveRef(root, s.Ref) == nil {
		return fmt.Errorf(`%s: $ref %q does not resolve (refs must be "#", "#/$defs/NAME" or "#/definitions/NAME")`, at, s.Ref)
	}
	if s.Pattern != "" {
		if _, err := compileSchemaPattern(s.Pattern); err != nil {
			return fmt.Errorf("%s: pattern %q: %w", at, s.Pattern, err)
		}
	}
	for pat := range s.PatternProperties {
		if _, err := compileSchemaPattern(pat); err != nil {
			return fmt.Errorf("%s: patternProperties %q: %w", at, pat, err)
		}
	}
	for name, child := range schemaChildren(s) {
		if err := checkSchema(root, child, at+"/"+name, depth+1); err != nil {
			return err
		}
	}
	return nil
}

// schemaChildren returns s's subschemas by their keyword path.
func schemaChildren(s *jsonschema.Schema) map[string]*jsonschema.Schema {
	out := map[string]*jsonschema.Schema{}
	for kw, m := range map[string]map[string]*jsonschema.Schema{"properties": s.Properties, "patternProperties": s.PatternProperties,
		"$defs": s.Defs, "definitions": s.Definitions, "dependentSchemas": s.DependentSchemas} {
		for k, c := range m {
			out[kw+"/"+pointerToken(k)] = c
		}
	}
	for kw, list := range map[string][]*jsonschema.Schema{"allOf": s.AllOf, "anyOf": s.AnyOf, "oneOf": s.OneOf,
		"prefixItems": s.PrefixItems, "items": s.ItemsArray} {
		for i, c := range list {
			out[kw+"/"+strconv.Itoa(i)] = c
		}
	}
	for kw, c := range map[string]*jsonschema.Schema{"items": s.Items, "additionalProperties": s.AdditionalProperties,
		"additionalItems": s.AdditionalItems, "contains": s.Contains, "propertyNames": s.PropertyNames,
		"not": s.Not, "if": s.If, "then": s.Then, "else": s.Else} {
		if c != nil {
			out[kw] = c
		}
	}
	return out
}

var schemaPatterns sync.Map // pattern -> *regexp.Regexp

func compileSchemaPattern(p string) (*regexp.Regexp, error) {
	if re, ok := schemaPatterns.Load(p); ok {
		return re.(*regexp.Regexp), nil
	}
	re, err := regexp.Compile(p)
	if err != nil {
		return nil, err
	}
	schemaPatterns.Store(p, re)
	return re, nil
}

// jsonTypeOf names v's JSON type; an integral number is "integer".
func jsonTypeOf(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case string:
		return "string"
	case json.Number:
		if r, ok := new(big.Rat).SetString(x.String()); ok && r.IsInt() {
			return "integer"
		}
		return "number"
	case float64:
		if x == math.Trunc(x) {
			return "integer"
		}
		return "number"
	case map[string]any:
		return "object"
	case []any:
		return "array"
	}
	return fmt.Sprintf("%T", v)
}

// jsonEqual compares two JSON values; numbers by value, whether they came
// from the data (json.Number) or the schema (float64).
func jsonEqual(a, b any) bool { return canonicalValue(a) == canonicalValue(b) }

// canonicalValue encodes v with object keys sorted and numbers in one form.
func canonicalValue(v any) string {
	var b strings.Builder
	writeCanonicalValue(&b, v)
	return b.String()
}

func writeCanonicalValue(b *strings.Builder, v any) {
	switch x := v.(type) {
	case json.Number:
		if r, ok := new(big.Rat).SetString(x.String()); ok {
			b.WriteString(r.RatString())
			return
		}
		b.WriteString(x.String())
	case float64:
		b.WriteString(schemaRat(x).RatString())
	case map[string]any:
		b.WriteByte('{')
		for i, k := range slices.Sorted(maps.Keys(x)) {
			if i > 0 {
				b.WriteByte(',')
			}
			kb, _ := json.Marshal(k)
			b.Write(kb)
			b.WriteByte(':')
			writeCanonicalValue(b, x[k])
		}
		b.WriteByte('}')
	case []any:
		b.WriteByte('[')
		for i, e := range x {
			if i > 0 {
				b.WriteByte(',')
			}
			writeCanonicalValue(b, e)
		}
		b.WriteByte(']')
	default:
		raw, _ := json.Marshal(x)
		b.Write(raw)
	}
}

// schemaPreview is a short JSON rendering of v for messages.
func schemaPreview(v any) string {
	raw, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	if s := string(raw); len(s) <= 40 {
		return s
	}
	return string(raw[:37]) + "..."
}

func schemaNumber(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }

// schemaRat is the number a schema author wrote, read back from the
// float64 jsonschema-go holds: the shortest decimal that gives the float,
// so that multipleOf 0.01 means a hundredth, not the binary fraction
// nearest to it.
func schemaRat(f float64) *big.Rat {
	r, ok := new(big.Rat).SetString(strconv.FormatFloat(f, 'g', -1, 64))
	if !ok {
		return new(big.Rat)
	}
	return r
}

// pointerToken escapes one JSON pointer token.
func pointerToken(s string) string {
	return strings.NewReplacer("~", "~0", "/", "~1").Replace(s)
}
