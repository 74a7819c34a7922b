// Package catalog holds the shapes of a tool catalogue's price: what a
// catalogue costs a model, in o200k tokens of the compact JSON of its tools
// array, in each form a model receives it (OpenAI Chat Completions and
// Responses, Anthropic Messages, Gemini, MCP tools/list).
//
// The measuring itself is package driver/catalog/measure, which links the
// SDKs (each form is built by its driver's own conversion and marshalled by
// its SDK) and the tokenizer's vocabulary. The quiver command links
// neither: `quiver tools --tokens` sends an [Input] to
// `quiver-models catalog` and reads back the [Cost] of each form, the way
// `quiver run` hands quiver-models its requests.
//
// A form's total is the tokens of the whole array, not the sum of its tools'
// (the brackets and commas between them cost a little); a tool's figure is
// the tokens of its own element. o200k is OpenAI's encoding; the other
// providers' tokenizers differ by some percent, and one yardstick for every
// form is what lets their figures be compared.
package catalog

import (
	"encoding/json"

	"github.com/quiverkit/quiver/driver"
)

// Form names a wire form of the tools array.
type Form string

// The forms measured, in the order they are reported.
const (
	Chat      Form = "openai-chat"
	Responses Form = "openai-responses"
	Anthropic Form = "anthropic"
	Gemini    Form = "gemini"
	MCP       Form = "mcp"
)

// Input is a catalogue to measure, sent as one JSON object.
type Input struct {
	// Tools are the definitions a model is offered, in order.
	Tools []driver.ToolDefinition `json:"tools"`
	// MCP are the entries of a tools/list result, one per tool, each as the
	// server encodes it. Empty: the MCP form is not measured.
	MCP []json.RawMessage `json:"mcp,omitempty"`
}

// Cost is one form's price.
type Cost struct {
	Form  Form `json:"form"`
	Total int  `json:"total"` // the whole array
	// Tools holds each tool's element, in the catalogue's order.
	Tools []ToolCost `json:"tools"`
}

// ToolCost is one tool's element of a form.
type ToolCost struct {
	Name   string `json:"name"`
	Tokens int    `json:"tokens"`
}
