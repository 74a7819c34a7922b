package mcpserver

import (
	"encoding/json"
	"strings"
	"testing"
)

// FuzzFitStructured: whatever a tool's output holds, fitting it never
// panics, and what comes back is within the budget unless nothing in it is
// left to cut (no string of 512 bytes or more, no list of two items).
func FuzzFitStructured(f *testing.F) {
	f.Add(`{"content":"`+strings.Repeat("x\\n", 3000)+`","path":"a"}`, 1000)
	f.Add(`[1,2,3,4,5,6,7,8]`, 5)
	f.Add(`{"a":{"b":["`+strings.Repeat("y", 2000)+`"]}}`, 300)
	f.Add(`"`+strings.Repeat("z", 900)+`"`, 100)
	f.Fuzz(func(t *testing.T, doc string, max int) {
		var v any
		if json.Unmarshal([]byte(doc), &v) != nil || max < 0 || max > 1<<20 {
			return
		}
		got := fitStructured(v, max, "out_ref")
		b, err := json.Marshal(got)
		if err != nil {
			t.Fatalf("the fitted value does not marshal: %v", err)
		}
		if max > 0 && len(b) > max && cuttable(got) {
			t.Errorf("%d bytes over a budget of %d, with something left to cut", len(b), max)
		}
	})
}

// cuttable reports whether fitStructured could still cut something in v.
func cuttable(v any) bool {
	found := false
	visit(&v, func(cur any, _ func(any)) {
		switch x := cur.(type) {
		case string:
			found = found || len(x) >= 512
		case []any:
			found = found || len(x) >= 2
		}
	})
	return found
}
