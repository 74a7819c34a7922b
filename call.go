package quiver

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/quiverkit/quiver/driver"
	"github.com/quiverkit/quiver/tool"
)

// Call runs the tool t refers to with a typed input and returns its typed
// output, through the same pipeline as [Toolkit.Invoke] (policy, approval,
// validation and audit included). The output is never trimmed by the output
// cache: a Go caller gets all of it.
//
// The compiler checks that in is the tool's input type and that the result
// is used as its output type; a provider serving the name with other types
// is reported as INTERNAL.
func Call[In, Out any](ctx context.Context, tk *Toolkit, t tool.Ref[In, Out], in In) (Out, error) {
	var zero Out
	raw, err := json.Marshal(in)
	if err != nil {
		return zero, tool.Errorf(tool.CodeInvalidToolArgumentsType, "marshal input: %w", err).WithTool(t.Name)
	}
	out := tk.runTyped(ctx, driver.ToolCall{Name: t.Name, Arguments: raw})
	if out.Err != nil {
		return zero, out.Err
	}
	v, ok := out.Content.Output.(Out)
	if !ok {
		return zero, tool.Errorf(tool.CodeInternal, "tool %q returned %T, want %s", t.Name, out.Content.Output, fmt.Sprintf("%T", zero)).WithTool(t.Name)
	}
	return v, nil
}

// runTyped is run for typed callers: the output is not trimmed.
func (tk *Toolkit) runTyped(ctx context.Context, c driver.ToolCall) Output {
	return tk.runWith(ctx, c, true)
}
