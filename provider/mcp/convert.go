package mcp

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/quiverkit/quiver/schema"
	"github.com/quiverkit/quiver/tool"
)

// metaError is the _meta key under which a Quiver MCP server (package
// mcpserver) sends a failed call's error object.
const metaError = "quiver/error"

// inputSchema converts a server's input schema as it came over the wire,
// keeping every keyword ($defs, $ref, $schema, and those jsonschema-go does
// not model, in Extra). It must be an object schema that compiles.
func inputSchema(wire any) (*jsonschema.Schema, error) {
	s, err := toSchema(wire)
	if err != nil {
		return nil, fmt.Errorf("input schema: %w", err)
	}
	if s == nil {
		return nil, fmt.Errorf("no input schema")
	}
	if s.Type == "" && len(s.Types) == 1 {
		s.Type, s.Types = s.Types[0], nil
	}
	if s.Type != "object" {
		return nil, fmt.Errorf("input schema is not an object schema (type %s)", describeType(s))
	}
	if _, err := schema.Compile(s); err != nil {
		return nil, fmt.Errorf("input schema does not compile: %w", err)
	}
	return s, nil
}

// outputSchema keeps a server's output schema when it is an object schema
// (what MCP allows); anything else is dropped.
func outputSchema(wire any) *jsonschema.Schema {
	s, err := toSchema(wire)
	if err != nil || s == nil || s.Type != "object" {
		return nil
	}
	return s
}

func toSchema(wire any) (*jsonschema.Schema, error) {
	if wire == nil {
		return nil, nil
	}
	b, err := json.Marshal(wire)
	if err != nil {
		return nil, err
	}
	if string(b) == "null" {
		return nil, nil
	}
	var s jsonschema.Schema
	if err := json.Unmarshal(b, &s); err != nil {
		return nil, err
	}
	return &s, nil
}

func describeType(s *jsonschema.Schema) string {
	switch {
	case s.Type != "":
		return fmt.Sprintf("%q", s.Type)
	case len(s.Types) > 0:
		return fmt.Sprintf("%q", s.Types)
	}
	return "missing"
}

// annotations reads the server's hints with the specification's defaults:
// a tool that says nothing may be destructive and reach the open world.
func annotations(a *sdk.ToolAnnotations) tool.Annotations {
	if a == nil {
		return tool.Annotations{Destructive: true, OpenWorld: true}
	}
	return tool.Annotations{
		ReadOnly:    a.ReadOnlyHint,
		Destructive: a.DestructiveHint == nil || *a.DestructiveHint,
		Idempotent:  a.IdempotentHint,
		OpenWorld:   a.OpenWorldHint == nil || *a.OpenWorldHint,
	}
}

// description is the server's description, or its title when it gave none.
func description(t *sdk.Tool) string {
	switch {
	case t.Description != "":
		return t.Description
	case t.Title != "":
		return t.Title
	case t.Annotations != nil && t.Annotations.Title != "":
		return t.Annotations.Title
	}
	return "Tool " + t.Name + " of an MCP server."
}

// result maps a server's answer to a Quiver result. An isError answer is an
// error: EXECUTION_FAILED with the server's text, or the Quiver code a
// Quiver server put in _meta.
func result(server, name string, r *sdk.CallToolResult) (tool.Result, error) {
	parts := parts(r.Content)
	if r.IsError {
		return tool.Result{}, remoteError(server, name, r, parts)
	}
	res := tool.Result{Parts: parts}
	if r.StructuredContent != nil {
		b, err := json.Marshal(r.StructuredContent)
		if err == nil {
			res.Output = json.RawMessage(b)
			if len(parts) == 0 {
				res.Parts = []tool.Part{{Type: tool.PartJSON, JSON: b}}
			}
		}
	}
	if len(res.Parts) == 0 {
		res.Parts = []tool.Part{{Type: tool.PartText, Text: "(no output)"}}
	}
	return res, nil
}

func remoteError(server, name string, r *sdk.CallToolResult, parts []tool.Part) *tool.Error {
	msg := strings.TrimSpace(tool.Result{Parts: parts}.String())
	if msg == "" {
		msg = "the tool reported an error without a message"
	}
	code := tool.CodeExecutionFailed
	if info, ok := r.Meta[metaError].(map[string]any); ok {
		if c, ok := info["code"].(string); ok && knownCode(tool.Code(c)) {
			code = tool.Code(c)
		}
		if m, ok := info["message"].(string); ok && m != "" {
			msg = m
		}
	}
	return tool.Errorf(code, "MCP server %q, tool %q: %s", server, name, msg).WithDetail("server", server)
}

func knownCode(c tool.Code) bool {
	switch c {
	case tool.CodeToolNotFound, tool.CodeToolNotAllowed, tool.CodeApprovalDenied, tool.CodeInvalidToolArgumentsType,
		tool.CodeInvalidArguments, tool.CodeSandboxViolation, tool.CodeTimeout, tool.CodeCancelled,
		tool.CodeExecutionFailed, tool.CodeBudgetExceeded, tool.CodeInternal, tool.CodeNetworkDenied, tool.CodeStoreUnavailable:
		return true
	}
	return false
}

// parts converts content blocks. What Quiver's results cannot hold (audio,
// binary resources that are not images) is named in a text part rather
// than dropped silently.
func parts(content []sdk.Content) []tool.Part {
	var out []tool.Part
	for _, c := range content {
		switch c := c.(type) {
		case *sdk.TextContent:
			out = append(out, tool.Part{Type: tool.PartText, Text: c.Text})
		case *sdk.ImageContent:
			out = append(out, tool.Image(c.MIMEType, c.Data))
		case *sdk.AudioContent:
			out = append(out, text("[audio %s, %d bytes, not shown]", c.MIMEType, len(c.Data)))
		case *sdk.ResourceLink:
			out = append(out, text("[resource link %s: %s]", c.Name, c.URI))
		case *sdk.EmbeddedResource:
			out = append(out, resource(c.Resource))
		default:
			out = append(out, text("[content of type %T, not shown]", c))
		}
	}
	return out
}

func resource(r *sdk.ResourceContents) tool.Part {
	switch {
	case r == nil:
		return text("[empty resource]")
	case r.Blob == nil:
		return text("[resource %s]\n%s", r.URI, r.Text)
	case strings.HasPrefix(r.MIMEType, "image/"):
		return tool.Image(r.MIMEType, r.Blob)
	}
	return text("[resource %s, %s, %d bytes, not shown]", r.URI, r.MIMEType, len(r.Blob))
}

func text(format string, args ...any) tool.Part {
	return tool.Part{Type: tool.PartText, Text: fmt.Sprintf(format, args...)}
}
