package driver

import (
	"encoding/json"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/quiverkit/quiver/tool"
)

// ToolDefinition is a tool as offered to a model.
type ToolDefinition struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	// Parameters is the canonical input schema (an object schema). Nil means
	// the tool takes no arguments. Drivers convert it to their provider's
	// dialect and never change it; they remember each conversion (see
	// [Memo]), so a schema must not change once it has been offered — tool
	// schemas never do.
	Parameters *jsonschema.Schema `json:"parameters"`
	// Strict asks for OpenAI's strict mode (constrained decoding). A schema
	// strict mode cannot express is sent with strict off. Providers without
	// such a mode ignore it.
	Strict bool `json:"strict"`
	// Deferred holds the tool back behind tool search (see [Deferral]):
	// drivers with native deferral send it marked (Anthropic
	// defer_loading, an OpenAI Responses namespace), the others leave it
	// out and offer Quiver's tool_search instead ([UpFront]).
	Deferred bool `json:"deferred,omitempty"`
}

// ToolChoiceMode is how a model may use the tools it is offered.
type ToolChoiceMode string

// The tool-choice modes. The zero ToolChoice leaves the provider's default
// (auto) in place.
const (
	ToolChoiceAuto     ToolChoiceMode = "auto"     // the model decides
	ToolChoiceNone     ToolChoiceMode = "none"     // no tool calls
	ToolChoiceRequired ToolChoiceMode = "required" // at least one call (Anthropic "any", Gemini ANY)
	ToolChoiceTool     ToolChoiceMode = "tool"     // a call of the tool named in ToolChoice.Name
)

// ToolChoice constrains tool use for one request.
type ToolChoice struct {
	Mode ToolChoiceMode `json:"mode"`
	Name string         `json:"name"` // for ToolChoiceTool
}

// Choose returns the choice that forces a call of the tool named name.
func Choose(name string) ToolChoice { return ToolChoice{Mode: ToolChoiceTool, Name: name} }

// Metadata keys drivers set on [ToolCall.Metadata] (and [ToolResult.Metadata],
// which [ResultFor] copies from the call). Values are strings so that a
// conversation can be stored as JSON and replayed.
const (
	// MetaIDGenerated is "true" when the provider sent no id and the driver
	// made one up; drivers then leave the id out of what they send back.
	MetaIDGenerated = "id_generated"
	// MetaThoughtSignature is Gemini's thought signature (standard base64),
	// which must come back on the next turn with the call it arrived on.
	MetaThoughtSignature = "thought_signature"
	// MetaItemID is the OpenAI Responses item id (fc_...), distinct from the
	// call id.
	MetaItemID = "item_id"
	// MetaCallerType and MetaCallerID name what made an OpenAI Responses call
	// when it was not the model directly (a program item, say); they are sent
	// back on the function_call_output.
	MetaCallerType = "caller_type"
	MetaCallerID   = "caller_id"
)

// ToolCall is one call a model asked for. It is also what the root
// package's Toolkit runs (InvokeCall, InvokeAll): there is one type for a
// model's call, from the provider's response to the pipeline.
type ToolCall struct {
	// ID pairs the call with its result. Unique within a response.
	ID   string `json:"id"`
	Name string `json:"name"`
	// Arguments is a JSON object; never nil for a call that parsed. It is nil
	// only on a call reported by a *CallError (its arguments did not parse),
	// which [UnparsedResult] answers with an error result, running nothing.
	// (omitempty keeps nil nil through JSON, as driver/process sends it.)
	Arguments json.RawMessage `json:"arguments,omitempty"`
	// Metadata keeps what the provider needs back on the next turn (see the
	// Meta* keys). Nil when there is nothing.
	Metadata map[string]string `json:"metadata"`
}

// ToolResult is what a call returned, to be sent back to the model.
type ToolResult struct {
	CallID string `json:"call_id"`
	// Name is the tool's name; Gemini matches results to calls by it.
	Name string `json:"name"`
	// Content is the model's view: text, JSON and image parts, in order.
	Content []tool.Part `json:"content"`
	// IsError marks a failed call; providers that have a flag for it get it
	// (Anthropic is_error), the others see the error text.
	IsError bool `json:"is_error"`
	// Metadata is the call's metadata, carried so that each driver can send
	// back what its provider needs (Gemini's generated-id flag, the
	// Responses caller).
	Metadata map[string]string `json:"metadata"`
}

// TextResult returns a successful result holding one text part.
func TextResult(callID, name, text string) ToolResult {
	return ToolResult{CallID: callID, Name: name, Content: []tool.Part{{Type: tool.PartText, Text: text}}}
}

// Text returns the result's content as one text: text parts as they are, JSON
// parts as JSON, images as a placeholder naming their type and size. Drivers
// whose provider takes only text for a result send this.
func (r ToolResult) Text() string { return tool.Result{Parts: r.Content}.String() }

// HasImages reports whether the result holds an image part.
func (r ToolResult) HasImages() bool {
	for _, p := range r.Content {
		if p.Type == tool.PartImage {
			return true
		}
	}
	return false
}
