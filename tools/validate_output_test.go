package tools

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/jsonschema-go/jsonschema"
	"github.com/quiverkit/quiver/tool"
)

const reportSchema = `{
 "type": "object",
 "required": ["title", "items", "status"],
 "properties": {
  "title": {"type": "string", "minLength": 3},
  "status": {"enum": ["draft", "final"]},
  "items": {"type": "array", "minItems": 1, "items": {"$ref": "#/$defs/item"}},
  "tags": {"type": "array", "uniqueItems": true, "items": {"type": "string", "pattern": "^[a-z]+$"}},
  "owner": {"anyOf": [{"type": "string", "format": "email"}, {"$ref": "#/$defs/person"}]},
  "meta": {"type": "object", "additionalProperties": {"type": "string"}}
 },
 "$defs": {
  "item": {"type": "object", "required": ["name", "price"], "additionalProperties": false,
   "properties": {"name": {"type": "string"}, "price": {"type": "number", "minimum": 0, "multipleOf": 0.01},
    "qty": {"type": "integer", "exclusiveMinimum": 0}}},
  "person": {"type": "object", "required": ["name"], "properties": {"name": {"type": "string"}}}
 }
}`

func mustSchema(t testing.TB, src string) *jsonschema.Schema {
	t.Helper()
	var s jsonschema.Schema
	if err := json.Unmarshal([]byte(src), &s); err != nil {
		t.Fatal(err)
	}
	return &s
}

// validateEnv is a cacheEnv whose output types hold the given schemas.
func validateEnv(t *testing.T, schemas map[string]string) *cacheEnv {
	e := newCacheEnv(t, nil)
	types := NewOutputTypes()
	for name, src := range schemas {
		if err := types.Register(name, mustSchema(t, src)); err != nil {
			t.Fatal(err)
		}
	}
	e.shared.Provide(OutputTypesKey.ID, types)
	return e
}

func p(ptr, msg string) OutputProblem { return OutputProblem{Pointer: ptr, Message: msg} }

func TestValidateOutputReportsEveryFailureWithItsPointer(t *testing.T) {
	e := validateEnv(t, map[string]string{"report": reportSchema})
	cases := []struct {
		name   string
		data   string
		errors []OutputProblem
		warns  []OutputProblem
	}{
		{"a valid value", `{"title":"Q3 report","status":"final","items":[{"name":"a","price":1.25,"qty":2}],"owner":{"name":"Ann"},"meta":{"k":"v"}}`, nil, nil},
		{"every failure at once",
			`{"title":"Q3","status":"done","items":[{"name":"a"},{"name":"b","price":-1.005,"qty":1.5,"color":"red"}],
			  "tags":["x","Y","x"],"meta":{"a/b":1}}`,
			[]OutputProblem{
				p("/items/0/price", "required property is missing"),
				p("/items/1/color", "unknown property; the schema allows only: name, price, qty"),
				p("/items/1/price", "must be at least 0, is -1.005"),
				p("/items/1/price", "must be a multiple of 0.01, is -1.005"),
				p("/items/1/qty", "want integer, got number 1.5"),
				p("/meta/a~1b", "want string, got integer 1"),
				p("/status", `must be one of "draft", "final"; is "done"`),
				p("/tags/1", "must match the pattern ^[a-z]+$"),
				p("/tags/2", "equals item 0; the items must be unique"),
				p("/title", "must be at least 3 characters long, is 2"),
			}, nil},
		{"a missing required property and the wrong type at the root", `[]`,
			[]OutputProblem{p("", "want object, got array []")}, nil},
		{"warnings: an undescribed property of an open object, an empty required array",
			`{"title":"Q3 report","status":"draft","items":[],"summary":"x","owner":{"name":"Ann","nick":"A"}}`,
			[]OutputProblem{p("/items", "must hold at least 1 items, holds 0")},
			[]OutputProblem{p("/items", "required array is empty"), p("/owner/nick", unknownPropertyWarning), p("/summary", unknownPropertyWarning)}},
		{"no alternative matches: the closest one's failures",
			`{"title":"Q3 report","status":"draft","items":[{"name":"a","price":1}],"owner":{"nick":"A"}}`,
			[]OutputProblem{
				p("/owner", "matches none of the 2 alternatives (anyOf); the closest, alternative 1, fails as follows"),
				p("/owner/name", "required property is missing"),
			}, []OutputProblem{}},
		{"a string holding JSON is parsed",
			`"{\"title\":\"Q3 report\",\"status\":\"final\",\"items\":[{\"name\":\"a\",\"price\":2}]}"`, nil,
			[]OutputProblem{p("", "data was a string holding JSON; it was parsed and the JSON checked (send the value itself next time)")}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res, err := e.run(newValidateOutput(), `{"outputType":"report","data":`+c.data+`}`)
			if err != nil {
				t.Fatal(err)
			}
			out := res.Output.(*ValidateOutputOutput)
			if c.errors == nil {
				c.errors = []OutputProblem{}
			}
			if c.warns == nil {
				c.warns = []OutputProblem{}
			}
			sortProblems(out.Errors)
			sortProblems(out.Warnings)
			if diff := cmp.Diff(c.errors, out.Errors); diff != "" {
				t.Errorf("errors (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(c.warns, out.Warnings); diff != "" {
				t.Errorf("warnings (-want +got):\n%s", diff)
			}
			if out.Valid != (len(c.errors) == 0) {
				t.Errorf("valid = %v", out.Valid)
			}
		})
	}
}

