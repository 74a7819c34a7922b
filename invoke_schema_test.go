package quiver_test

import (
	"context"
	"testing"

	"github.com/quiverkit/quiver"
	"github.com/quiverkit/quiver/tool"
)

// TestUndescribableToolFailsItsCall: a Func tool whose input type has no
// JSON Schema (a channel field) infers its schema on first use, where
// inference panics; the pipeline turns that into an INTERNAL error for the
// call, every time, instead of letting it take the host down, and runs
// nothing.
func TestUndescribableToolFailsItsCall(t *testing.T) {
	type in struct {
		C chan int `json:"c"`
	}
	ran := false
	bad := tool.Func("bad", "cannot be described", func(context.Context, tool.Context, in) (string, error) {
		ran = true
		return "ran", nil
	}, tool.ReadOnly())
	tk, err := quiver.New(quiver.WithRoot(t.TempDir()), quiver.WithTools(bad))
	if err != nil {
		t.Fatal(err)
	}
	defer tk.Close()
	for range 2 {
		_, err := tk.Invoke(context.Background(), "bad", map[string]any{})
		if code := tool.CodeOf(err); code != tool.CodeInternal {
			t.Fatalf("call of an undescribable tool: %v (code %s), want INTERNAL", err, code)
		}
	}
	if ran {
		t.Error("the tool ran without a schema to validate against")
	}
}
