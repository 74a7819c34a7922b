package gemini

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/quiverkit/quiver/driver"
	"github.com/quiverkit/quiver/tool"
	"google.golang.org/genai"
)

// Tools converts definitions to one genai.Tool of function declarations,
// their parameters converted by [Schema]. A schema that cannot be inlined
// (recursive $refs) is sent as parametersJsonSchema instead, which takes
// references.
func Tools(defs []driver.ToolDefinition) ([]*genai.Tool, error) {
	return tools(defs, false)
}

// ToolsJSONSchema converts definitions to function declarations that carry
// the canonical schema as parametersJsonSchema, unconverted (only $schema and
// $id removed). Newer models accept it; [Tools] works with every model.
func ToolsJSONSchema(defs []driver.ToolDefinition) ([]*genai.Tool, error) {
	return tools(defs, true)
}

func tools(defs []driver.ToolDefinition, jsonSchema bool) ([]*genai.Tool, error) {
	// Gemini has no deferral: Quiver's tool_search stands in for the
	// deferred tools.
	defs = driver.UpFront(defs)
	if len(defs) == 0 {
		return nil, nil
	}
	decls := make([]*genai.FunctionDeclaration, 0, len(defs))
	for _, d := range defs {
		fd := &genai.FunctionDeclaration{Name: d.Name, Description: d.Description}
		if d.Parameters != nil {
			var err error
			if !jsonSchema {
				fd.Parameters, err = Schema(d.Parameters)
			}
			if jsonSchema || errors.Is(err, ErrRecursiveSchema) {
				fd.Parameters, err = nil, nil
				fd.ParametersJsonSchema, err = jsonSchemaOf(d)
			}
			if err != nil {
				return nil, fmt.Errorf("tool %q: %w", d.Name, err)
			}
		}
		decls = append(decls, fd)
	}
	return []*genai.Tool{{FunctionDeclarations: decls}}, nil
}

func jsonSchemaOf(d driver.ToolDefinition) (any, error) {
	fields, err := driver.SchemaFields(d.Parameters)
	if err != nil {
		return nil, err
	}
	delete(fields, "$schema")
	delete(fields, "$id")
	return fields, nil
}

// ToolConfig converts c: AUTO, NONE, ANY, and ANY restricted to one name
// through allowedFunctionNames. The zero choice gives nil (the default).
func ToolConfig(c driver.ToolChoice) *genai.ToolConfig {
	fc := &genai.FunctionCallingConfig{}
	switch c.Mode {
	case driver.ToolChoiceAuto:
		fc.Mode = genai.FunctionCallingConfigModeAuto
	case driver.ToolChoiceNone:
		fc.Mode = genai.FunctionCallingConfigModeNone
	case driver.ToolChoiceRequired:
		fc.Mode = genai.FunctionCallingConfigModeAny
	case driver.ToolChoiceTool:
		fc.Mode = genai.FunctionCallingConfigModeAny
		fc.AllowedFunctionNames = []string{c.Name}
	default:
		return nil
	}
	return &genai.ToolConfig{FunctionCallingConfig: fc}
}

// Contents converts a conversation: system messages to one system
// instruction, user turns with text and images, model turns with text and
// function calls (thought signatures restored), and the results of
// consecutive RoleTool messages merged into one user turn of
// functionResponse parts.
func Contents(msgs []driver.Message) (system *genai.Content, contents []*genai.Content, err error) {
	for i := 0; i < len(msgs); i++ {
		m := msgs[i]
		switch m.Role {
		case driver.RoleSystem:
			if system == nil {
				system = &genai.Content{}
			}
			system.Parts = append(system.Parts, parts(m.Parts)...)
		case driver.RoleUser:
			contents = append(contents, genai.NewContentFromParts(parts(m.Parts), genai.RoleUser))
		case driver.RoleAssistant:
			c, err := ModelTurn(m)
			if err != nil {
				return nil, nil, fmt.Errorf("message %d: %w", i, err)
			}
			contents = append(contents, c)
		case driver.RoleTool:
			results, next := driver.ToolTurns(msgs, i)
			c, err := ToolResults(results)
			if err != nil {
				return nil, nil, fmt.Errorf("message %d: %w", i, err)
			}
			contents = append(contents, c)
			i = next - 1
		default:
			return nil, nil, fmt.Errorf("message %d: unknown role %q", i, m.Role)
		}
	}
	return system, contents, nil
}

