package agent

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestExtractJSON: the habits models have when told to answer in JSON.
func TestExtractJSON(t *testing.T) {
	tests := []struct {
		name, answer, want string
	}{
		{"bare JSON is kept as written", `{"domains": [], "summary": {}}`, `{"domains": [], "summary": {}}`},
		{"surrounding white space is dropped", "\n\n  {\"a\": 1}\n", `{"a": 1}`},
		{"a bare array", `[1, 2]`, `[1, 2]`},
		{"a bare scalar is a JSON answer too", `42`, `42`},
		{"a json code fence", "```json\n{\"a\": 1}\n```", `{"a": 1}`},
		{"a fence with no language", "```\n[{\"a\": 1}]\n```", `[{"a": 1}]`},
		{"a tilde fence", "~~~JSON\n{\"a\": 1}\n~~~", `{"a": 1}`},
		{"a longer fence holding a shorter one in a string", "````json\n{\"code\": \"```go\\nx\\n```\"}\n````", "{\"code\": \"```go\\nx\\n```\"}"},
		{"leading prose and a fence", "Here is the domain map you asked for:\n\n```json\n{\"domains\": [\"auth\"]}\n```", `{"domains": ["auth"]}`},
		{"leading and trailing prose around a fence", "Sure!\n```json\n{\"ok\": true}\n```\nLet me know if you need anything else.", `{"ok": true}`},
		{"leading prose without a fence", `The result is {"valid": true, "errors": []}`, `{"valid": true, "errors": []}`},
		{"trailing prose without a fence", "{\"valid\": true}\n\nI validated every field.", `{"valid": true}`},
		{"prose on both sides, braces in strings", `Answer: {"msg": "use {x} and [y]", "n": 1} -- done.`, `{"msg": "use {x} and [y]", "n": 1}`},
		{"braces in prose before the answer are skipped", `Use {curly} braces and see [the docs]: {"a": 1}`, `{"a": 1}`},
		{"several objects: the first wins", "{\"a\": 1}\n{\"b\": 2}", `{"a": 1}`},
		{"several fences: the first JSON one wins", "```bash\nls\n```\n```json\n{\"a\": 1}\n```\nor\n```json\n{\"a\": 2}\n```", `{"a": 1}`},
		{"a fence that is not JSON falls back to the prose", "```json\n{not json}\n```\nso: {\"a\": 1}", `{"a": 1}`},
		{"an object right after a broken brace", `{{"a": 1}`, `{"a": 1}`},
		{"a broken object's inner value is not the answer; a later one is", `{"a": {"b": 1} oops {"c": 2}`, `{"c": 2}`},
		{"a reply cut off inside its fence", "```json\n{\"a\": 1}\n", `{"a": 1}`},
		{"nested arrays of objects", "Result:\n[{\"a\": [1, {\"b\": null}]}]\nEnd.", `[{"a": [1, {"b": null}]}]`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ExtractJSON(tt.answer)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, string(got)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestExtractJSONWithoutJSON(t *testing.T) {
	for _, answer := range []string{
		"",
		"I could not find any domains.",
		"The map is {incomplete",
		`{"a": {"b": 1} oops`,
		"[[[[" + strings.Repeat("[", 1<<20),
		strings.Repeat("{", 1<<20),
		"```json\n{\"a\": \n```",
	} {
		_, err := ExtractJSON(answer)
		if !errors.Is(err, ErrNoJSON) {
			t.Errorf("%.40q: err %v, want ErrNoJSON", answer, err)
		}
	}
}

func FuzzExtractJSON(f *testing.F) {
	for _, s := range []string{"```json\n{\"a\":1}\n```", "x {\"a\": [1]} y", "{{\"a\":1}", "~~~\n[1]\n~~~", "[1] and {\"b\":2}"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, answer string) {
		got, err := ExtractJSON(answer)
		if err != nil {
			if !errors.Is(err, ErrNoJSON) {
				t.Fatalf("error %v does not wrap ErrNoJSON", err)
			}
			return
		}
		if !json.Valid(got) {
			t.Fatalf("%q: extracted %q is not JSON", answer, got)
		}
	})
}
