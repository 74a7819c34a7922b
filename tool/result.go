package tool

import (
	"encoding/json"
	"strconv"
	"strings"
)

// PartType is the kind of one [Part] of a result.
type PartType string

// The part types.
const (
	PartText  PartType = "text"
	PartJSON  PartType = "json"
	PartImage PartType = "image"
)

// Part is one piece of what the model sees: text, a JSON value, or an image.
type Part struct {
	Type     PartType        `json:"type"`
	Text     string          `json:"text,omitempty"`      // PartText
	JSON     json.RawMessage `json:"json,omitempty"`      // PartJSON
	MIMEType string          `json:"mime_type,omitempty"` // PartImage
	Data     []byte          `json:"data,omitempty"`      // PartImage: the raw bytes (base64 in JSON)
}

// Result is what a call returns to the model, plus the typed output for Go
// callers.
type Result struct {
	// Parts is the model's view, in order.
	Parts []Part `json:"parts"`
	// IsError marks a result that reports a failure to the model.
	IsError bool `json:"is_error,omitempty"`
	// OutputRef is set when the output cache stored the whole output and Parts
	// holds a trimmed view of it.
	OutputRef string `json:"output_ref,omitempty"`
	// Output is the tool's typed output (the Out of a [Func]), for Go callers
	// and structured clients. It is never trimmed. Nil for untyped tools.
	Output any `json:"-"`
}

// Text returns a result holding one text part.
func Text(s string) Result { return Result{Parts: []Part{{Type: PartText, Text: s}}} }

// JSON returns a result holding v as one JSON part. A value that does not
// marshal becomes a text part saying so.
func JSON(v any) Result {
	b, err := json.Marshal(v)
	if err != nil {
		return Result{Parts: []Part{{Type: PartText, Text: "unrenderable output: " + err.Error()}}, IsError: true}
	}
	return Result{Parts: []Part{{Type: PartJSON, JSON: b}}}
}

// Image returns a part holding an image.
func Image(mimeType string, data []byte) Part {
	return Part{Type: PartImage, MIMEType: mimeType, Data: data}
}

// ErrorResult returns the result a model sees for err:
// "Error executing tool NAME: CODE: message".
func ErrorResult(name string, err *Error) Result {
	return Result{Parts: []Part{{Type: PartText, Text: "Error executing tool " + name + ": " + err.Error()}}, IsError: true}
}

// String returns the model's view as one text: text parts as they are, JSON
// parts as JSON, images as a placeholder naming their type and size.
func (r Result) String() string {
	var b strings.Builder
	for i, p := range r.Parts {
		if i > 0 {
			b.WriteByte('\n')
		}
		switch p.Type {
		case PartText:
			b.WriteString(p.Text)
		case PartJSON:
			b.Write(p.JSON)
		case PartImage:
			b.WriteString("[image " + p.MIMEType + ", " + strconv.Itoa(len(p.Data)) + " bytes]")
		}
	}
	return b.String()
}

// Text is [Result.String]: the model's view as one text. It is the name a
// reader of a result reaches for first (out.Content.Text), and the one
// driver.ToolResult and driver.Message give their text by.
func (r Result) Text() string { return r.String() }

// Renderer is implemented by typed outputs that choose their own model view
// (read_file shows numbered lines rather than JSON).
type Renderer interface {
	Render() Result
}
