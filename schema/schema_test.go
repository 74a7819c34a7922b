package schema_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/jsonschema-go/jsonschema"
	"github.com/quiverkit/quiver/schema"
)

type item struct {
	Content string `json:"content" minLength:"1"`
	Status  string `json:"status" enum:"pending,done"`
}

type input struct {
	Path   string   `json:"path" jsonschema:"the file"`
	Limit  int      `json:"limit,omitempty" minimum:"1" maximum:"10"`
	Tags   []string `json:"tags,omitempty"`
	Items  []item   `json:"items,omitempty"`
	Ptr    *int     `json:"ptr,omitempty"`
	Mode   string   `json:"mode,omitempty" enum:"a,b" default:"\"a\""`
	Nested *item    `json:"nested,omitempty"`
}

func TestInferCanonical(t *testing.T) {
	s, err := schema.Infer[input]()
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(s)
	text := string(b)
	for _, bad := range []string{`"null"`, `["`} {
		if strings.Contains(strings.ReplaceAll(text, `"required":["`, ""), `"type":`+bad) {
			t.Errorf("canonical schema has a null union: %s", text)
		}
	}
	want := map[string]any{
		"type": "object", "additionalProperties": false, "required": []any{"path"},
		"properties.path.description": "the file", "properties.tags.type": "array",
		"properties.limit.minimum": 1.0, "properties.limit.maximum": 10.0, "properties.ptr.type": "integer",
		"properties.mode.default": "a", "properties.items.items.properties.status.enum": []any{"pending", "done"},
		"properties.items.items.properties.content.minLength": 1.0,
	}
	var m map[string]any
	json.Unmarshal(b, &m)
	for path, w := range want {
		if got := lookup(m, path); !cmp.Equal(got, w) {
			t.Errorf("%s = %v, want %v", path, got, w)
		}
	}
}

func lookup(m map[string]any, path string) any {
	var cur any = m
	for _, k := range strings.Split(path, ".") {
		mm, ok := cur.(map[string]any)
		if !ok {
			return nil
		}
		cur = mm[k]
	}
	return cur
}

func TestValidate(t *testing.T) {
	s, _ := schema.Infer[input]()
	v, err := schema.Compile(s)
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		args  string
		field string
		rule  string
	}{
		{`{"path":"a"}`, "", ""},
		{`{"path":"a","limit":null,"tags":null}`, "", ""},
		{`{}`, "path", "required"},
		{`{"path":3}`, "path", `type: 3 has type "integer", want "string"`},
		{`{"path":"a","limit":11}`, "limit", "maximum: 11 is greater than 10"},
		{`{"path":"a","limit":1.5}`, "limit", "type"},
		{`{"path":"a","extra":1}`, "extra", "unknown field"},
		{`{"path":"a","items":[{"content":"x","status":"pending"},{"content":"","status":"pending"}]}`, "items[1].content", "minLength"},
		{`{"path":"a","items":[{"content":"x","status":"later"}]}`, "items[0].status", "enum"},
		{`{"path":"a","items":[{"content":"x"}]}`, "items[0].status", "required"},
		{`{"path":"a","mode":"c"}`, "mode", "enum"},
		{`{"path":"a","nested":{"content":"x","status":"done","more":1}}`, "nested.more", "unknown field"},
	}
	for _, c := range cases {
		m, err := schema.ParseObject([]byte(c.args))
		if err != nil {
			t.Fatal(err)
		}
		_, err = v.Validate(m)
		var fe *schema.FieldError
		switch {
		case c.rule == "" && err != nil:
			t.Errorf("%s: %v", c.args, err)
		case c.rule != "" && (!errors.As(err, &fe) || fe.Field != c.field || !strings.Contains(fe.Rule, c.rule)):
			t.Errorf("%s: err = %#v, want field %q rule containing %q", c.args, err, c.field, c.rule)
		}
	}
}

func TestValidateAllReportsEveryFailureWithPointers(t *testing.T) {
	s, _ := schema.Infer[input]()
	v, _ := schema.Compile(s)
	m, _ := schema.ParseObject([]byte(`{"limit":0,"items":[{"content":"","status":"x"}]}`))
	var got []string
	for _, e := range v.ValidateAll(map[string]any(m)) {
		got = append(got, e.Pointer+" "+strings.SplitN(e.Rule, ":", 2)[0])
	}
	want := []string{"/items/0/content minLength", "/items/0/status enum", "/limit minimum", "/path required field is missing"}
	if diff := cmp.Diff(want, sorted(got)); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func sorted(s []string) []string {
	for i := 1; i < len(s); i++ {
		for j := i; j > 0 && s[j] < s[j-1]; j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
	return s
}

func TestRefsAndFallback(t *testing.T) {
	var s jsonschema.Schema
	raw := `{"type":"object","$defs":{"pt":{"type":"object","properties":{"x":{"type":"number"}},"required":["x"]}},
	"properties":{"a":{"$ref":"#/$defs/pt"},"b":{"type":"object","patternProperties":{"^k":{"type":"string"}}}}}`
	if err := json.Unmarshal([]byte(raw), &s); err != nil {
		t.Fatal(err)
	}
	v, err := schema.Compile(&s)
	if err != nil {
		t.Fatal(err)
	}
	for args, ok := range map[string]bool{`{"a":{"x":1}}`: true, `{"a":{}}`: false, `{"b":{"k1":"s"}}`: true, `{"b":{"k1":2}}`: false} {
		m, _ := schema.ParseObject([]byte(args))
		if _, err := v.Validate(m); (err == nil) != ok {
			t.Errorf("%s: %v", args, err)
		}
	}
}

func TestOpenAIStrict(t *testing.T) {
	s, _ := schema.Infer[input]()
	strict, err := schema.OpenAIStrict(s)
	if err != nil {
		t.Fatal(err)
	}
	if err := schema.CheckOpenAIStrict(strict); err != nil {
		t.Error(err)
	}
	if s.Properties["limit"].Type != "integer" {
		t.Error("OpenAIStrict changed its input")
	}
	if got := strict.Properties["limit"].Types; !cmp.Equal(got, []string{"integer", "null"}) {
		t.Errorf("optional limit types = %v", got)
	}
	if strict.Properties["path"].Type != "string" {
		t.Errorf("required path became %v", strict.Properties["path"].Types)
	}
	if strict.Properties["mode"].Default != nil || strict.Properties["items"].Items.Properties["content"].MinLength != nil {
		t.Error("unsupported keywords kept")
	}
	type withMap struct {
		Env map[string]string `json:"env"`
	}
	ms, _ := schema.Infer[withMap]()
	if _, err := schema.OpenAIStrict(ms); !errors.Is(err, schema.ErrNotStrict) {
		t.Errorf("a map schema: %v, want ErrNotStrict", err)
	}
}

func TestOpenAIStrictRefusesAnyType(t *testing.T) {
	type anyData struct {
		Data any `json:"data"`
	}
	s, _ := schema.Infer[anyData]()
	if _, err := schema.OpenAIStrict(s); !errors.Is(err, schema.ErrNotStrict) {
		t.Errorf("a property of any type: %v, want ErrNotStrict", err)
	}
}
