package schema

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/jsonschema-go/jsonschema"
)

// TestUniqueItemsReportsOnce: an array with several equal items breaks
// uniqueItems once, naming the first equal pair. (The loop used to go on
// after the first pair, so [1,1,1] was reported twice when every failure
// is collected.)
func TestUniqueItemsReportsOnce(t *testing.T) {
	v, err := Compile(&jsonschema.Schema{Type: "array", UniqueItems: true})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		value []any
		want  []FieldError
	}{
		{[]any{1.0, 2.0, 3.0}, nil},
		{[]any{1.0, 1.0, 1.0}, []FieldError{{Rule: "uniqueItems: items 0 and 1 are equal", Keyword: "uniqueItems"}}},
		{[]any{"a", "b", "a", "b"}, []FieldError{{Rule: "uniqueItems: items 0 and 2 are equal", Keyword: "uniqueItems"}}},
		{[]any{map[string]any{"x": 1.0}, map[string]any{"x": 1.0}}, []FieldError{{Rule: "uniqueItems: items 0 and 1 are equal", Keyword: "uniqueItems"}}},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, v.ValidateAll(tt.value)); diff != "" {
			t.Errorf("%v (-want +got):\n%s", tt.value, diff)
		}
	}
}

// differentialSeeds are schema and instance pairs over every keyword the
// fast validator implements.
var differentialSeeds = []struct{ schema, value string }{
	{`{"type":"object","properties":{"a":{"type":"string","minLength":2,"maxLength":4}},"required":["a"],"additionalProperties":false}`, `{"a":"xyz"}`},
	{`{"type":"object","properties":{"a":{"type":"string"}},"required":["a"]}`, `{}`},
	{`{"type":"object","additionalProperties":false}`, `{"b":1}`},
	{`{"type":"object","additionalProperties":{"type":"integer"}}`, `{"b":1.5}`},
	{`{"type":"integer","minimum":0,"maximum":10}`, `11`},
	{`{"type":"integer"}`, `2.0`},
	{`{"type":"number","exclusiveMinimum":0,"exclusiveMaximum":1}`, `1`},
	{`{"type":"number","multipleOf":0.5}`, `1.25`},
	{`{"type":"number","multipleOf":0.01}`, `1.25`},
	{`{"type":"string","pattern":"^[a-z]+$"}`, `"abc1"`},
	{`{"type":"string","maxLength":2}`, `"日本語"`},
	{`{"enum":["a",1,null,{"x":[1]}]}`, `{"x":[1]}`},
	{`{"const":{"a":[1,2]}}`, `{"a":[1,2.0]}`},
	{`{"type":"array","items":{"type":"string"},"minItems":1,"maxItems":2,"uniqueItems":true}`, `["a","a","a"]`},
	{`{"type":["string","null"]}`, `null`},
	{`{"anyOf":[{"type":"string"},{"type":"integer"}]}`, `1.5`},
	{`{"oneOf":[{"type":"number"},{"type":"integer"}]}`, `1`},
	{`{"allOf":[{"minimum":1},{"maximum":2}]}`, `3`},
	{`{"not":{"type":"string"}}`, `"s"`},
	{`{"$defs":{"n":{"type":"integer","minimum":1}},"type":"object","properties":{"n":{"$ref":"#/$defs/n"}}}`, `{"n":0}`},
	{`{"type":"object","properties":{"edits":{"type":"array","items":{"type":"object","properties":{"old":{"type":"string"}},"required":["old"]}}}}`, `{"edits":[{"old":"x"},{}]}`},
}

// FuzzFastMatchesJSONSchemaGo holds the fast validator to jsonschema-go:
// for any schema the fast validator takes on and any instance, both
// accept it or both reject it.
func FuzzFastMatchesJSONSchemaGo(f *testing.F) {
	for _, s := range differentialSeeds {
		f.Add([]byte(s.schema), []byte(s.value))
	}
	f.Fuzz(func(t *testing.T, schemaJSON, valueJSON []byte) {
		var s jsonschema.Schema
		if json.Unmarshal(schemaJSON, &s) != nil {
			return
		}
		v, err := Compile(&s)
		if err != nil || v.fast == nil {
			return // not a schema, or one jsonschema-go validates anyway
		}
		var value any
		if json.Unmarshal(valueJSON, &value) != nil {
			return
		}
		fast := v.ValidateAll(value)
		slow := v.resolved.Validate(value)
		if len(fast) == 0 && slow != nil && toFieldError(slow).Keyword == "multipleOf" {
			return // decimal multiples (1.25 of 0.01): the one documented difference, see isMultiple
		}
		if (len(fast) == 0) != (slow == nil) {
			t.Fatalf("schema %s, value %s: fast validator says %v, jsonschema-go says %v", schemaJSON, valueJSON, fast, slow)
		}
	})
}

