package mcpserver

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestWithRequestID(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"number id, no params", `{"jsonrpc":"2.0","id":3,"method":"ping"}`,
			`{"id":3,"jsonrpc":"2.0","method":"ping","params":{"_meta":{"io.quiverkit/jsonrpc.request.id":"3"}}}`},
		{"string id, _meta kept", `{"jsonrpc":"2.0","id":"a-1","method":"tools/call","params":{"name":"x","_meta":{"traceparent":"t"}}}`,
			`{"id":"a-1","jsonrpc":"2.0","method":"tools/call","params":{"_meta":{"io.quiverkit/jsonrpc.request.id":"a-1","traceparent":"t"},"name":"x"}}`},
		{"a forged copy is replaced", `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"_meta":{"io.quiverkit/jsonrpc.request.id":"99"}}}`,
			`{"id":1,"jsonrpc":"2.0","method":"ping","params":{"_meta":{"io.quiverkit/jsonrpc.request.id":"1"}}}`},
		{"null params", `{"jsonrpc":"2.0","id":1,"method":"ping","params":null}`,
			`{"id":1,"jsonrpc":"2.0","method":"ping","params":{"_meta":{"io.quiverkit/jsonrpc.request.id":"1"}}}`},
		{"notification", `{"jsonrpc":"2.0","method":"notifications/initialized"}`, ""},
		{"response", `{"jsonrpc":"2.0","id":1,"result":{}}`, ""},
		{"null id", `{"jsonrpc":"2.0","id":null,"method":"ping"}`, ""},
		{"params not an object", `{"jsonrpc":"2.0","id":1,"method":"ping","params":[1]}`, ""},
		{"_meta not an object", `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"_meta":7}}`, ""},
		{"not JSON", `{"jsonrpc":`, ""},
		{"a batch", `[{"jsonrpc":"2.0","id":1,"method":"ping"}]`, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			want := tt.want
			if want == "" {
				want = tt.in // left as it is
			}
			if diff := cmp.Diff(want, string(withRequestID([]byte(tt.in)))); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// FuzzWithRequestID: whatever a client sends, the copy of the id changes
// nothing else: the message is returned as it is, or re-encoded with the
// same id, method and params but for the one _meta key.
func FuzzWithRequestID(f *testing.F) {
	for _, seed := range []string{`{"jsonrpc":"2.0","id":1,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":"x","method":"tools/call","params":{"name":"a","_meta":{"k":1}}}`, `[]`, `{"id":{}}`} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, msg []byte) {
		out := withRequestID(msg)
		if bytes.Equal(out, msg) {
			return
		}
		var before, after map[string]json.RawMessage
		if err := json.Unmarshal(msg, &before); err != nil {
			t.Fatalf("rewrote what is not a JSON object: %q", msg)
		}
		if err := json.Unmarshal(out, &after); err != nil {
			t.Fatalf("the rewrite %q of %q is not a JSON object: %v", out, msg, err)
		}
		for k, v := range before {
			if k != "params" && !jsonEqual(v, after[k]) {
				t.Fatalf("%s changed: %s -> %s", k, v, after[k])
			}
		}
		var p map[string]any
		if err := json.Unmarshal(after["params"], &p); err != nil {
			t.Fatalf("params %s: %v", after["params"], err)
		}
		meta, _ := p["_meta"].(map[string]any)
		if id, _ := meta[requestIDKey].(string); id != requestIDText(before["id"]) || id == "" {
			t.Fatalf("copied id %q, want %q", id, requestIDText(before["id"]))
		}
	})
}

func jsonEqual(a, b json.RawMessage) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	return cmp.Equal(x, y)
}