// sortProblems orders problems by pointer, keeping the order within one
// pointer (the walk's order).
func sortProblems(ps []OutputProblem) {
	for i := 1; i < len(ps); i++ {
		for j := i; j > 0 && ps[j].Pointer < ps[j-1].Pointer; j-- {
			ps[j], ps[j-1] = ps[j-1], ps[j]
		}
	}
}

func TestValidateOutputKeywords(t *testing.T) {
	cases := []struct {
		name, schema, data string
		errors             []OutputProblem
	}{
		{"const", `{"const": {"a": [1, 2]}}`, `{"a": [1, 2.0]}`, nil},
		{"const differs", `{"const": 3}`, `4`, []OutputProblem{p("", "must be 3, is 4")}},
		{"oneOf matching two", `{"oneOf": [{"type": "integer"}, {"minimum": 0}]}`, `5`,
			[]OutputProblem{p("", "matches alternatives [0 1], but must match exactly one (oneOf)")}},
		{"oneOf matching one", `{"oneOf": [{"type": "integer"}, {"minimum": 0}]}`, `-5`, nil},
		{"not", `{"not": {"type": "null"}}`, `null`, []OutputProblem{p("", `must not match the "not" schema`)}},
		{"if then", `{"if": {"properties": {"kind": {"const": "a"}}}, "then": {"required": ["x"]}}`, `{"kind": "a"}`,
			[]OutputProblem{p("/x", "required property is missing")}},
		{"allOf across branches knows every property", `{"allOf": [{"properties": {"a": {"type": "string"}}}, {"properties": {"b": {"type": "string"}}}]}`,
			`{"a": "x", "b": 2}`, []OutputProblem{p("/b", "want string, got integer 2")}},
		{"prefixItems and items", `{"prefixItems": [{"type": "string"}], "items": {"type": "integer"}}`, `["a", 1, "b"]`,
			[]OutputProblem{p("/2", `want integer, got string "b"`)}},
		{"contains", `{"contains": {"const": "x"}, "maxItems": 2}`, `["a", "b", "c"]`,
			[]OutputProblem{p("", "must hold at most 2 items, holds 3"), p("", `must hold at least 1 items that match the "contains" schema, holds 0`)}},
		{"false schema", `{"properties": {"gone": false}}`, `{"gone": 1}`, []OutputProblem{p("/gone", "no value is allowed here")}},
		{"maxLength counts characters", `{"maxLength": 2}`, `"éé"`, nil},
		{"a recursive schema", `{"$defs": {"node": {"type": "object", "properties": {"kids": {"type": "array", "items": {"$ref": "#/$defs/node"}}, "v": {"type": "integer"}}}},
			"$ref": "#/$defs/node"}`, `{"kids": [{"kids": [{"v": "deep"}]}]}`, []OutputProblem{p("/kids/0/kids/0/v", `want integer, got string "deep"`)}},
		{"a reference cycle stops", `{"$ref": "#"}`, `1`, []OutputProblem{p("", "the schema nests deeper than 64 levels here (a $ref cycle?)")}},
		{"property names", `{"propertyNames": {"pattern": "^[a-z]+$"}}`, `{"Bad": 1}`,
			[]OutputProblem{p("/Bad", `property name "Bad": must match the pattern ^[a-z]+$`)}},
		{"a long integer is an integer", `{"type": "integer"}`, `123456789012345678901234567890`, nil},
		{"1.0 is an integer", `{"type": "integer"}`, `1.0`, nil},
		{"decimal multiples are exact", `{"multipleOf": 0.1}`, `0.3`, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := validateEnv(t, map[string]string{"t": c.schema})
			res, err := e.run(newValidateOutput(), `{"outputType":"t","data":`+c.data+`}`)
			if err != nil {
				t.Fatal(err)
			}
			out := res.Output.(*ValidateOutputOutput)
			if c.errors == nil {
				c.errors = []OutputProblem{}
			}
			if diff := cmp.Diff(c.errors, out.Errors); diff != "" {
				t.Errorf("errors (-want +got):\n%s", diff)
			}
		})
	}
}

