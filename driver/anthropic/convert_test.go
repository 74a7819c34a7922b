package anthropic_test

import (
	"encoding/json"
	"strings"
	"testing"

	sdk "github.com/anthropics/anthropic-sdk-go"
	"github.com/google/go-cmp/cmp"
	"github.com/google/jsonschema-go/jsonschema"
	"github.com/quiverkit/quiver/driver"
	"github.com/quiverkit/quiver/driver/anthropic"
	"github.com/quiverkit/quiver/driver/internal/streamtest"
	"github.com/quiverkit/quiver/tool"
)

func marshal(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// The request for a conversation of every message shape matches the golden
// file: system blocks, user text and image, assistant text and tool_use
// blocks, every result of a turn in one user message of tool_result blocks
// (JSON as text, an image block, is_error), the named tool choice with
// disable_parallel_tool_use.
func TestParamsEveryShape(t *testing.T) {
	parallel := false
	p, err := anthropic.Params("claude-test", driver.Request{
		Messages: streamtest.Conversation(), Tools: streamtest.Catalogue(3),
		ToolChoice: driver.Choose("weather"), ParallelToolCalls: &parallel,
	})
	if err != nil {
		t.Fatal(err)
	}
	streamtest.Golden(t, "params_every_shape", marshal(t, p))
	var wire struct {
		Messages []struct {
			Role    string `json:"role"`
			Content []struct {
				Type    string `json:"type"`
				IsError bool   `json:"is_error"`
			} `json:"content"`
		} `json:"messages"`
	}
	json.Unmarshal(marshal(t, p), &wire)
	// The two tool messages after the screenshot call are one user turn.
	turn := wire.Messages[5]
	if turn.Role != "user" || len(turn.Content) != 2 || turn.Content[0].Type != "tool_result" || !turn.Content[1].IsError {
		t.Errorf("results of one turn are not one user message: %+v", turn)
	}
}

func TestToolChoice(t *testing.T) {
	no, yes := false, true
	tests := []struct {
		name     string
		choice   driver.ToolChoice
		parallel *bool
		want     string
	}{
		{"zero leaves the default", driver.ToolChoice{}, nil, `null`},
		{"zero with parallel calls off is auto with them off", driver.ToolChoice{}, &no, `{"disable_parallel_tool_use":true,"type":"auto"}`},
		{"auto", driver.ToolChoice{Mode: driver.ToolChoiceAuto}, &yes, `{"type":"auto"}`},
		{"none", driver.ToolChoice{Mode: driver.ToolChoiceNone}, nil, `{"type":"none"}`},
		{"required is any", driver.ToolChoice{Mode: driver.ToolChoiceRequired}, &no, `{"disable_parallel_tool_use":true,"type":"any"}`},
		{"a named tool is tool", driver.Choose("weather"), nil, `{"name":"weather","type":"tool"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := string(marshal(t, anthropic.ToolChoice(tt.choice, tt.parallel))); got != tt.want {
				t.Errorf("got %s, want %s", got, tt.want)
			}
		})
	}
}

func TestInputSchema(t *testing.T) {
	t.Run("keywords beyond properties and required are carried, $schema dropped", func(t *testing.T) {
		s := &jsonschema.Schema{
			Schema: "https://json-schema.org/draft/2020-12/schema", Type: "object",
			Properties:           map[string]*jsonschema.Schema{"p": {Ref: "#/$defs/P"}},
			Required:             []string{"p"},
			AdditionalProperties: &jsonschema.Schema{Not: &jsonschema.Schema{}},
			Defs:                 map[string]*jsonschema.Schema{"P": {Type: "string"}},
		}
		in, err := anthropic.InputSchema(driver.ToolDefinition{Name: "t", Parameters: s})
		if err != nil {
			t.Fatal(err)
		}
		want := `{"properties":{"p":{"$ref":"#/$defs/P"}},"required":["p"],"type":"object","$defs":{"P":{"type":"string"}},"additionalProperties":false}`
		var a, b any
		json.Unmarshal([]byte(want), &a)
		json.Unmarshal(marshal(t, in), &b)
		if d := cmp.Diff(a, b); d != "" {
			t.Errorf("(-want +got):\n%s", d)
		}
	})
	t.Run("a tool without parameters has an empty object schema", func(t *testing.T) {
		in, _ := anthropic.InputSchema(driver.ToolDefinition{Name: "t"})
		if got := string(marshal(t, in)); got != `{"properties":{},"type":"object"}` {
			t.Errorf("got %s", got)
		}
	})
	t.Run("a root that is not an object is refused, naming the tool", func(t *testing.T) {
		_, err := anthropic.Tools([]driver.ToolDefinition{{Name: "bad", Parameters: &jsonschema.Schema{Type: "array"}}})
		if err == nil || !strings.Contains(err.Error(), `"bad"`) || !strings.Contains(err.Error(), "object") {
			t.Errorf("err = %v", err)
		}
	})
}

// A message's tool_use blocks come back through the driver types into the
// next request unchanged; server_tool_use blocks are reported apart; results
// answer in one user turn.
func TestRoundTrip(t *testing.T) {
	var msg sdk.Message
	body := `{"id":"msg_1","type":"message","role":"assistant","model":"claude-test","stop_reason":"tool_use",
		"usage":{"input_tokens":20,"output_tokens":7,"cache_read_input_tokens":3},
		"content":[{"type":"text","text":"Checking."},
		{"type":"server_tool_use","id":"srvtoolu_1","name":"web_search","input":{"query":"oslo"}},
		{"type":"tool_use","id":"toolu_a","name":"weather","input":{"city":"Oslo"}},
		{"type":"tool_use","id":"toolu_b","name":"screenshot","input":{},"caller":{"type":"code_execution_20250825","tool_id":"srvtoolu_9"}}]}`
	if err := json.Unmarshal([]byte(body), &msg); err != nil {
		t.Fatal(err)
	}
	resp, err := anthropic.Response(&msg)
	if err != nil {
		t.Fatal(err)
	}
	want := &driver.Response{ID: "msg_1", Model: "claude-test", Text: "Checking.", StopReason: driver.StopToolCalls, ProviderStopReason: "tool_use",
		ToolCalls: []driver.ToolCall{
			{ID: "toolu_a", Name: "weather", Arguments: json.RawMessage(`{"city":"Oslo"}`)},
			{ID: "toolu_b", Name: "screenshot", Arguments: json.RawMessage(`{}`),
				Metadata: map[string]string{driver.MetaCallerType: "code_execution_20250825", driver.MetaCallerID: "srvtoolu_9"}},
		},
		ServerToolCalls: []driver.ToolCall{{ID: "srvtoolu_1", Name: "web_search", Arguments: json.RawMessage(`{"query":"oslo"}`)}},
		Usage:           driver.Usage{InputTokens: 20, OutputTokens: 7, CacheReadTokens: 3, TotalTokens: 27},
	}
	if d := cmp.Diff(want, resp); d != "" {
		t.Fatalf("(-want +got):\n%s", d)
	}
	results := []driver.ToolResult{
		driver.ResultFor(resp.ToolCalls[0], tool.Text("4°C"), nil),
		driver.ResultFor(resp.ToolCalls[1], tool.Result{Parts: []tool.Part{streamtest.PNG}}, nil),
	}
	_, msgs, err := anthropic.Messages([]driver.Message{resp.Message(), driver.ToolMessage(results...)})
	if err != nil {
		t.Fatal(err)
	}
	got := string(marshal(t, msgs))
	wantWire := `[{"content":[{"text":"Checking.","type":"text"},{"id":"toolu_a","input":{"city":"Oslo"},"name":"weather","type":"tool_use"},` +
		`{"id":"toolu_b","input":{},"name":"screenshot","caller":{"tool_id":"srvtoolu_9","type":"code_execution_20250825"},"type":"tool_use"}],"role":"assistant"},` +
		`{"content":[{"tool_use_id":"toolu_a","content":[{"text":"4°C","type":"text"}],"type":"tool_result"},` +
		`{"tool_use_id":"toolu_b","content":[{"source":{"data":"iVBORw0KGgo=","media_type":"image/png","type":"base64"},"type":"image"}],"type":"tool_result"}],"role":"user"}]`
	if got != wantWire {
		t.Errorf("next request's messages:\n got %s\nwant %s", got, wantWire)
	}
}
