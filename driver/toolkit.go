package driver

import (
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

// UnparsedResult answers a call whose arguments did not parse (Arguments
// nil, reported by a *CallError) with an INVALID_TOOL_ARGUMENTS_TYPE error
// result, so that the model can send it again; such a call is not run.
func UnparsedResult(call ToolCall) ToolResult {
	err := tool.Errorf(tool.CodeInvalidToolArgumentsType, "the arguments of this call are not a JSON object; send the call again with a JSON object")
	return ResultFor(call, tool.Result{}, err.WithTool(call.Name))
}

// ResultFor turns a toolkit's answer to call (its result, or its error) into
// the ToolResult to send back. An error becomes the text
// "Error executing tool NAME: CODE: message" with IsError set. With the root
// package's Toolkit:
//
//	out, err := tk.InvokeCall(ctx, call)
//	result := driver.ResultFor(call, out.Content, err)
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