func TestValidateOutputRendersForTheModel(t *testing.T) {
	e := validateEnv(t, map[string]string{"report": reportSchema})
	res, err := e.run(newValidateOutput(), `{"outputType":"report","data":{"title":"Q3 report","status":"final","items":[{"name":"a"}],"extra":1}}`)
	if err != nil {
		t.Fatal(err)
	}
	want := "invalid: 1 errors against output type report\n" +
		"error at /items/0/price: required property is missing\n" +
		"warning at /extra: " + unknownPropertyWarning
	if diff := cmp.Diff(want, res.String()); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestValidateOutputRefusesBadInput(t *testing.T) {
	cases := []struct {
		name    string
		schemas map[string]string
		args    string
		msg     string
	}{
		{"an unknown output type lists the known ones", map[string]string{"report": `{}`, "answer": `{}`},
			`{"outputType":"reprot","data":{}}`, `outputType "reprot" is not registered; the known ones are: answer, report`},
		{"no output types at all", nil, `{"outputType":"x","data":{}}`,
			`outputType "x": no output types are registered, so there is nothing to check against`},
		{"data missing", map[string]string{"x": `{}`}, `{"outputType":"x"}`, ""},
		{"data null is checked, not missing", map[string]string{"x": `{"type":"object"}`}, `{"outputType":"x","data":null,"other":1}`, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := validateEnv(t, c.schemas)
			_, err := e.run(newValidateOutput(), c.args)
			te := tool.AsError(err)
			if te == nil || te.Code != tool.CodeInvalidArguments || (c.msg != "" && te.Message != c.msg) {
				t.Errorf("err = %v, want INVALID_ARGUMENTS %s", err, c.msg)
			}
		})
	}
}

