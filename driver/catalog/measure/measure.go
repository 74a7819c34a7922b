// Package measure prices a tool catalogue (package driver/catalog): it
// builds the tools array of each form with the drivers' own conversions,
// marshals it as the SDKs put it on the wire, compact, and counts its o200k
// tokens with github.com/tiktoken-go/tokenizer, whose encodings are compiled
// in: measuring downloads nothing. quiver-models runs it as
// `quiver-models catalog` ([Serve]).
package measure

import (
	"encoding/json"
	"fmt"
	"io"
	"sync"

	"github.com/quiverkit/quiver/driver"
	"github.com/quiverkit/quiver/driver/anthropic"
	"github.com/quiverkit/quiver/driver/catalog"
	"github.com/quiverkit/quiver/driver/gemini"
	"github.com/quiverkit/quiver/driver/openai"
	"github.com/tiktoken-go/tokenizer/codec"
)

// Tokens counts s in o200k_base.
func Tokens(s string) (int, error) {
	n, err := encoder().Count(s)
	if err != nil {
		return 0, fmt.Errorf("catalog: count tokens: %w", err)
	}
	return n, nil
}

// encoder builds the o200k codec once: its vocabulary is a 200,000-entry map
// built on first use.
var encoder = sync.OnceValue(codec.NewO200kBase)

// Measure prices in in every form, Chat first. Deferred definitions are
// priced as a model holds them up front: left out, with Quiver's
// tool_search in their place (driver.UpFront).
func Measure(in catalog.Input) ([]catalog.Cost, error) {
	defs := driver.UpFront(in.Tools)
	names := make([]string, len(defs))
	for i, d := range defs {
		names[i] = d.Name
	}
	var out []catalog.Cost
	for _, f := range []catalog.Form{catalog.Chat, catalog.Responses, catalog.Anthropic, catalog.Gemini} {
		els, err := elements(f, defs)
		if err != nil {
			return nil, fmt.Errorf("catalog: %s: %w", f, err)
		}
		opening, closing := "[", "]"
		if f == catalog.Gemini { // one tool holding every function declaration
			opening, closing = `[{"functionDeclarations":[`, "]}]"
		}
		c, err := price(f, names, els, opening, closing)
		if err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	if len(in.MCP) > 0 {
		mcpNames, err := mcpNames(in.MCP)
		if err != nil {
			return nil, err
		}
		c, err := price(catalog.MCP, mcpNames, in.MCP, `{"tools":[`, "]}")
		if err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, nil
}

// elements are the tools array of form f, one element per tool, as its
// driver builds it and its SDK marshals it.
func elements(f catalog.Form, defs []driver.ToolDefinition) ([]json.RawMessage, error) {
	switch f {
	case catalog.Chat:
		return each(openai.ChatTools(defs))
	case catalog.Responses:
		return each(openai.ResponsesTools(defs))
	case catalog.Anthropic:
		return each(anthropic.Tools(defs))
	case catalog.Gemini:
		return geminiElements(defs)
	}
	return nil, fmt.Errorf("no form %q", f)
}

// price counts each element and the whole, wrapped in opening and closing.
func price(form catalog.Form, names []string, els []json.RawMessage, opening, closing string) (catalog.Cost, error) {
	c := catalog.Cost{Form: form, Tools: make([]catalog.ToolCost, len(els))}
	whole := []byte(opening)
	for i, el := range els {
		n, err := Tokens(string(el))
		if err != nil {
			return catalog.Cost{}, err
		}
		c.Tools[i] = catalog.ToolCost{Name: names[i], Tokens: n}
		if i > 0 {
			whole = append(whole, ',')
		}
		whole = append(whole, el...)
	}
	whole = append(whole, closing...)
	total, err := Tokens(string(whole))
	c.Total = total
	return c, err
}

// each marshals each element of a converted tools array, compactly, as its
// SDK puts it on the wire.
func each[T any](tools []T, err error) ([]json.RawMessage, error) {
	if err != nil {
		return nil, err
	}
	out := make([]json.RawMessage, len(tools))
	for i := range tools {
		b, err := json.Marshal(tools[i])
		if err != nil {
			return nil, fmt.Errorf("tool %d: %w", i, err)
		}
		out[i] = b
	}
	return out, nil
}

// geminiElements are the function declarations of Gemini's one tool: Gemini
// takes a list of declarations inside a single tool, so a tool's element is
// its declaration.
func geminiElements(defs []driver.ToolDefinition) ([]json.RawMessage, error) {
	tools, err := gemini.Tools(defs)
	if err != nil || len(tools) == 0 {
		return nil, err
	}
	return each(tools[0].FunctionDeclarations, nil)
}

// mcpNames reads each tools/list entry's name.
func mcpNames(els []json.RawMessage) ([]string, error) {
	names := make([]string, len(els))
	for i, el := range els {
		var t struct {
			Name string `json:"name"`
		}
		if err := json.Unmarshal(el, &t); err != nil {
			return nil, fmt.Errorf("catalog: mcp entry %d: %w", i, err)
		}
		names[i] = t.Name
	}
	return names, nil
}

// Serve reads one [catalog.Input] from r and writes its costs to w, as a JSON array:
// `quiver-models catalog`.
func Serve(r io.Reader, w io.Writer) error {
	var in catalog.Input
	dec := json.NewDecoder(r)
	dec.DisallowUnknownFields()
	if err := dec.Decode(&in); err != nil {
		return fmt.Errorf("catalog: read the catalogue: %w", err)
	}
	costs, err := Measure(in)
	if err != nil {
		return err
	}
	return json.NewEncoder(w).Encode(costs)
}
