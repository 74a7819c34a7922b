package gemini_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/jsonschema-go/jsonschema"
	"github.com/quiverkit/quiver/driver"
	"github.com/quiverkit/quiver/driver/gemini"
	"github.com/quiverkit/quiver/driver/internal/streamtest"
	"google.golang.org/genai"
)

func parse(t *testing.T, s string) *jsonschema.Schema {
	t.Helper()
	var out jsonschema.Schema
	if err := json.Unmarshal([]byte(s), &out); err != nil {
		t.Fatal(err)
	}
	return &out
}

func TestSchema(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"a type array with null is the type, nullable",
			`{"type":"object","properties":{"tags":{"type":["null","array"],"items":{"type":"string"}}}}`,
			`{"properties":{"tags":{"items":{"type":"STRING"},"nullable":true,"type":"ARRAY"}},"type":"OBJECT"}`},
		{"several non-null types are anyOf",
			`{"type":["string","integer"]}`,
			`{"anyOf":[{"type":"STRING"},{"type":"INTEGER"}]}`},
		{"additionalProperties is dropped, closed or open",
			`{"type":"object","additionalProperties":false,"properties":{"m":{"type":"object","additionalProperties":{"type":"string"}}}}`,
			`{"properties":{"m":{"type":"OBJECT"}},"type":"OBJECT"}`},
		{"$ref is inlined from $defs, the use site's description winning",
			`{"type":"object","properties":{"a":{"$ref":"#/$defs/Addr","description":"home"}},"$defs":{"Addr":{"type":"object","description":"an address","properties":{"zip":{"type":"string"}},"required":["zip"]}}}`,
			`{"properties":{"a":{"description":"home","properties":{"zip":{"type":"STRING"}},"required":["zip"],"type":"OBJECT"}},"type":"OBJECT"}`},
		{"$ref into definitions is inlined too",
			`{"type":"object","properties":{"a":{"$ref":"#/definitions/N"}},"definitions":{"N":{"type":"integer","minimum":1}}}`,
			`{"properties":{"a":{"minimum":1,"type":"INTEGER"}},"type":"OBJECT"}`},
		{"anyOf with a null branch is a nullable value",
			`{"anyOf":[{"type":"string","enum":["a","b"]},{"type":"null"}]}`,
			`{"enum":["a","b"],"nullable":true,"type":"STRING"}`},
		{"anyOf of several kinds stays anyOf",
			`{"anyOf":[{"type":"string"},{"type":"object","properties":{"x":{"type":"number"}}}]}`,
			`{"anyOf":[{"type":"STRING"},{"properties":{"x":{"type":"NUMBER"}},"type":"OBJECT"}]}`},
		{"const is a one-value enum",
			`{"const":"v1"}`,
			`{"enum":["v1"],"type":"STRING"}`},
		{"an enum of numbers is said in the description",
			`{"type":"integer","description":"Level.","enum":[1,2,3]}`,
			`{"description":"Level. One of: [1 2 3].","type":"INTEGER"}`},
		{"formats Gemini knows are kept, others dropped",
			`{"type":"object","properties":{"t":{"type":"string","format":"date-time"},"u":{"type":"string","format":"uri"}}}`,
			`{"properties":{"t":{"format":"date-time","type":"STRING"},"u":{"type":"STRING"}},"type":"OBJECT"}`},
		{"limits, pattern, default and examples are carried",
			`{"type":"array","minItems":1,"maxItems":3,"items":{"type":"string","minLength":2,"pattern":"^a","default":"ab","examples":["abc"]}}`,
			`{"items":{"default":"ab","example":"abc","minLength":2,"pattern":"^a","type":"STRING"},"maxItems":3,"minItems":1,"type":"ARRAY"}`},
		{"keywords Gemini rejects are dropped",
			`{"$schema":"https://json-schema.org/draft/2020-12/schema","$id":"x","type":"object","not":{"type":"null"},"patternProperties":{"^x":{}},"if":{},"then":{},"properties":{}}`,
			`{"type":"OBJECT"}`},
		{"allOf is merged",
			`{"allOf":[{"type":"object","properties":{"a":{"type":"string"}},"required":["a"]},{"properties":{"b":{"type":"boolean"}}}]}`,
			`{"properties":{"a":{"type":"STRING"},"b":{"type":"BOOLEAN"}},"required":["a"],"type":"OBJECT"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := gemini.Schema(parse(t, tt.in))
			if err != nil {
				t.Fatal(err)
			}
			var a, b any
			json.Unmarshal([]byte(tt.want), &a)
			json.Unmarshal(mustJSON(t, got), &b)
			if d := cmp.Diff(a, b); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
		})
	}
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// The property order a schema declares is the order Gemini is told to fill
// the arguments in.
func TestSchemaKeepsPropertyOrder(t *testing.T) {
	got, err := gemini.Schema(streamtest.Catalogue(1)[0].Parameters)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff([]string{"city", "unit", "days"}, got.PropertyOrdering); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
}

func TestRecursiveSchema(t *testing.T) {
	tree := parse(t, `{"type":"object","properties":{"root":{"$ref":"#/$defs/Node"}},"$defs":{"Node":{"type":"object","properties":{"kids":{"type":"array","items":{"$ref":"#/$defs/Node"}}}}}}`)
	if _, err := gemini.Schema(tree); !errors.Is(err, gemini.ErrRecursiveSchema) {
		t.Fatalf("err = %v, want ErrRecursiveSchema", err)
	}
	tools, err := gemini.Tools([]driver.ToolDefinition{{Name: "tree", Parameters: tree}})
	if err != nil {
		t.Fatal(err)
	}
	fd := tools[0].FunctionDeclarations[0]
	if fd.Parameters != nil || fd.ParametersJsonSchema == nil || !strings.Contains(string(mustJSON(t, fd.ParametersJsonSchema)), `"$ref":"#/$defs/Node"`) {
		t.Errorf("a recursive schema is not sent as parametersJsonSchema: %s", mustJSON(t, fd))
	}
	if _, err := gemini.Schema(parse(t, `{"$ref":"https://example.com/s.json"}`)); err == nil || !strings.Contains(err.Error(), "example.com") {
		t.Errorf("a remote $ref: err = %v", err)
	}
}

// What reaches Gemini's function declarations on the wire never has a type
// array, additionalProperties, $ref or $defs — checked on the request the
// SDK sent, for schemas inferred both by Quiver and by jsonschema-go
// directly (which writes slices as ["null","array"]).
func TestNothingGeminiRejectsReachesTheWire(t *testing.T) {
	type item struct {
		Name string `json:"name"`
	}
	type args struct {
		Items  []item             `json:"items"`
		Ptr    *item              `json:"ptr,omitempty"`
		Labels map[string]string  `json:"labels,omitempty"`
		Nested map[string][]item  `json:"nested,omitempty"`
		Any    any                `json:"any,omitempty"`
		Refs   map[string]*string `json:"refs,omitempty"`
	}
	raw, err := jsonschema.For[args](nil)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(mustJSON(t, raw)), `["null","array"]`) {
		t.Fatalf("jsonschema-go no longer writes null unions; the test needs a new source of them: %s", mustJSON(t, raw))
	}
	defs := append(streamtest.Catalogue(3), driver.ToolDefinition{Name: "raw", Parameters: raw},
		driver.ToolDefinition{Name: "refs", Parameters: parse(t, `{"type":"object","properties":{"a":{"$ref":"#/$defs/A"}},"$defs":{"A":{"type":["string","null"]}},"additionalProperties":false}`)})
	srv := streamtest.NewServer(t, streamtest.Reply{ContentType: "application/json", Body: []byte(`{"candidates":[{"content":{"role":"model","parts":[{"text":"ok"}]},"finishReason":"STOP"}]}`)})
	if _, err := gemini.New(testClient(t, srv.URL), "gemini-test").Generate(context.Background(), driver.Request{Messages: []driver.Message{driver.UserMessage("hi")}, Tools: defs}); err != nil {
		t.Fatal(err)
	}
	var body struct {
		Tools []struct {
			FunctionDeclarations []json.RawMessage `json:"functionDeclarations"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(srv.Requests()[0].Body, &body); err != nil {
		t.Fatal(err)
	}
	if n := len(body.Tools[0].FunctionDeclarations); n != len(defs) {
		t.Fatalf("%d declarations sent, want %d", n, len(defs))
	}
	for _, fd := range body.Tools[0].FunctionDeclarations {
		var v any
		json.Unmarshal(fd, &v)
		walkJSON(v, "", func(path, key string, val any) {
			switch key {
			case "additionalProperties", "$ref", "$defs", "definitions", "$schema":
				t.Errorf("%s: %s reached Gemini", path, key)
			case "type":
				if _, ok := val.(string); !ok {
					t.Errorf("%s: type %v is not one type", path, val)
				}
			}
		})
	}
}