func TestFastMatchesJSONSchemaGoOnSeeds(t *testing.T) {
	for _, s := range differentialSeeds {
		var sch jsonschema.Schema
		if err := json.Unmarshal([]byte(s.schema), &sch); err != nil {
			t.Fatalf("%s: %v", s.schema, err)
		}
		v, err := Compile(&sch)
		if err != nil {
			t.Fatalf("%s: %v", s.schema, err)
		}
		if v.fast == nil {
			t.Errorf("%s: the fast validator does not take this seed on; the differential test would skip it", s.schema)
		}
	}
}

// TestSchemasThatReferToThemselves: a schema that recurses without going
// into the data is refused by Compile (jsonschema-go would overflow the
// stack, a fatal error); one that recurses through properties or items is
// fine. The fast validator's own bounds hold even without Compile's check.
func TestSchemasThatReferToThemselves(t *testing.T) {
	tests := []struct {
		schema string
		cycle  bool
	}{
		{`{"$defs":{"a":{"$ref":"#/$defs/a"}},"$ref":"#/$defs/a"}`, true},
		{`{"anyOf":[{"$ref":"#"},{"type":"string"}]}`, true},
		{`{"$defs":{"a":{"not":{"$ref":"#/$defs/b"}},"b":{"allOf":[{"$ref":"#/$defs/a"}]}},"$ref":"#/$defs/a"}`, true},
		{`{"type":"object","properties":{"child":{"$ref":"#"}}}`, false},
		{`{"$defs":{"node":{"type":"object","properties":{"kids":{"type":"array","items":{"$ref":"#/$defs/node"}}}}},"$ref":"#/$defs/node"}`, false},
	}
	for _, tt := range tests {
		var s jsonschema.Schema
		if err := json.Unmarshal([]byte(tt.schema), &s); err != nil {
			t.Fatal(err)
		}
		v, err := Compile(&s)
		if tt.cycle {
			if err == nil || !strings.Contains(err.Error(), "refers to itself") {
				t.Errorf("%s: err %v, want the cycle named", tt.schema, err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", tt.schema, err)
			continue
		}
		v.ValidateAll(map[string]any{"child": map[string]any{"kids": []any{}}})
	}

	// The fast validator alone, on a cycle Compile would refuse.
	var s jsonschema.Schema
	json.Unmarshal([]byte(`{"$defs":{"a":{"not":{"$ref":"#/$defs/a"}}},"$ref":"#/$defs/a"}`), &s)
	fast, ok := compileFast(&s)
	if !ok {
		t.Fatal("not compiled by the fast validator")
	}
	st := vstate{all: true}
	fast.check(1.0, &st)
	st.finish()
	if len(st.errs) == 0 || !st.exceeded {
		t.Errorf("fast validator on a cycle: errors %v, exceeded %v; want a failure after running out", st.errs, st.exceeded)
	}
}

func TestMultipleOfDecimals(t *testing.T) {
	tests := []struct {
		v, m float64
		want bool
	}{
		{1.25, 0.01, true}, {0.3, 0.1, true}, {2, 0.01, true}, {-1.005, 0.01, false}, {1.5, 1, false},
		{10, 5, true}, {1.000000001, 1, false}, {1e308, 1e-308, false}, {7, 0.5, true}, {7.25, 0.5, false}, {0, 0.1, true},
	}
	for _, tt := range tests {
		if got := isMultiple(tt.v, tt.m); got != tt.want {
			t.Errorf("isMultiple(%v, %v) = %v, want %v", tt.v, tt.m, got, tt.want)
		}
	}
}

// TestJSONSchemaGoListsAreReportedOneWay: jsonschema-go lists missing and
// extra properties in map order; the field reported is the least name, so
// the same failure reads the same every time.
func TestJSONSchemaGoListsAreReportedOneWay(t *testing.T) {
	for _, msg := range []string{`unexpected additional properties ["b" "a" "c"]`, `unexpected additional properties ["c" "a" "b"]`} {
		fe := toFieldError(errors.New(msg))
		if fe.Field != "a" || fe.Keyword != "additionalProperties" {
			t.Errorf("%s: %+v, want field a, keyword additionalProperties", msg, fe)
		}
	}
	if fe := toFieldError(errors.New(`required: missing properties: ["x\"y" "w"]`)); fe.Field != "w" || fe.Keyword != "required" {
		t.Errorf("%+v", fe)
	}
}
