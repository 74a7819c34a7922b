package tools

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/quiverkit/quiver/schema"
	"github.com/quiverkit/quiver/tool"
)

//go:embed validate_output.md
var validateOutputDescription string

// ValidateOutputInput is validate_output's input. Data is any JSON value,
// so its schema is open (no type): providers' strict modes cannot express
// that, and send this tool without strict mode.
type ValidateOutputInput struct {
	OutputType string `json:"outputType,omitempty" jsonschema:"the output type to check against: domain_map, json_object, string_list or one the host registered (required, under this name or as output_type)" minLength:"1"`
	// OutputTypeSnake is outputType spelled output_type, for a model that
	// writes Quiver's style; give one of the two.
	OutputTypeSnake string          `json:"output_type,omitempty" jsonschema:"the same as outputType, spelled as Quiver's other tools spell their arguments: give one of the two" minLength:"1"`
	Data            json.RawMessage `json:"data"`
}

// ValidateOutputOutput is validate_output's typed output: the agent tools'
// ValidationResult (valid, errors and warnings as strings), with the detail
// of each problem beside them.
type ValidateOutputOutput struct {
	OutputType string   `json:"outputType"`
	Valid      bool     `json:"valid"`
	Errors     []string `json:"errors"`   // "POINTER: what is wrong", the pointer left out for the whole value
	Warnings   []string `json:"warnings"` // what the schema allows but looks like a mistake; never makes data invalid
	// Details has one entry per error, then one per warning, in the same
	// order as Errors and Warnings.
	Details []OutputProblem `json:"details"`
}

// OutputProblem is the detail of one error or warning.
type OutputProblem struct {
	Severity string `json:"severity"`          // "error" or "warning"
	Pointer  string `json:"pointer"`           // JSON pointer into data; "" is data itself
	Keyword  string `json:"keyword,omitempty"` // the JSON Schema keyword that failed, for errors
	Message  string `json:"message"`
}

// String is the problem as Errors and Warnings list it.
func (p OutputProblem) String() string {
	if p.Pointer == "" {
		return p.Message
	}
	return p.Pointer + ": " + p.Message
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
	types map[string]*schema.Validator
}

// NewOutputTypes returns a registry holding the built-in output types (see
// [BuiltinOutputTypes]); a host may replace them by registering the same
// names.
func NewOutputTypes() *OutputTypes {
	r := &OutputTypes{types: map[string]*schema.Validator{}}
	for name, s := range BuiltinOutputTypes() {
		if err := r.Register(name, s); err != nil {
			panic("tools: built-in output type " + name + ": " + err.Error()) // a bug in this file
		}
	}
	return r
}

// validOutputTypeName reports whether name is an output type's name: 1 to
// 64 letters, digits, '_', '.' or '-' (the regular expression
// ^[A-Za-z0-9_.-]{1,64}$). It is plain code because that expression,
// compiled at start-up, cost every process 60 KB: its bounded repetition
// compiles to 64 copies.
func validOutputTypeName(name string) bool {
	if name == "" || len(name) > 64 {
		return false
	}
	for i := 0; i < len(name); i++ {
		switch c := name[i]; {
		case 'A' <= c && c <= 'Z', 'a' <= c && c <= 'z', '0' <= c && c <= '9', c == '_', c == '.', c == '-':
		default:
			return false
		}
	}
	return true
}

// Register adds (or replaces) output type name. It refuses a schema whose
// $refs do not resolve within it or whose patterns do not compile, so that
// such faults surface at registration, not in a model's validation.
func (r *OutputTypes) Register(name string, s *jsonschema.Schema) error {
	if !validOutputTypeName(name) {
		return fmt.Errorf("output type %q: a name is 1 to 64 letters, digits, '_', '.' or '-'", name)
	}
	if s == nil {
		return fmt.Errorf("output type %q: nil schema", name)
	}
	v, err := schema.Compile(s)
	if err != nil {
		return fmt.Errorf("output type %q: %w", name, err)
	}
	r.mu.Lock()
	r.types[name] = v
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
	v, ok := r.validator(name)
	if !ok {
		return nil, false
	}
	return v.Schema(), true
}

func (r *OutputTypes) validator(name string) (*schema.Validator, bool) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	v, ok := r.types[name]
	return v, ok
}

func newValidateOutput() *tool.Tool {
	return tool.Func("validate_output", validateOutputDescription, validateOutput,
		tool.InProcess(),
		tool.ReadOnly(),
		tool.WithSchema(func(s *jsonschema.Schema) {
			s.Properties["data"] = &jsonschema.Schema{Description: "the value to check: any JSON value " +
				"(an object, usually); a string holding JSON is parsed first when the schema does not want a string"}
			if !slices.Contains(s.Required, "data") {
				s.Required = append(s.Required, "data")
			}
		}))
}