func TestOutputTypesRegisterRefusesWhatCannotBeChecked(t *testing.T) {
	cases := []struct {
		name, typeName, schema, want string
	}{
		{"a dangling ref", "a", `{"properties": {"x": {"$ref": "#/$defs/missing"}}}`,
			`output type "a": #/properties/x: $ref "#/$defs/missing" does not resolve (refs must be "#", "#/$defs/NAME" or "#/definitions/NAME")`},
		{"a remote ref", "a", `{"$ref": "https://example.com/s.json"}`,
			`output type "a": #: $ref "https://example.com/s.json" does not resolve (refs must be "#", "#/$defs/NAME" or "#/definitions/NAME")`},
		{"a bad pattern", "a", `{"items": {"pattern": "(("}}`,
			"output type \"a\": #/items: pattern \"((\": error parsing regexp: missing closing ): `((`"},
		{"a bad name", "no spaces", `{}`, `output type "no spaces": a name is 1 to 64 letters, digits, '_', '.' or '-'`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := NewOutputTypes().Register(c.typeName, mustSchema(t, c.schema))
			if err == nil || err.Error() != c.want {
				t.Errorf("err = %v\nwant %s", err, c.want)
			}
		})
	}
	if err := NewOutputTypes().Register("a", nil); err == nil {
		t.Error("nil schema accepted")
	}
}

func TestOutputTypesAreSharedByTheToolkitScope(t *testing.T) {
	e := newCacheEnv(t, nil)
	types, err := tool.Resolve(context.Background(), tool.NewContext("host", "", nil, tool.NewScope(nil, e.shared)), OutputTypesKey)
	if err != nil {
		t.Fatal(err)
	}
	if err := types.Register("answer", mustSchema(t, `{"type":"object","required":["text"]}`)); err != nil {
		t.Fatal(err)
	}
	res, err := e.run(newValidateOutput(), `{"outputType":"answer","data":{}}`)
	if err != nil || !strings.Contains(res.String(), "error at /text: required property is missing") {
		t.Errorf("%q, %v", res.String(), err)
	}
}

func FuzzValidateOutputNeverFailsToAnswer(f *testing.F) {
	defer func(n int) { maxSchemaSteps = n }(maxSchemaSteps)
	maxSchemaSteps = 20_000
	f.Add(reportSchema, `{"title":"x","items":[{"name":1}],"tags":["a","a"]}`)
	f.Add(`{"anyOf":[{"type":"integer"},{"type":"array","items":{"$ref":"#"}}]}`, `[[[[1]]]]`)
	f.Add(`{"oneOf":[{"multipleOf":0.5},{"exclusiveMaximum":-1e308}]}`, `1e-400`)
	f.Add(`{"propertyNames":{"maxLength":1},"additionalProperties":false}`, `{"ab":{},"":[]}`)
	f.Fuzz(func(t *testing.T, schemaSrc, data string) {
		var s jsonschema.Schema
		if json.Unmarshal([]byte(schemaSrc), &s) != nil {
			return
		}
		types := NewOutputTypes()
		if types.Register("t", &s) != nil {
			return
		}
		v, err := decodeData(json.RawMessage(data))
		if err != nil {
			return
		}
		c := &schemaCheck{root: &s}
		c.check(&s, v, "", 0)
		again := &schemaCheck{root: &s}
		again.check(&s, v, "", 0)
		if !cmp.Equal(c.errs, again.errs) || !cmp.Equal(c.warns, again.warns) {
			t.Errorf("two checks of the same value disagree")
		}
	})
}

func TestValidateOutputBoundsRecursiveAlternatives(t *testing.T) {
	defer func(n int) { maxSchemaSteps = n }(maxSchemaSteps)
	maxSchemaSteps = 10_000
	e := validateEnv(t, map[string]string{"t": `{"anyOf": [{"$ref": "#"}, {"$ref": "#"}, {"type": "string"}]}`})
	res, err := e.run(newValidateOutput(), `{"outputType":"t","data":1}`)
	if err != nil {
		t.Fatal(err)
	}
	if out := res.Output.(*ValidateOutputOutput); out.Valid || !strings.Contains(res.String(), "too complex to check") {
		t.Errorf("%s", res.String())
	}
}
