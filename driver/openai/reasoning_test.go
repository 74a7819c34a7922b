package openai_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/quiverkit/quiver/driver"
	"github.com/quiverkit/quiver/driver/openai"
)

// reasoning_content goes back by DeepSeek's rule: on assistant turns with
// tool calls whose reply carried the field (even empty), never on turns
// without calls, never to a server that sent none.
func TestChatSendsReasoningContentBackOnToolTurns(t *testing.T) {
	call := driver.ToolCall{ID: "call_1", Name: "read_file", Arguments: json.RawMessage(`{}`)}
	chat := func(text string) []driver.Reasoning {
		return []driver.Reasoning{{Format: driver.ReasoningChat, Text: text}}
	}
	tests := []struct {
		name string
		msg  driver.Message
		want string // "" means no reasoning_content field
	}{
		{"a tool-call turn: sent", withReasoning(driver.AssistantMessage("", call), chat("think")), `"reasoning_content":"think"`},
		{"a tool-call turn with empty reasoning: sent empty", withReasoning(driver.AssistantMessage("", call), chat("")), `"reasoning_content":""`},
		{"a turn without calls: not sent", withReasoning(driver.AssistantMessage("done"), chat("think")), ""},
		{"a server that sent none: not sent", driver.AssistantMessage("", call), ""},
		{"another provider's reasoning: not sent", withReasoning(driver.AssistantMessage("", call), []driver.Reasoning{{Format: driver.ReasoningAnthropic, Text: "x", Signature: "s"}}), ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, _ := json.Marshal(openai.ChatAssistant(tt.msg))
			got := string(b)
			if tt.want == "" && strings.Contains(got, "reasoning_content") || tt.want != "" && !strings.Contains(got, tt.want) {
				t.Errorf("sent %s, want %q", got, tt.want)
			}
		})
	}
}

// A function_call keeps its fc_ id only beside the reasoning item it came
// with: the API refuses the id alone.
func TestResponsesSendsItemIDsOnlyWithTheirReasoning(t *testing.T) {
	call := driver.ToolCall{ID: "call_1", Name: "f", Arguments: json.RawMessage(`{}`), Metadata: map[string]string{driver.MetaItemID: "fc_1"}}
	without, _ := json.Marshal(openai.ResponsesAssistant(driver.AssistantMessage("", call)))
	if strings.Contains(string(without), "fc_1") {
		t.Errorf("fc_ id sent without its reasoning: %s", without)
	}
	m := withReasoning(driver.AssistantMessage("", call), []driver.Reasoning{{Format: driver.ReasoningResponses, Raw: json.RawMessage(`{"id":"rs_1","type":"reasoning","summary":[],"encrypted_content":"gAAA"}`)}})
	with, _ := json.Marshal(openai.ResponsesAssistant(m))
	want := `[{"id":"rs_1","type":"reasoning","summary":[],"encrypted_content":"gAAA"},{"arguments":"{}","call_id":"call_1","name":"f","id":"fc_1","type":"function_call"}]`
	if string(with) != want {
		t.Errorf("sent %s\nwant %s", with, want)
	}
}

func withReasoning(m driver.Message, r []driver.Reasoning) driver.Message {
	m.Reasoning = r
	return m
}