func parts(ps []tool.Part) []*genai.Part {
	out := make([]*genai.Part, 0, len(ps))
	for _, p := range ps {
		switch p.Type {
		case tool.PartImage:
			out = append(out, genai.NewPartFromBytes(p.Data, p.MIMEType))
		case tool.PartJSON:
			out = append(out, genai.NewPartFromText(string(p.JSON)))
		default:
			out = append(out, genai.NewPartFromText(p.Text))
		}
	}
	return out
}

// ModelTurn converts an assistant turn to a model turn, in the order the
// model produced it: its thought parts (text and thought signature as they
// came), its text, then one functionCall part per call, with the call's
// thought signature, and its id unless the driver made it up.
func ModelTurn(m driver.Message) (*genai.Content, error) {
	var ps []*genai.Part
	var err error
	driver.Replay(m, driver.ReasoningGemini,
		func(r driver.Reasoning) {
			p := &genai.Part{Text: r.Text, Thought: true}
			if p.ThoughtSignature, err = signature(r.Signature, err); err == nil && p.Text != "" {
				ps = append(ps, p)
			}
		},
		func(text string) { ps = append(ps, genai.NewPartFromText(text)) },
		func(c driver.ToolCall) {
			if err != nil {
				return
			}
			args := map[string]any{}
			if c.Arguments != nil {
				if jerr := json.Unmarshal(c.Arguments, &args); jerr != nil {
					err = fmt.Errorf("tool call %q (%s): arguments: %w", c.ID, c.Name, jerr)
					return
				}
			}
			p := genai.NewPartFromFunctionCall(c.Name, args)
			if c.Metadata[driver.MetaIDGenerated] != "true" {
				p.FunctionCall.ID = c.ID
			}
			if p.ThoughtSignature, err = signature(c.Metadata[driver.MetaThoughtSignature], err); err != nil {
				err = fmt.Errorf("tool call %q (%s): %w", c.ID, c.Name, err)
			}
			ps = append(ps, p)
		})
	if err != nil {
		return nil, err
	}
	return genai.NewContentFromParts(ps, genai.RoleModel), nil
}

// signature decodes a thought signature kept as base64; it passes on an
// earlier error untouched.
func signature(sig string, prev error) ([]byte, error) {
	if prev != nil || sig == "" {
		return nil, prev
	}
	b, err := base64.StdEncoding.DecodeString(sig)
	if err != nil {
		return nil, fmt.Errorf("thought signature: %w", err)
	}
	return b, nil
}

// ToolResults converts the results of one turn to one user turn of
// functionResponse parts. The response object is the result's JSON object
// when it is one; anything else is wrapped as {"output": ...}, and an error
// as {"error": "..."}. Images go in the part's own media parts.
func ToolResults(results []driver.ToolResult) (*genai.Content, error) {
	ps := make([]*genai.Part, 0, len(results))
	for _, r := range results {
		fr := &genai.FunctionResponse{Name: r.Name, Response: responseObject(r)}
		if r.Metadata[driver.MetaIDGenerated] != "true" {
			fr.ID = r.CallID
		}
		for _, p := range r.Content {
			if p.Type == tool.PartImage {
				fr.Parts = append(fr.Parts, &genai.FunctionResponsePart{InlineData: &genai.FunctionResponseBlob{MIMEType: p.MIMEType, Data: p.Data}})
			}
		}
		ps = append(ps, &genai.Part{FunctionResponse: fr})
	}
	return genai.NewContentFromParts(ps, genai.RoleUser), nil
}

func responseObject(r driver.ToolResult) map[string]any {
	var nonImage []tool.Part
	for _, p := range r.Content {
		if p.Type != tool.PartImage {
			nonImage = append(nonImage, p)
		}
	}
	text := tool.Result{Parts: nonImage}.String()
	if r.IsError {
		return map[string]any{"error": text}
	}
	if len(nonImage) == 1 && nonImage[0].Type == tool.PartJSON {
		var v any
		if err := json.Unmarshal(nonImage[0].JSON, &v); err == nil {
			if obj, ok := v.(map[string]any); ok {
				return obj
			}
			return map[string]any{"output": v}
		}
	}
	return map[string]any{"output": text}
}

// ToolCalls returns the function calls of a whole response (its first
// candidate), with generated ids where Gemini sent none and thought
// signatures in Metadata.
func ToolCalls(resp *genai.GenerateContentResponse) ([]driver.ToolCall, error) {
	r, err := Response(resp)
	if r == nil {
		return nil, err
	}
	return r.ToolCalls, err
}

// Response converts a whole response.
func Response(resp *genai.GenerateContentResponse) (*driver.Response, error) {
	var a Accumulator
	if err := a.Add(resp, nil); err != nil {
		return nil, err
	}
	a.finished = true // a whole response is finished even when it names no reason
	return a.Response()
}
