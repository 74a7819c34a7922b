package driver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/quiverkit/quiver/tool"
)

// Definitions turns tools (a toolkit's AllowedTools, say) into definitions
// to offer a model. strict is copied to every definition; drivers fall back
// to non-strict for a schema strict mode cannot express.
func Definitions(tools []*tool.Tool, strict bool) []ToolDefinition {
	defs := make([]ToolDefinition, 0, len(tools))
	for _, t := range tools {
		if t == nil {
			continue
		}
		in := t.InSchema()
		defs = append(defs, ToolDefinition{Name: t.Name, Description: t.Description, Parameters: in, Strict: strict})
	}
	return defs
}

// Invoker runs one tool call through a toolkit's whole pipeline; id is the
// provider's call id, which keys the audit record and output-cache
// references. The root package's Toolkit becomes one with [InvokerFunc]
// around its InvokeCall.
//
// The returned error, when not nil, is the call's failure (a *tool.Error with
// its code for pipeline refusals such as TOOL_NOT_FOUND); Result is then
// ignored.
type Invoker interface {
	InvokeTool(ctx context.Context, id, name string, args json.RawMessage) (tool.Result, error)
}

// InvokerFunc adapts a function to [Invoker].
type InvokerFunc func(ctx context.Context, id, name string, args json.RawMessage) (tool.Result, error)

// InvokeTool calls f.
func (f InvokerFunc) InvokeTool(ctx context.Context, id, name string, args json.RawMessage) (tool.Result, error) {
	return f(ctx, id, name, args)
}

// Invoke runs call through inv and returns the result to send back. It never
// fails: a call whose arguments did not parse (Arguments nil) is answered
// with an INVALID_TOOL_ARGUMENTS_TYPE error result without running anything,
// and an error from inv becomes an error result the model can act on.
func Invoke(ctx context.Context, inv Invoker, call ToolCall) ToolResult {
	if call.Arguments == nil {
		err := tool.Errorf(tool.CodeInvalidToolArgumentsType, "the arguments of this call are not a JSON object; send the call again with a JSON object")
		return ResultFor(call, tool.Result{}, err.WithTool(call.Name))
	}
	res, err := inv.InvokeTool(ctx, call.ID, call.Name, call.Arguments)
	return ResultFor(call, res, err)
}

// ResultFor turns a toolkit's answer to call (its result, or its error) into
// the ToolResult to send back. An error becomes the text
// "Error executing tool NAME: CODE: message" with IsError set.
func ResultFor(call ToolCall, res tool.Result, err error) ToolResult {
	out := ToolResult{CallID: call.ID, Name: call.Name, Metadata: call.Metadata}
	if err != nil {
		var te *tool.Error
		if !errors.As(err, &te) {
			te = tool.AsError(err)
		}
		out.Content = tool.ErrorResult(call.Name, te).Parts
		out.IsError = true
		return out
	}
	out.Content = res.Parts
	out.IsError = res.IsError
	if len(out.Content) == 0 {
		out.Content = []tool.Part{{Type: tool.PartText, Text: "(no output)"}}
	}
	return out
}

// ErrorResult answers call with an error text, for a loop that refuses a call
// itself (a budget spent, a review rejected).
func ErrorResult(call ToolCall, format string, args ...any) ToolResult {
	return ToolResult{CallID: call.ID, Name: call.Name, Metadata: call.Metadata, IsError: true,
		Content: []tool.Part{{Type: tool.PartText, Text: fmt.Sprintf(format, args...)}}}
}
