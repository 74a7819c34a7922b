package mcpserver

import (
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/quiverkit/quiver"
	"github.com/quiverkit/quiver/driver"
	"github.com/quiverkit/quiver/outputcache"
	"github.com/quiverkit/quiver/tool"
)

// The _meta keys of a tools/call result.
const (
	// MetaError holds an [ErrorInfo] on every failed call.
	MetaError = "quiver/error"
	// MetaOutputRef holds the output cache's ref id when the result was
	// trimmed; tool_output_cache reads the whole output by it.
	MetaOutputRef = "quiver/output_ref"
)

// ErrorInfo is a failed call's error as clients receive it, under
// [MetaError] and, for tools without an output schema, as structured content
// {"error": ErrorInfo}.
type ErrorInfo struct {
	Code      tool.Code      `json:"code"`
	Message   string         `json:"message"`
	Tool      string         `json:"tool,omitempty"`
	Retriable bool           `json:"retriable"`
	Details   map[string]any `json:"details,omitempty"`
}

func errorInfo(e *tool.Error) ErrorInfo {
	return ErrorInfo{Code: e.Code, Message: e.Message, Tool: e.Tool, Retriable: e.Retriable, Details: e.Details}
}

// ToolEntry is t as tools/list describes it to MCP clients under the
// deferral d: what `quiver tools --tokens` prices as the MCP form.
func ToolEntry(t *tool.Tool, d *driver.Deferral) *mcp.Tool { return mcpTool(t, d) }

// MetaAlwaysLoad marks, in tools/list, a tool a client that defers tools
// behind its own search (Claude Code) should load up front: the core tools
// and [tools] always_load, every tool the deferral does not hold back.
const MetaAlwaysLoad = "anthropic/alwaysLoad"

// mcpTool describes t to MCP clients. The hints follow the tool's own
// annotations, made conservative by its risk: a high-risk tool that is not
// read-only is announced as destructive, since a client may auto-approve
// tools that say they are not.
func mcpTool(t *tool.Tool, d *driver.Deferral) *mcp.Tool {
	a := t.Annotations
	destructive := !a.ReadOnly && (a.Destructive || t.Risk == tool.RiskHigh)
	openWorld := a.OpenWorld
	in, out := t.Schemas()
	mt := &mcp.Tool{
		Name:        t.Name,
		Description: t.Description,
		InputSchema: in,
		Annotations: &mcp.ToolAnnotations{
			ReadOnlyHint:    a.ReadOnly,
			DestructiveHint: &destructive,
			IdempotentHint:  a.Idempotent,
			OpenWorldHint:   &openWorld,
		},
	}
	if hasOutputSchema(t) {
		mt.OutputSchema = out
	}
	if d != nil && !d.Deferred(t.Name) {
		mt.Meta = mcp.Meta{MetaAlwaysLoad: true}
	}
	return mt
}

// hasOutputSchema reports whether t's output schema is one MCP accepts: an
// object schema.
func hasOutputSchema(t *tool.Tool) bool {
	if t == nil {
		return false
	}
	_, out := t.Schemas()
	return out != nil && out.Type == "object"
}

// callResult converts a pipeline output for the client. listed is the tool
// the listing advertised under the called name (nil for an unlisted name):
// whether it has an output schema decides where structured content may go.
// budget is the toolkit's message budget, which the structured content is
// held to as the text is (fitStructured).
func callResult(out quiver.Output, listed *tool.Tool, budget outputcache.Budget) *mcp.CallToolResult {
	res := &mcp.CallToolResult{IsError: out.Content.IsError, Content: content(out.Content.Parts)}
	if out.Err != nil {
		info := errorInfo(out.Err)
		res.IsError = true
		res.Meta = mcp.Meta{MetaError: info}
		if !hasOutputSchema(listed) {
			res.StructuredContent = map[string]any{"error": info}
		}
		return res
	}
	if out.Content.OutputRef != "" {
		res.Meta = mcp.Meta{MetaOutputRef: out.Content.OutputRef}
	}
	if hasOutputSchema(listed) && out.Content.Output != nil && !out.Content.IsError {
		res.StructuredContent = fitStructured(out.Content.Output, budget.MaxBytes, out.Content.OutputRef)
	}
	return res
}

// content converts the model's view part by part; JSON parts travel as
// text, as the specification's fallback for structured content does.
func content(parts []tool.Part) []mcp.Content {
	out := make([]mcp.Content, 0, len(parts))
	for _, p := range parts {
		switch p.Type {
		case tool.PartImage:
			out = append(out, &mcp.ImageContent{Data: p.Data, MIMEType: p.MIMEType})
		case tool.PartJSON:
			out = append(out, &mcp.TextContent{Text: string(p.JSON)})
		default:
			out = append(out, &mcp.TextContent{Text: p.Text})
		}
	}
	return out
}
