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

// validateEnv is a cacheEnv whose output types hold the given schemas
// beside the built-in ones.
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

func validate(t *testing.T, e *cacheEnv, outputType, data string) *ValidateOutputOutput {
	t.Helper()
	res, err := e.run(newValidateOutput(), `{"outputType":"`+outputType+`","data":`+data+`}`)
	if err != nil {
		t.Fatal(err)
	}
	return res.Output.(*ValidateOutputOutput)
}

func TestValidateOutputReportsEveryFailureWithItsPointer(t *testing.T) {
	e := validateEnv(t, map[string]string{"report": reportSchema})
	cases := []struct {
		name           string
		data           string
		errors, warns  []string
		errorsKeywords []string
	}{
		{"a valid value", `{"title":"Q3 report","status":"final","items":[{"name":"a","price":1.25,"qty":2}],"owner":{"name":"Ann"},"meta":{"k":"v"}}`,
			nil, nil, nil},
		{"every failure at once, sorted by pointer",
			`{"title":"Q3","status":"done","items":[{"name":"a"},{"name":"b","price":-1,"qty":1.5,"color":"red"}],
			  "tags":["x","Y","x"],"meta":{"a/b":1}}`,
			[]string{
				"/items/0/price: required field is missing",
				"/items/1/color: unknown field (the schema allows no other properties)",
				"/items/1/price: minimum: -1 is less than 0",
				"/items/1/qty: type: 1.5 has type \"number\", want \"integer\"",
				"/meta/a~1b: type: 1 has type \"integer\", want \"string\"",
				"/status: enum: \"done\" is not one of [\"draft\", \"final\"]",
				"/tags: uniqueItems: items 0 and 2 are equal",
				"/tags/1: pattern: \"Y\" does not match \"^[a-z]+$\"",
				"/title: minLength: the string has 2 characters, fewer than 3",
			}, nil,
			[]string{"required", "additionalProperties", "minimum", "type", "type", "enum", "uniqueItems", "pattern", "minLength"}},
		{"the wrong type at the root", `[]`, []string{`type: [] has type "array", want "object"`}, nil, []string{"type"}},
		{"warnings: an undescribed property of an open object, an empty required array",
			`{"title":"Q3 report","status":"draft","items":[],"summary":"x","owner":{"name":"Ann","nick":"A"}}`,
			[]string{"/items: minItems: 0 items, fewer than 1"},
			[]string{"/items: " + emptyRequiredWarning, "/summary: " + unknownPropertyWarning},
			[]string{"minItems"}},
		{"a string holding JSON is parsed",
			`"{\"title\":\"Q3 report\",\"status\":\"final\",\"items\":[{\"name\":\"a\",\"price\":2}]}"`, nil,
			[]string{"data was a string holding JSON; it was parsed and the JSON checked (send the value itself next time)"}, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out := validate(t, e, "report", c.data)
			if diff := cmp.Diff(append([]string{}, c.errors...), out.Errors); diff != "" {
				t.Errorf("errors (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(append([]string{}, c.warns...), out.Warnings); diff != "" {
				t.Errorf("warnings (-want +got):\n%s", diff)
			}
			if out.Valid != (len(c.errors) == 0) {
				t.Errorf("valid = %v", out.Valid)
			}
			var keywords []string
			for i, d := range out.Details {
				if i < len(out.Errors) {
					keywords = append(keywords, d.Keyword)
					if d.Severity != "error" || d.String() != out.Errors[i] {
						t.Errorf("details[%d] = %+v, does not match errors[%d] %q", i, d, i, out.Errors[i])
					}
				} else if d.Severity != "warning" || d.String() != out.Warnings[i-len(out.Errors)] {
					t.Errorf("details[%d] = %+v, does not match its warning", i, d)
				}
			}
			if diff := cmp.Diff(c.errorsKeywords, keywords); diff != "" {
				t.Errorf("keywords (-want +got):\n%s", diff)
			}
		})
	}
}