var outputTypeName = argName{contract: "outputType", snake: "output_type"}

func validateOutput(ctx context.Context, tc tool.Context, in ValidateOutputInput) (*ValidateOutputOutput, error) {
	types, err := tool.Resolve(ctx, tc, OutputTypesKey)
	if err != nil {
		return nil, err
	}
	name, field, err := outputTypeName.value(in.OutputType, in.OutputTypeSnake)
	if err != nil {
		return nil, err
	}
	if name == "" {
		return nil, tool.Errorf(tool.CodeInvalidArguments, "field %q: required field is missing: name the output type to check against", outputTypeName.contract).
			WithDetail("field", outputTypeName.contract)
	}
	v, ok := types.validator(name)
	if !ok {
		names := types.Names()
		if len(names) == 0 {
			return nil, tool.Errorf(tool.CodeInvalidArguments,
				"%s %q: no output types are registered, so there is nothing to check against", field, name)
		}
		return nil, tool.Errorf(tool.CodeInvalidArguments, "%s %q is not registered; the known ones are: %s",
			field, name, strings.Join(names, ", "))
	}
	data, err := decodeData(in.Data)
	if err != nil {
		return nil, tool.Errorf(tool.CodeInvalidArguments, "data: %w", err)
	}
	var warns []OutputProblem
	if str, ok := data.(string); ok && !wantsString(v.Schema()) {
		if parsed, err := decodeData(json.RawMessage(str)); err == nil {
			data = parsed
			warns = append(warns, OutputProblem{Message: "data was a string holding JSON; it was parsed and the JSON checked (send the value itself next time)"})
		}
	}
	var errs []OutputProblem
	for _, fe := range v.ValidateAll(data) {
		msg := fe.Rule
		if fe.Pointer == "" && fe.Field != "" {
			msg = fe.Error() // jsonschema-go's report names the field, not the pointer
		}
		errs = append(errs, OutputProblem{Pointer: fe.Pointer, Keyword: fe.Keyword, Message: msg})
	}
	warns = append(warns, outputHints(v.Schema(), v.Schema(), data, "", 0)...)
	return newValidationResult(name, errs, warns), nil
}

// maxProblems bounds the errors (and, apart, the warnings) one answer lists.
const maxProblems = 100

// newValidationResult sorts the problems by pointer, caps them and lays
// them out as the answer.
func newValidationResult(outputType string, errs, warns []OutputProblem) *ValidateOutputOutput {
	out := &ValidateOutputOutput{OutputType: outputType, Valid: len(errs) == 0,
		Errors: []string{}, Warnings: []string{}, Details: []OutputProblem{}}
	for _, list := range []struct {
		problems []OutputProblem
		severity string
		dst      *[]string
	}{{errs, "error", &out.Errors}, {warns, "warning", &out.Warnings}} {
		slices.SortStableFunc(list.problems, func(a, b OutputProblem) int { return strings.Compare(a.Pointer, b.Pointer) })
		if n := len(list.problems); n > maxProblems {
			list.problems = append(list.problems[:maxProblems:maxProblems],
				OutputProblem{Message: fmt.Sprintf("... and %d more %ss", n-maxProblems, list.severity)})
		}
		for _, p := range list.problems {
			p.Severity = list.severity
			*list.dst = append(*list.dst, p.String())
			out.Details = append(out.Details, p)
		}
	}
	return out
}

// decodeData parses one JSON value as the validator reads JSON: numbers
// as float64, so integers beyond 2^53 lose their last digits.
func decodeData(raw json.RawMessage) (any, error) {
	if len(strings.TrimSpace(string(raw))) == 0 {
		return nil, fmt.Errorf("missing: give the value to check")
	}
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return nil, fmt.Errorf("not JSON: %w", err)
	}
	return v, nil
}

// wantsString reports whether a schema may want a string at its root: it
// names no type, or string among its types.
func wantsString(s *jsonschema.Schema) bool {
	types := s.Types
	if s.Type != "" {
		types = []string{s.Type}
	}
	return len(types) == 0 || slices.Contains(types, "string")
}

