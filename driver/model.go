package driver

import "context"

// Model is a model behind one provider's API. Implementations are in the
// provider sub-packages; each is built on an SDK client its caller configured.
//
// Both methods return a [*CallError] (possibly several, joined) beside a
// non-nil Response when the reply was whole but some calls in it were not
// usable; any other error comes with no Response.
type Model interface {
	// Generate sends req and waits for the whole reply.
	Generate(ctx context.Context, req Request) (*Response, error)
	// Stream sends req and returns the reply as it arrives: text deltas and
	// tool-call events, ending with an [EventDone] that holds the whole
	// Response. The stream ends, with an error, no later than ctx does.
	Stream(ctx context.Context, req Request) (Stream, error)
}

// Request is one turn's input to a model.
type Request struct {
	Messages   []Message        `json:"messages"`
	Tools      []ToolDefinition `json:"tools"`
	ToolChoice ToolChoice       `json:"tool_choice"` // zero: the provider's default (auto)
	// ParallelToolCalls, when set, allows or forbids several calls in one
	// turn (OpenAI parallel_tool_calls, Anthropic disable_parallel_tool_use).
	// Gemini has no such switch and ignores it.
	ParallelToolCalls *bool `json:"parallel_tool_calls"`
	// MaxTokens caps the reply; 0 leaves the provider's default (Anthropic,
	// which requires a value, gets the driver's default).
	MaxTokens int `json:"max_tokens"`
	// Reasoning asks the model to think first, where it can; the zero value
	// leaves the model's default.
	Reasoning ReasoningConfig `json:"reasoning"`
}

// ReasoningConfig is how much a model should think. Each driver sends what
// its provider understands and ignores the rest: Anthropic takes
// BudgetTokens (extended thinking, which needs at least 1,024 and less than
// the reply's MaxTokens), OpenAI takes Effort (reasoning_effort, or
// reasoning.effort on the Responses API), Gemini takes either (a thinking
// budget, or a thinking level).
type ReasoningConfig struct {
	BudgetTokens int    `json:"budget_tokens"` // 0: not set
	Effort       string `json:"effort"`        // "low", "medium", "high"; "": not set
}

// StopReason is why a model stopped.
type StopReason string

// The stop reasons, normalised across providers.
const (
	StopEnd           StopReason = "end"            // a natural stop or a stop sequence
	StopToolCalls     StopReason = "tool_calls"     // it called tools and waits for results
	StopLength        StopReason = "length"         // it hit the token limit
	StopContentFilter StopReason = "content_filter" // the provider withheld content
	StopOther         StopReason = "other"          // anything else; see Response.ProviderStopReason
)

// Usage is what a turn cost in tokens. Fields a provider does not report are 0.
type Usage struct {
	InputTokens     int64 `json:"input_tokens"`
	OutputTokens    int64 `json:"output_tokens"`
	CacheReadTokens int64 `json:"cache_read_tokens"` // input tokens served from the provider's prompt cache
	ReasoningTokens int64 `json:"reasoning_tokens"`  // output tokens spent thinking (included in OutputTokens)
	TotalTokens     int64 `json:"total_tokens"`
}

// Response is a model's whole reply to one Request.
type Response struct {
	ID    string `json:"id"`
	Model string `json:"model"`
	// Text is the visible text, joined; reasoning is left out.
	Text string `json:"text"`
	// Reasoning is the model's thinking, kept to be sent back with the next
	// request (see [Reasoning]).
	Reasoning []Reasoning `json:"reasoning"`
	// ToolCalls are the calls for the client to run, in the order the model
	// made them.
	ToolCalls []ToolCall `json:"tool_calls"`
	// ServerToolCalls are calls the provider ran itself (Anthropic
	// server_tool_use); they are reported, never run by the client.
	ServerToolCalls    []ToolCall `json:"server_tool_calls"`
	StopReason         StopReason `json:"stop_reason"`
	ProviderStopReason string     `json:"provider_stop_reason"` // the provider's own word for it
	Usage              Usage      `json:"usage"`
}

// Message returns the assistant turn to append to the conversation for the
// next request.
// It carries the reply's reasoning, which some providers require back.
func (r *Response) Message() Message {
	m := AssistantMessage(r.Text, r.ToolCalls...)
	m.Reasoning = r.Reasoning
	return m
}
