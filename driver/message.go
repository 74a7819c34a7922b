package driver

import "github.com/quiverkit/quiver/tool"

// Role is who a [Message] comes from.
type Role string

// The roles.
const (
	RoleSystem    Role = "system"    // instructions; drivers move them where their provider wants them
	RoleUser      Role = "user"      // text and images
	RoleAssistant Role = "assistant" // the model's text and tool calls
	RoleTool      Role = "tool"      // results of tool calls
)

// Message is one turn of a conversation. Which fields are used depends on the
// role: Parts for system, user and assistant text; ToolCalls and Reasoning
// for the assistant; ToolResults for RoleTool. Drivers merge consecutive
// RoleTool messages into the single turn their provider expects.
type Message struct {
	Role        Role         `json:"role"`
	Parts       []tool.Part  `json:"parts"`
	ToolCalls   []ToolCall   `json:"tool_calls"`
	ToolResults []ToolResult `json:"tool_results"`
	// Reasoning is the assistant's thinking in this turn, in the order the
	// provider sent it; each driver sends back the reasoning of its own
	// format as its provider requires (see [Replay]).
	Reasoning []Reasoning `json:"reasoning"`
}

// SystemMessage returns a system message.
func SystemMessage(text string) Message { return Message{Role: RoleSystem, Parts: textParts(text)} }

// UserMessage returns a user message holding text.
func UserMessage(text string) Message { return Message{Role: RoleUser, Parts: textParts(text)} }

// UserParts returns a user message holding parts (text and images).
func UserParts(parts ...tool.Part) Message { return Message{Role: RoleUser, Parts: parts} }

// AssistantMessage returns an assistant turn: its text (may be empty) and
// the tool calls it made.
func AssistantMessage(text string, calls ...ToolCall) Message {
	return Message{Role: RoleAssistant, Parts: textParts(text), ToolCalls: calls}
}

// ToolMessage returns the turn that answers tool calls.
func ToolMessage(results ...ToolResult) Message {
	return Message{Role: RoleTool, ToolResults: results}
}

// Text returns the message's text parts joined, ignoring other parts.
func (m Message) Text() string {
	if len(m.Parts) == 1 && m.Parts[0].Type == tool.PartText {
		return m.Parts[0].Text
	}
	var s string
	for _, p := range m.Parts {
		if p.Type == tool.PartText {
			s += p.Text
		}
	}
	return s
}

func textParts(text string) []tool.Part {
	if text == "" {
		return nil
	}
	return []tool.Part{{Type: tool.PartText, Text: text}}
}

// ToolTurns groups msgs for providers that answer every call of a turn in one
// message: it returns the results of the run of RoleTool messages starting at
// msgs[i], and the index after that run.
func ToolTurns(msgs []Message, i int) (results []ToolResult, next int) {
	for next = i; next < len(msgs) && msgs[next].Role == RoleTool; next++ {
		results = append(results, msgs[next].ToolResults...)
	}
	return results, next
}
