package anthropic_test

import (
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/quiverkit/quiver/driver"
	"github.com/quiverkit/quiver/driver/anthropic"
	"github.com/quiverkit/quiver/driver/internal/streamtest"
	"github.com/quiverkit/quiver/tool"
)

// A recorded claude-sonnet-4-6 reply with thinking and a tool call (see
// driver/testdata/streams/README.md), replayed to the SDK's client: the
// thinking comes back as Reasoning, signature byte for byte, and opens the
// assistant turn of the next request, before the tool_use, as the API
// requires.
func TestRecordedThinkingGoesBackFirst(t *testing.T) {
	body, err := os.ReadFile("../testdata/messages/anthropic/claude-sonnet-4-6-thinking-tool-call.json")
	if err != nil {
		t.Fatal(err)
	}
	var rec struct {
		Content []struct{ Type, Thinking, Signature string }
	}
	if err := json.Unmarshal(body, &rec); err != nil {
		t.Fatal(err)
	}
	srv := streamtest.NewServer(t, streamtest.Reply{Body: body, ContentType: "application/json"})
	resp, err := anthropic.New(testClient(srv.URL), "claude-sonnet-4-6").Generate(context.Background(), weatherReq)
	if err != nil {
		t.Fatal(err)
	}
	want := []driver.Reasoning{{Format: driver.ReasoningAnthropic, Text: rec.Content[0].Thinking, Signature: rec.Content[0].Signature}}
	if d := cmp.Diff(want, resp.Reasoning); d != "" || len(resp.ToolCalls) != 1 || resp.Usage.ReasoningTokens != 18 {
		t.Fatalf("reasoning (-want +got):\n%s\ncalls %+v, usage %+v", d, resp.ToolCalls, resp.Usage)
	}
	next := driver.Request{Messages: []driver.Message{weatherReq.Messages[0], resp.Message(),
		driver.ToolMessage(driver.ResultFor(resp.ToolCalls[0], tool.Text("no errors"), nil))}}
	p, err := anthropic.Params("claude-sonnet-4-6", next)
	if err != nil {
		t.Fatal(err)
	}
	var sent struct {
		Messages []struct {
			Content []map[string]any `json:"content"`
		} `json:"messages"`
	}
	b, _ := json.Marshal(p)
	if err := json.Unmarshal(b, &sent); err != nil {
		t.Fatal(err)
	}
	turn := sent.Messages[1].Content
	if len(turn) != 2 || turn[0]["type"] != "thinking" || turn[0]["signature"] != rec.Content[0].Signature ||
		turn[0]["thinking"] != rec.Content[0].Thinking || turn[1]["type"] != "tool_use" {
		t.Errorf("assistant turn sent back: %v", turn)
	}
}

// Redacted thinking goes back as its data, in its place among the blocks;
// reasoning of another provider's format is not sent at all.
func TestAssistantReplaysReasoningInOrder(t *testing.T) {
	m := driver.AssistantMessage("Checking.", driver.ToolCall{ID: "toolu_1", Name: "a", Arguments: json.RawMessage(`{}`)},
		driver.ToolCall{ID: "toolu_2", Name: "b", Arguments: json.RawMessage(`{}`)})
	m.Reasoning = []driver.Reasoning{
		{Format: driver.ReasoningAnthropic, Text: "first", Signature: "sig1"},
		{Format: driver.ReasoningAnthropic, Redacted: true, Data: "opaque=="},
		{Format: driver.ReasoningGemini, Text: "not for Anthropic", Signature: "gem"},
		{Format: driver.ReasoningAnthropic, Text: "between", Signature: "sig2", Before: 1},
	}
	b, _ := json.Marshal(anthropic.Assistant(m))
	got := string(b)
	want := []string{`{"signature":"sig1","thinking":"first","type":"thinking"}`, `{"data":"opaque==","type":"redacted_thinking"}`,
		`"text":"Checking."`, `"id":"toolu_1"`, `{"signature":"sig2","thinking":"between","type":"thinking"}`, `"id":"toolu_2"`}
	at := 0
	for _, w := range want {
		i := strings.Index(got[at:], w)
		if i < 0 {
			t.Fatalf("%s not found in order in %s", w, got)
		}
		at += i + len(w)
	}
	if strings.Contains(got, "not for Anthropic") {
		t.Errorf("another provider's reasoning was sent: %s", got)
	}
}

func TestThinkingBudget(t *testing.T) {
	tests := []struct {
		name         string
		budget, max  int
		wantMax      int64
		wantErr      string
		wantThinking bool
	}{
		{"no budget: no thinking", 0, 0, anthropic.DefaultMaxTokens, "", false},
		{"a budget without max tokens gets room for the answer", 2048, 0, 2048 + anthropic.DefaultMaxTokens, "", true},
		{"a budget below max tokens", 2048, 4096, 4096, "", true},
		{"a budget under the API's minimum", 500, 0, 0, "at least 1024", false},
		{"a budget that leaves no room", 4096, 4096, 0, "must be below max tokens", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := anthropic.Params("m", driver.Request{Messages: weatherReq.Messages, MaxTokens: tt.max, Reasoning: driver.ReasoningConfig{BudgetTokens: tt.budget}})
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil || p.MaxTokens != tt.wantMax || (p.Thinking.OfEnabled != nil) != tt.wantThinking {
				t.Errorf("max %d, thinking %+v, err %v", p.MaxTokens, p.Thinking, err)
			}
		})
	}
}
