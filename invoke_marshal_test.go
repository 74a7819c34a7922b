package quiver_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/quiverkit/quiver"
	"github.com/quiverkit/quiver/provider/builtin"
	"github.com/quiverkit/quiver/tool"
)

// TestInvokeKeepsTheMarshalError: arguments that do not marshal are
// INVALID_TOOL_ARGUMENTS_TYPE with json's error as the cause, from Invoke as
// from the typed Call, rather than a call with null arguments.
func TestInvokeKeepsTheMarshalError(t *testing.T) {
	tk, err := quiver.New(quiver.WithRoot(t.TempDir()), builtin.Standard())
	if err != nil {
		t.Fatal(err)
	}
	defer tk.Close()
	ctx := context.Background()
	out, invokeErr := tk.Invoke(ctx, "read_file", map[string]any{"path": make(chan int)})
	if out.Err == nil || !out.Content.IsError || error(out.Err) != invokeErr {
		t.Errorf("Invoke: Output.Err = %v, Content.IsError = %v; want the returned error and an error result", out.Err, out.Content.IsError)
	}
	type chanInput struct{ Path chan int }
	_, callErr := quiver.Call(ctx, tk, tool.RefTo[chanInput, string]("read_file"), chanInput{})
	for name, err := range map[string]error{"Invoke": invokeErr, "Call": callErr} {
		var unsupported *json.UnsupportedTypeError
		if tool.CodeOf(err) != tool.CodeInvalidToolArgumentsType || !errors.As(err, &unsupported) {
			t.Errorf("%s: err = %v (%s), want INVALID_TOOL_ARGUMENTS_TYPE caused by json's *UnsupportedTypeError", name, err, tool.CodeOf(err))
		}
	}
}