func walkJSON(v any, path string, visit func(path, key string, val any)) {
	switch v := v.(type) {
	case map[string]any:
		for k, val := range v {
			if path == "" || !strings.HasSuffix(path, ".properties") {
				visit(path, k, val)
			}
			walkJSON(val, path+"."+k, visit)
		}
	case []any:
		for _, e := range v {
			walkJSON(e, path+"[]", visit)
		}
	}
}

func TestToolConfig(t *testing.T) {
	tests := []struct {
		name   string
		choice driver.ToolChoice
		want   *genai.FunctionCallingConfig
	}{
		{"zero leaves the default", driver.ToolChoice{}, nil},
		{"auto", driver.ToolChoice{Mode: driver.ToolChoiceAuto}, &genai.FunctionCallingConfig{Mode: genai.FunctionCallingConfigModeAuto}},
		{"none", driver.ToolChoice{Mode: driver.ToolChoiceNone}, &genai.FunctionCallingConfig{Mode: genai.FunctionCallingConfigModeNone}},
		{"required is ANY", driver.ToolChoice{Mode: driver.ToolChoiceRequired}, &genai.FunctionCallingConfig{Mode: genai.FunctionCallingConfigModeAny}},
		{"a named tool is ANY with allowedFunctionNames", driver.Choose("weather"),
			&genai.FunctionCallingConfig{Mode: genai.FunctionCallingConfigModeAny, AllowedFunctionNames: []string{"weather"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := gemini.ToolConfig(tt.choice)
			var fc *genai.FunctionCallingConfig
			if got != nil {
				fc = got.FunctionCallingConfig
			}
			if d := cmp.Diff(tt.want, fc); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
		})
	}
}
