package tools_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/quiverkit/quiver/tool"
	"github.com/quiverkit/quiver/tools"
)

// TestContractArgumentsTakeSnakeCase: search_code's filePattern and
// validate_output's outputType keep their contract's names and are also
// accepted in snake_case (issue 33). Either name alone, or both with one
// value, is the argument; both with different values are refused naming
// both, and validate_output still wants one of the two.
func TestContractArgumentsTakeSnakeCase(t *testing.T) {
	dir := writeSearchFixture(t)
	for name, tk := range searchBackends(t, dir) {
		t.Run(name, func(t *testing.T) {
			search := func(args string) ([]tools.SearchMatch, error) {
				out, err := tk.Invoke(context.Background(), "search_code", json.RawMessage(args))
				if err != nil {
					return nil, err
				}
				var got []tools.SearchMatch
				if err := json.Unmarshal(out.Content.Parts[0].JSON, &got); err != nil {
					t.Fatal(err)
				}
				return got, nil
			}
			want, err := search(`{"query":"New(addr","filePattern":"server/*.go"}`)
			if err != nil || len(want) != 2 {
				t.Fatalf("filePattern: %v %+v, want 2 matches", err, want)
			}
			for _, args := range []string{
				`{"query":"New(addr","file_pattern":"server/*.go"}`,
				`{"query":"New(addr","filePattern":"server/*.go","file_pattern":"server/*.go"}`,
			} {
				got, err := search(args)
				if err != nil {
					t.Fatalf("%s: %v", args, err)
				}
				if diff := cmp.Diff(want, got); diff != "" {
					t.Errorf("%s (-filePattern +this):\n%s", args, diff)
				}
			}
			_, err = search(`{"query":"New(addr","filePattern":"server/*.go","file_pattern":"docs/*"}`)
			wantCode(t, err, tool.CodeInvalidArguments, `fields "filePattern" and "file_pattern" are one argument`)
			_, err = search(`{"query":"x","file_pattern":"[x"}`)
			wantCode(t, err, tool.CodeInvalidArguments, "file_pattern")
		})
	}

	tk := searchBackends(t, dir)["builtin"]
	validate := func(args string) (*tools.ValidateOutputOutput, error) {
		out, err := tk.Invoke(context.Background(), "validate_output", json.RawMessage(args))
		if err != nil {
			return nil, err
		}
		return out.Content.Output.(*tools.ValidateOutputOutput), nil
	}
	for _, args := range []string{
		`{"outputType":"string_list","data":["a"]}`,
		`{"output_type":"string_list","data":["a"]}`,
		`{"outputType":"string_list","output_type":"string_list","data":["a"]}`,
	} {
		got, err := validate(args)
		if err != nil || !got.Valid || got.OutputType != "string_list" {
			t.Errorf("%s: %+v %v, want valid against string_list", args, got, err)
		}
	}
	_, err := validate(`{"outputType":"string_list","output_type":"answer","data":["a"]}`)
	wantCode(t, err, tool.CodeInvalidArguments, `fields "outputType" and "output_type" are one argument`)
	_, err = validate(`{"data":["a"]}`)
	wantCode(t, err, tool.CodeInvalidArguments, `field "outputType": required field is missing`)
	_, err = validate(`{"output_type":"reprot","data":1}`)
	wantCode(t, err, tool.CodeInvalidArguments, `output_type "reprot" is not registered`)
}

// snakeContracts are the argument and output keys of the built-in tools
// that keep the camelCase of the contract they follow: the 004 agent
// tools' filePattern and outputType (each also accepted in snake_case),
// and todo_manager's activeForm, currentItem and maxItems.
var snakeContracts = map[string]bool{"filePattern": true, "outputType": true, "activeForm": true, "currentItem": true, "maxItems": true}

// TestToolKeysSnakeCase: every property of every built-in tool's input
// and output schema is snake_case, but for snakeContracts.
func TestToolKeysSnakeCase(t *testing.T) {
	for _, tl := range tools.All() {
		in, out := tl.Schemas()
		for _, s := range []any{in, out} {
			b, err := json.Marshal(s)
			if err != nil {
				t.Fatal(err)
			}
			var v any
			if err := json.Unmarshal(b, &v); err != nil {
				t.Fatal(err)
			}
			for _, key := range propertyNames(v) {
				if !snakeCase(key) && !snakeContracts[key] {
					t.Errorf("%s: property %q is not snake_case", tl.Name, key)
				}
			}
		}
	}
}

// propertyNames lists the names under every "properties" of a schema
// decoded as JSON.
func propertyNames(v any) []string {
	var names []string
	switch v := v.(type) {
	case map[string]any:
		for k, sub := range v {
			if props, ok := sub.(map[string]any); ok && k == "properties" {
				for name := range props {
					names = append(names, name)
				}
			}
			names = append(names, propertyNames(sub)...)
		}
	case []any:
		for _, sub := range v {
			names = append(names, propertyNames(sub)...)
		}
	}
	return names
}

func snakeCase(s string) bool {
	return s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyz0123456789_") == "" && s[0] != '_'
}