// Render lists the errors and warnings with their pointers.
func (o *ValidateOutputOutput) Render() tool.Result {
	var b strings.Builder
	if o.Valid {
		fmt.Fprintf(&b, "valid: the data matches output type %s", o.OutputType)
	} else {
		fmt.Fprintf(&b, "invalid: %d error%s against output type %s", len(o.Errors), plural(len(o.Errors)), o.OutputType)
	}
	for _, p := range o.Details {
		fmt.Fprintf(&b, "\n%s at %s: %s", p.Severity, displayPointer(p.Pointer), p.Message)
	}
	return tool.Text(b.String())
}

func displayPointer(p string) string {
	if p == "" {
		return "(the whole value)"
	}
	return p
}

// unknownPropertyWarning and emptyRequiredWarning are outputHints' words.
const (
	unknownPropertyWarning = "unknown property: the schema does not describe it (it allows it, since the object is open; misspelled?)"
	emptyRequiredWarning   = "required array is empty"
)

// outputHints finds what the schema allows but a model most likely got
// wrong: a property an open object's schema does not describe (a
// misspelling of one it does), and a required array left empty. It
// follows properties, items and local $refs, nothing else: validity is
// the validator's business, and these are only hints.
func outputHints(root, s *jsonschema.Schema, v any, ptr string, depth int) []OutputProblem {
	for depth < maxHintDepth && s != nil && s.Ref != "" {
		s, depth = localDef(root, s.Ref), depth+1
	}
	if s == nil || depth >= maxHintDepth {
		return nil
	}
	var hints []OutputProblem
	switch v := v.(type) {
	case map[string]any:
		for k, val := range v {
			p := ptr + "/" + strings.NewReplacer("~", "~0", "/", "~1").Replace(k)
			sub, described := s.Properties[k]
			switch {
			case described:
				hints = append(hints, outputHints(root, sub, val, p, depth+1)...)
			case len(s.Properties) > 0 && s.AdditionalProperties == nil:
				hints = append(hints, OutputProblem{Pointer: p, Message: unknownPropertyWarning})
			}
			if arr, ok := val.([]any); ok && len(arr) == 0 && slices.Contains(s.Required, k) {
				hints = append(hints, OutputProblem{Pointer: p, Message: emptyRequiredWarning})
			}
		}
	case []any:
		for i, e := range v {
			hints = append(hints, outputHints(root, s.Items, e, fmt.Sprintf("%s/%d", ptr, i), depth+1)...)
		}
	}
	return hints
}

// maxHintDepth bounds outputHints' nesting, $refs included (a $ref cycle
// would not end otherwise).
const maxHintDepth = 64

// localDef resolves "#/$defs/NAME" and "#/definitions/NAME"; anything else
// is nil.
func localDef(root *jsonschema.Schema, ref string) *jsonschema.Schema {
	if name, ok := strings.CutPrefix(ref, "#/$defs/"); ok {
		return root.Defs[name]
	}
	if name, ok := strings.CutPrefix(ref, "#/definitions/"); ok {
		return root.Definitions[name]
	}
	return nil
}

// BuiltinOutputTypes returns the output types validate_output knows with
// no configuration:
//
//   - domain_map, the agent tools' example: a map of a code base's domains,
//     {"domains": [{"name", "path"?, "description"?, "files"?}, ...] (at
//     least one), "layout": {...}, "summary": {...}}. An empty domains list
//     is an error, as the contract's example has it.
//   - json_object: any JSON object, for an answer that must only be JSON.
//   - string_list: an array of strings.
func BuiltinOutputTypes() map[string]*jsonschema.Schema {
	str := func(desc string) *jsonschema.Schema { return &jsonschema.Schema{Type: "string", Description: desc} }
	one := 1
	return map[string]*jsonschema.Schema{
		"domain_map": {
			Type:        "object",
			Description: "a map of a code base's domains",
			Required:    []string{"domains", "layout", "summary"},
			Properties: map[string]*jsonschema.Schema{
				"domains": {Type: "array", MinItems: &one, Description: "the domains, at least one",
					Items: &jsonschema.Schema{Type: "object", Required: []string{"name"},
						Properties: map[string]*jsonschema.Schema{
							"name":        {Type: "string", MinLength: &one, Description: "the domain's name"},
							"path":        str("the directory that holds it, relative to the repository root"),
							"description": str("what the domain is for"),
							"files":       {Type: "array", Items: str("a file of the domain")},
						}}},
				"layout":  {Type: "object", Description: "how the repository is laid out"},
				"summary": {Type: "object", Description: "a summary of the map"},
			},
		},
		"json_object": {Type: "object", Description: "any JSON object"},
		"string_list": {Type: "array", Items: &jsonschema.Schema{Type: "string"}, Description: "an array of strings"},
	}
}