// TestValidateOutputSpecContract: the agent tools' example, unchanged,
// against the built-in domain_map: errors and warnings are arrays of
// strings, the detail beside them.
func TestValidateOutputSpecContract(t *testing.T) {
	e := validateEnv(t, nil)
	res, err := e.run(newValidateOutput(), `{"outputType": "domain_map", "data": { "domains": [], "layout": {}, "summary": {} }}`)
	if err != nil {
		t.Fatal(err)
	}
	got, err := json.Marshal(res.Output)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"outputType":"domain_map","valid":false,` +
		`"errors":["/domains: minItems: 0 items, fewer than 1"],` +
		`"warnings":["/domains: required array is empty"],` +
		`"details":[{"severity":"error","pointer":"/domains","keyword":"minItems","message":"minItems: 0 items, fewer than 1"},` +
		`{"severity":"warning","pointer":"/domains","message":"required array is empty"}]}`
	if diff := cmp.Diff(want, string(got)); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestValidateOutputBuiltinTypes(t *testing.T) {
	e := validateEnv(t, nil)
	cases := []struct {
		outputType, data string
		errors           []string
	}{
		{"domain_map", `{"domains":[{"name":"billing","path":"src/billing","files":["src/billing/invoice.go"]}],"layout":{"src":"code"},"summary":{"count":1}}`, nil},
		{"domain_map", `{"domains":[{"path":"src"}]}`, []string{"/domains/0/name: required field is missing", "/layout: required field is missing", "/summary: required field is missing"}},
		{"json_object", `{"anything":[1,2]}`, nil},
		{"json_object", `[1]`, []string{`type: [1] has type "array", want "object"`}},
		{"string_list", `["a","b"]`, nil},
		{"string_list", `["a",2]`, []string{`/1: type: 2 has type "integer", want "string"`}},
	}
	for _, c := range cases {
		out := validate(t, e, c.outputType, c.data)
		if diff := cmp.Diff(append([]string{}, c.errors...), out.Errors); diff != "" {
			t.Errorf("%s %s: errors (-want +got):\n%s", c.outputType, c.data, diff)
		}
	}
}

// TestValidateOutputBeyondTheFastValidator: keywords only jsonschema-go
// implements are checked too, the first failure reported with its field.
func TestValidateOutputBeyondTheFastValidator(t *testing.T) {
	e := validateEnv(t, map[string]string{
		"prefix":   `{"type":"object","properties":{"row":{"prefixItems":[{"type":"string"}],"items":{"type":"integer"}}}}`,
		"contains": `{"contains":{"const":"x"}}`,
		"ifthen":   `{"if":{"properties":{"kind":{"const":"a"}}},"then":{"required":["x"]}}`,
	})
	cases := []struct{ outputType, data, want string }{
		{"prefix", `{"row":["a",1,2]}`, ""},
		{"prefix", `{"row":["a",1,"b"]}`, "row"},
		{"contains", `["a","b"]`, "contains"},
		{"ifthen", `{"kind":"a"}`, "x"},
		{"ifthen", `{"kind":"b"}`, ""},
	}
	for _, c := range cases {
		out := validate(t, e, c.outputType, c.data)
		if c.want == "" {
			if !out.Valid {
				t.Errorf("%s %s: %v, want valid", c.outputType, c.data, out.Errors)
			}
			continue
		}
		if out.Valid || len(out.Errors) != 1 || !strings.Contains(out.Errors[0], c.want) {
			t.Errorf("%s %s: %v, want one error naming %q", c.outputType, c.data, out.Errors, c.want)
		}
	}
}

func TestValidateOutputRendersForTheModel(t *testing.T) {
	e := validateEnv(t, map[string]string{"report": reportSchema})
	res, err := e.run(newValidateOutput(), `{"outputType":"report","data":{"title":"Q3 report","status":"final","items":[{"name":"a"}],"extra":1}}`)
	if err != nil {
		t.Fatal(err)
	}
	want := "invalid: 1 error against output type report\n" +
		"error at /items/0/price: required field is missing\n" +
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
			`{"outputType":"reprot","data":{}}`, `outputType "reprot" is not registered; the known ones are: answer, domain_map, json_object, report, string_list`},
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
		{"a dangling ref", "a", `{"properties": {"x": {"$ref": "#/$defs/missing"}}}`, `output type "a": compile schema: `},
		{"a remote ref", "a", `{"$ref": "https://example.com/s.json"}`, `output type "a": compile schema: `},
		{"a bad pattern", "a", `{"items": {"pattern": "(("}}`, `output type "a": compile schema: `},
		{"a schema that refers to itself", "a", `{"anyOf": [{"$ref": "#"}, {"type": "string"}]}`, "refers to itself"},
		{"a bad name", "no spaces", `{}`, `output type "no spaces": a name is 1 to 64 letters, digits, '_', '.' or '-'`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := NewOutputTypes().Register(c.typeName, mustSchema(t, c.schema))
			if err == nil || !strings.Contains(err.Error(), c.want) {
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
	if err != nil || !strings.Contains(res.String(), "error at /text: required field is missing") {
		t.Errorf("%q, %v", res.String(), err)
	}
}

// FuzzValidateOutputNeverFailsToAnswer: any schema Register accepts and any
// data give an answer, the same verdict twice, with a detail per problem.
func FuzzValidateOutputNeverFailsToAnswer(f *testing.F) {
	f.Add(reportSchema, `{"title":"x","items":[{"name":1}],"tags":["a","a"]}`)
	f.Add(`{"anyOf":[{"type":"integer"},{"type":"array","items":{"$ref":"#"}}]}`, `[[[[1]]]]`)
	f.Add(`{"oneOf":[{"multipleOf":0.5},{"exclusiveMaximum":-1e308}]}`, `1e-400`)
	f.Add(`{"propertyNames":{"maxLength":1},"additionalProperties":false}`, `{"ab":{},"":[]}`)
	f.Add(`{"$defs":{"a":{"$ref":"#/$defs/a"}},"$ref":"#/$defs/a"}`, `1`)
	f.Fuzz(func(t *testing.T, schemaSrc, data string) {
		var s jsonschema.Schema
		if json.Unmarshal([]byte(schemaSrc), &s) != nil {
			return
		}
		types := NewOutputTypes()
		if types.Register("t", &s) != nil {
			return
		}
		e := newCacheEnv(t, nil)
		e.shared.Provide(OutputTypesKey.ID, types)
		args, err := json.Marshal(map[string]any{"outputType": "t", "data": json.RawMessage(data)})
		if err != nil {
			return // data is not JSON
		}
		first, err1 := e.run(newValidateOutput(), string(args))
		again, err2 := e.run(newValidateOutput(), string(args))
		if (err1 == nil) != (err2 == nil) {
			t.Fatalf("%v then %v", err1, err2)
		}
		if err1 != nil {
			return
		}
		// The same verdict and as many problems; for keywords only
		// jsonschema-go implements, which one failure it reports first
		// depends on its map order, so the words may differ.
		a, b := first.Output.(*ValidateOutputOutput), again.Output.(*ValidateOutputOutput)
		if a.Valid != b.Valid || len(a.Errors) != len(b.Errors) || len(a.Warnings) != len(b.Warnings) {
			t.Errorf("two checks of the same value disagree:\n%s", cmp.Diff(a, b))
		}
		if len(a.Details) != len(a.Errors)+len(a.Warnings) || a.Valid != (len(a.Errors) == 0) {
			t.Errorf("inconsistent answer: %+v", a)
		}
	})
}
