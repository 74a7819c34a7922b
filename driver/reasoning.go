package driver

import "encoding/json"

// ReasoningFormat names the provider shape a [Reasoning] came in; a driver
// sends back only reasoning of its own format, because one provider's
// signature means nothing to another and would be refused.
type ReasoningFormat string

// The reasoning formats.
const (
	// ReasoningAnthropic is a thinking block (Text and Signature) or, when
	// Redacted, a redacted_thinking block (Data).
	ReasoningAnthropic ReasoningFormat = "anthropic"
	// ReasoningResponses is an OpenAI Responses reasoning item: Raw holds the
	// item exactly as the API returned it (id, summary, encrypted_content),
	// and is what is sent back; Text is its summary, for display.
	ReasoningResponses ReasoningFormat = "openai-responses"
	// ReasoningChat is the reasoning_content of an OpenAI-compatible server
	// (DeepSeek, xAI, vLLM...): Text only.
	ReasoningChat ReasoningFormat = "openai-chat"
	// ReasoningGemini is a Gemini thought part: Text (the thought summary)
	// and Signature (the thought signature, standard base64).
	ReasoningGemini ReasoningFormat = "gemini"
)

// Reasoning is what a model thought in one assistant turn, kept as its
// provider sent it so that it can go back byte for byte: some providers
// refuse the next request unless it does (Anthropic with thinking on,
// DeepSeek in thinking mode with tools), and the others think better when
// it does (OpenAI reasoning items, Gemini thought signatures).
//
// The opaque fields are never parsed or re-encoded: a signature, encrypted
// content or raw item is copied as the string or bytes that arrived.
type Reasoning struct {
	Format ReasoningFormat `json:"format"`
	// Text is the readable thinking, or its summary; empty when the provider
	// keeps it hidden (redacted thinking, encrypted-only reasoning items).
	Text string `json:"text"`
	// Signature is Anthropic's thinking signature or Gemini's thought
	// signature.
	Signature string `json:"signature"`
	// Redacted marks an Anthropic redacted_thinking block, whose Data is the
	// encrypted thinking.
	Redacted bool   `json:"redacted"`
	Data     string `json:"data"`
	// Raw is the provider's item as received (OpenAI Responses). omitempty
	// keeps nil nil through JSON, as driver/process sends it.
	Raw json.RawMessage `json:"raw,omitempty"`
	// Before is the position, among the turn's tool calls, of the call that
	// followed this reasoning: 0 for reasoning before the first call (and
	// before the text), len(ToolCalls) for reasoning after every call.
	// Drivers replay the turn in this order.
	Before int `json:"before"`
}

// ReasoningText joins the readable text of rs, blocks separated by a blank
// line: what a person is shown of a turn's thinking.
func ReasoningText(rs []Reasoning) string {
	var s string
	for _, r := range rs {
		if r.Text == "" {
			continue
		}
		if s != "" {
			s += "\n\n"
		}
		s += r.Text
	}
	return s
}

// Replay walks an assistant turn in the order its provider produced it:
// reasoning of format f before the call it preceded, the text after the
// reasoning that came before any call, then each call. A driver builds its
// assistant message from these callbacks; reasoning of another format is
// skipped.
func Replay(m Message, f ReasoningFormat, reasoning func(Reasoning), text func(string), call func(ToolCall)) {
	next := 0 // the next reasoning to place
	flush := func(before int) {
		for ; next < len(m.Reasoning) && m.Reasoning[next].Before <= before; next++ {
			if m.Reasoning[next].Format == f {
				reasoning(m.Reasoning[next])
			}
		}
	}
	flush(0)
	if t := m.Text(); t != "" {
		text(t)
	}
	for i, c := range m.ToolCalls {
		flush(i)
		call(c)
	}
	flush(len(m.ToolCalls))
	for ; next < len(m.Reasoning); next++ { // out of order: never dropped
		if m.Reasoning[next].Format == f {
			reasoning(m.Reasoning[next])
		}
	}
}
