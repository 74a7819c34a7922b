package driver

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/jsonschema-go/jsonschema"
	"github.com/quiverkit/quiver/schema"
)

// sameJSON reports how the fast encoding of s differs from jsonschema-go's,
// as parsed JSON ("" when they agree, errors included).
func sameJSON(t *testing.T, s *jsonschema.Schema) string {
	t.Helper()
	want, werr := json.Marshal(s)
	got, gerr := appendSchema(nil, s, nil)
	if (werr != nil) != (gerr != nil) {
		return "errors differ: jsonschema-go " + errString(werr) + ", appendSchema " + errString(gerr)
	}
	if werr != nil {
		return ""
	}
	var a, b any
	if err := json.Unmarshal(want, &a); err != nil {
		t.Fatalf("jsonschema-go wrote invalid JSON %s: %v", want, err)
	}
	if err := json.Unmarshal(got, &b); err != nil {
		return "invalid JSON " + string(got) + ": " + err.Error()
	}
	return cmp.Diff(a, b)
}

func errString(err error) string {
	if err == nil {
		return "nil"
	}
	return err.Error()
}

func TestSchemaJSONMatchesJSONSchemaGo(t *testing.T) {
	type nested struct {
		When  string            `json:"when" jsonschema:"a <time> & \"place\""`
		Tags  []string          `json:"tags,omitempty"`
		Extra map[string]string `json:"extra,omitempty"`
	}
	type args struct {
		Path    string   `json:"path" jsonschema:"the path, ünïcödé"`
		Limit   int      `json:"limit,omitempty" minimum:"1" maximum:"2000" default:"100"`
		Mode    string   `json:"mode,omitempty" enum:"a,b"`
		Ratio   float64  `json:"ratio,omitempty" minimum:"0.000001"`
		Items   []nested `json:"items,omitempty"`
		Pointer *nested  `json:"pointer,omitempty"`
		Any     any      `json:"any,omitempty"`
	}
	inferred, err := schema.Infer[args]()
	if err != nil {
		t.Fatal(err)
	}
	raw, err := jsonschema.For[args](nil)
	if err != nil {
		t.Fatal(err)
	}
	cases := map[string]*jsonschema.Schema{"quiver-inferred": inferred, "jsonschema-go-inferred": raw}
	for name, text := range map[string]string{
		"true":                `true`,
		"false":               `false`,
		"not true":            `{"not":true}`,
		"empty properties":    `{"type":"object","properties":{}}`,
		"items array":         `{"items":[{"type":"string"},true]}`,
		"dependencies":        `{"dependencies":{"a":["b"],"c":{"required":["d"]}}}`,
		"every keyword":       `{"$id":"x","$schema":"s","$comment":"c","$anchor":"a","$dynamicAnchor":"d","$dynamicRef":"#d","$vocabulary":{"v":true},"title":"t","deprecated":true,"readOnly":true,"writeOnly":true,"examples":[1,"a",null],"const":null,"multipleOf":0.5,"exclusiveMinimum":-1e-7,"exclusiveMaximum":1e21,"minLength":0,"maxLength":3,"pattern":"^a$","prefixItems":[{}],"minItems":1,"maxItems":2,"additionalItems":false,"uniqueItems":true,"contains":{"type":"null"},"minContains":0,"maxContains":4,"unevaluatedItems":false,"minProperties":1,"maxProperties":9,"dependentRequired":{"a":["b"]},"patternProperties":{"^x":{"type":"integer"}},"propertyNames":{"maxLength":5},"unevaluatedProperties":false,"allOf":[{}],"anyOf":[{"type":"string"}],"oneOf":[{"type":"number"}],"if":{"required":["a"]},"then":{"required":["b"]},"else":false,"dependentSchemas":{"k":{}},"contentEncoding":"base64","contentMediaType":"image/png","contentSchema":{},"format":"uri","x-extension":{"b":[1,2]},"enum":[1,"two"]}`,
		"definitions and ref": `{"definitions":{"N":{"type":"integer"}},"properties":{"n":{"$ref":"#/definitions/N"}}}`,
	} {
		var s jsonschema.Schema
		if err := json.Unmarshal([]byte(text), &s); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		cases[name] = &s
	}
	cases["type and types both set"] = &jsonschema.Schema{Type: "string", Types: []string{"string"}}
	cases["duplicate property order"] = &jsonschema.Schema{PropertyOrder: []string{"a", "a"}}
	for name, s := range cases {
		t.Run(name, func(t *testing.T) {
			if d := sameJSON(t, s); d != "" {
				t.Errorf("(-jsonschema-go +appendSchema):\n%s", d)
			}
		})
	}
}

// Every exported field of jsonschema.Schema, set on its own, encodes as
// jsonschema-go encodes it: a field added in a later version of jsonschema-go
// fails this test until appendSchema writes it.
func TestSchemaJSONCoversEveryField(t *testing.T) {
	typ := reflect.TypeFor[jsonschema.Schema]()
	for i := 0; i < typ.NumField(); i++ {
		f := typ.Field(i)
		if !f.IsExported() || f.Name == "PropertyOrder" {
			continue
		}
		t.Run(f.Name, func(t *testing.T) {
			var s jsonschema.Schema
			v := reflect.ValueOf(&s).Elem().Field(i)
			if !sample(v) {
				t.Fatalf("no sample value for %s (%s): teach sample about it", f.Name, f.Type)
			}
			if d := sameJSON(t, &s); d != "" {
				t.Errorf("(-jsonschema-go +appendSchema):\n%s", d)
			}
		})
	}
}

// sample sets v to a non-zero value of its type.
func sample(v reflect.Value) bool {
	child := &jsonschema.Schema{Type: "string"}
	switch v.Interface().(type) {
	case string:
		v.SetString("x")
	case bool:
		v.SetBool(true)
	case *int:
		n := 3
		v.Set(reflect.ValueOf(&n))
	case *float64:
		f := 2.5
		v.Set(reflect.ValueOf(&f))
	case *any:
		var a any = "c"
		v.Set(reflect.ValueOf(&a))
	case []any:
		v.Set(reflect.ValueOf([]any{"a", 1.0}))
	case []string:
		v.Set(reflect.ValueOf([]string{"a", "b"}))
	case json.RawMessage:
		v.Set(reflect.ValueOf(json.RawMessage(`{"d":1}`)))
	case *jsonschema.Schema:
		v.Set(reflect.ValueOf(child))
	case []*jsonschema.Schema:
		v.Set(reflect.ValueOf([]*jsonschema.Schema{child}))
	case map[string]*jsonschema.Schema:
		v.Set(reflect.ValueOf(map[string]*jsonschema.Schema{"k": child, "a": child}))
	case map[string][]string:
		v.Set(reflect.ValueOf(map[string][]string{"k": {"a"}}))
	case map[string]bool:
		v.Set(reflect.ValueOf(map[string]bool{"k": true}))
	case map[string]any:
		v.Set(reflect.ValueOf(map[string]any{"x-k": []any{1.0}}))
	default:
		return false
	}
	return true
}

// FuzzSchemaJSON: for any schema jsonschema-go reads, appendSchema writes
// what jsonschema-go writes.
func FuzzSchemaJSON(f *testing.F) {
	f.Fuzz(func(t *testing.T, text []byte) {
		var s jsonschema.Schema
		if json.Unmarshal(text, &s) != nil {
			return
		}
		if d := sameJSON(t, &s); d != "" {
			t.Errorf("%s (-jsonschema-go +appendSchema):\n%s", text, d)
		}
	})
}
