package openai_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	oai "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/packages/param"
	"github.com/openai/openai-go/v3/responses"
	"github.com/quiverkit/quiver/driver"
	"github.com/quiverkit/quiver/driver/internal/streamtest"
	"github.com/quiverkit/quiver/driver/openai"
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

func everyShapeRequest() driver.Request {
	parallel := false
	return driver.Request{
		Messages:          streamtest.Conversation(),
		Tools:             streamtest.Catalogue(3),
		ToolChoice:        driver.Choose("weather"),
		ParallelToolCalls: &parallel,
		MaxTokens:         512,
	}
}

// The whole request for a conversation of every message shape, as it goes on
// the wire, matches the golden file: system, user (text, image), assistant
// (text and calls, calls only, text only), tool results (text, JSON, image
// moved to a user message, error), strict and non-strict tools, a named tool
// choice, parallel_tool_calls.
func TestChatParamsEveryShape(t *testing.T) {
	p, err := openai.ChatParams("gpt-test", everyShapeRequest())
	if err != nil {
		t.Fatal(err)
	}
	streamtest.Golden(t, "chat_every_shape", marshal(t, p))
}

func TestResponsesParamsEveryShape(t *testing.T) {
	p, err := openai.ResponsesParams("gpt-test", everyShapeRequest())
	if err != nil {
		t.Fatal(err)
	}
	streamtest.Golden(t, "responses_every_shape", marshal(t, p))
}

func TestToolChoice(t *testing.T) {
	tests := []struct {
		name            string
		choice          driver.ToolChoice
		chat, responses string
	}{
		{"zero leaves the default", driver.ToolChoice{}, `null`, `null`},
		{"auto", driver.ToolChoice{Mode: driver.ToolChoiceAuto}, `"auto"`, `"auto"`},
		{"none", driver.ToolChoice{Mode: driver.ToolChoiceNone}, `"none"`, `"none"`},
		{"required", driver.ToolChoice{Mode: driver.ToolChoiceRequired}, `"required"`, `"required"`},
		{"a named tool", driver.Choose("weather"), `{"function":{"name":"weather"},"type":"function"}`, `{"name":"weather","type":"function"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := string(marshal(t, openai.ChatToolChoice(tt.choice))); got != tt.chat {
				t.Errorf("chat: %s, want %s", got, tt.chat)
			}
			if got := string(marshal(t, openai.ResponsesToolChoice(tt.choice))); got != tt.responses {
				t.Errorf("responses: %s, want %s", got, tt.responses)
			}
		})
	}
}

// A strict tool goes out in the strict dialect; one whose schema strict mode
// cannot express (an open map) goes out as it is, strict off; one without
// parameters is trivially strict.
func TestStrictTools(t *testing.T) {
	tools, err := openai.ChatTools(streamtest.Catalogue(3))
	if err != nil {
		t.Fatal(err)
	}
	type fn struct {
		Strict     *bool `json:"strict"`
		Parameters struct {
			Required             []string `json:"required"`
			AdditionalProperties any      `json:"additionalProperties"`
			Properties           map[string]struct {
				Type any `json:"type"`
			} `json:"properties"`
		} `json:"parameters"`
	}
	var got []struct {
		Function fn `json:"function"`
	}
	if err := json.Unmarshal(marshal(t, tools), &got); err != nil {
		t.Fatal(err)
	}
	weather, labels, shot := got[0].Function, got[1].Function, got[2].Function
	if weather.Strict == nil || !*weather.Strict || len(weather.Parameters.Required) != 3 || weather.Parameters.AdditionalProperties != false {
		t.Errorf("weather is not in the strict dialect: %+v", weather)
	}
	if d := cmp.Diff([]any{"string", "null"}, weather.Parameters.Properties["unit"].Type); d != "" {
		t.Errorf("optional unit is not nullable:\n%s", d)
	}
	if labels.Strict != nil {
		t.Errorf("labels (an open map) was sent strict: %+v", labels)
	}
	if shot.Strict != nil {
		t.Errorf("screenshot did not ask for strict: %+v", shot)
	}
}

// A model's calls come back through the driver types into the next request
// unchanged: ids, names, arguments (Chat Completions).
func TestChatRoundTrip(t *testing.T) {
	var c oai.ChatCompletion
	body := `{"id":"chatcmpl-1","object":"chat.completion","created":0,"model":"gpt-test","choices":[{"index":0,"finish_reason":"tool_calls",
		"message":{"role":"assistant","content":"Checking.","tool_calls":[
		{"id":"call_a","type":"function","function":{"name":"weather","arguments":"{\"city\":\"Oslo\"}"}},
		{"id":"call_b","type":"function","function":{"name":"labels","arguments":""}}]}}],
		"usage":{"prompt_tokens":10,"completion_tokens":5,"total_tokens":15,"prompt_tokens_details":{"cached_tokens":4}}}`
	if err := json.Unmarshal([]byte(body), &c); err != nil {
		t.Fatal(err)
	}
	resp, err := openai.ChatResponse(&c)
	if err != nil {
		t.Fatal(err)
	}
	want := &driver.Response{ID: "chatcmpl-1", Model: "gpt-test", Text: "Checking.", StopReason: driver.StopToolCalls, ProviderStopReason: "tool_calls",
		ToolCalls: []driver.ToolCall{
			{ID: "call_a", Name: "weather", Arguments: json.RawMessage(`{"city":"Oslo"}`)},
			{ID: "call_b", Name: "labels", Arguments: json.RawMessage(`{}`)},
		},
		Usage: driver.Usage{InputTokens: 10, OutputTokens: 5, CacheReadTokens: 4, TotalTokens: 15},
	}
	if d := cmp.Diff(want, resp); d != "" {
		t.Fatalf("response (-want +got):\n%s", d)
	}
	msgs, err := openai.ChatMessages([]driver.Message{resp.Message(), driver.ToolMessage(driver.TextResult("call_a", "weather", "4°C"))})
	if err != nil {
		t.Fatal(err)
	}
	got := string(marshal(t, msgs))
	wantWire := `[{"content":"Checking.","tool_calls":[{"id":"call_a","function":{"arguments":"{\"city\":\"Oslo\"}","name":"weather"},"type":"function"},` +
		`{"id":"call_b","function":{"arguments":"{}","name":"labels"},"type":"function"}],"role":"assistant"},` +
		`{"content":"4°C","tool_call_id":"call_a","role":"tool"}]`
	if got != wantWire {
		t.Errorf("next request's messages:\n got %s\nwant %s", got, wantWire)
	}
}

// The same for the Responses API: the call_id is the id, the item id is
// kept aside, and results go back as function_call_output for the call_id;
// the reasoning item goes back byte for byte before the call, which keeps
// its fc_ id.
func TestResponsesRoundTrip(t *testing.T) {
	var r responses.Response
	body := `{"id":"resp_1","object":"response","status":"completed","model":"gpt-test","output":[
		{"type":"reasoning","id":"rs_1","summary":[]},
		{"type":"message","id":"msg_1","role":"assistant","status":"completed","content":[{"type":"output_text","text":"Checking.","annotations":[]}]},
		{"type":"function_call","id":"fc_1","call_id":"call_a","name":"weather","arguments":"{\"city\":\"Oslo\"}","status":"completed"}],
		"usage":{"input_tokens":10,"output_tokens":5,"total_tokens":15,"input_tokens_details":{"cached_tokens":0},"output_tokens_details":{"reasoning_tokens":2}}}`
	if err := json.Unmarshal([]byte(body), &r); err != nil {
		t.Fatal(err)
	}
	resp, err := openai.ResponsesResponse(&r)
	if err != nil {
		t.Fatal(err)
	}
	wantCalls := []driver.ToolCall{{ID: "call_a", Name: "weather", Arguments: json.RawMessage(`{"city":"Oslo"}`), Metadata: map[string]string{driver.MetaItemID: "fc_1"}}}
	if d := cmp.Diff(wantCalls, resp.ToolCalls); d != "" || resp.Text != "Checking." || resp.Usage.ReasoningTokens != 2 {
		t.Fatalf("response %+v\ncalls (-want +got):\n%s", resp, d)
	}
	input, err := openai.ResponsesInput([]driver.Message{resp.Message(), driver.ToolMessage(driver.ResultFor(resp.ToolCalls[0], driverText("4°C"), nil))})
	if err != nil {
		t.Fatal(err)
	}
	got := string(marshal(t, input))
	want := `[{"type":"reasoning","id":"rs_1","summary":[]},{"content":"Checking.","role":"assistant"},{"arguments":"{\"city\":\"Oslo\"}","call_id":"call_a","name":"weather","id":"fc_1","type":"function_call"},` +
		`{"output":"4°C","call_id":"call_a","type":"function_call_output"}]`
	if got != want {
		t.Errorf("next request's input:\n got %s\nwant %s", got, want)
	}
}

// Generate sends what ChatParams builds: the converters and the model agree.
func TestChatGenerateSendsTheParams(t *testing.T) {
	srv := streamtest.NewServer(t, streamtest.Reply{ContentType: "application/json",
		Body: []byte(`{"id":"c","object":"chat.completion","model":"m","choices":[{"index":0,"finish_reason":"stop","message":{"role":"assistant","content":"ok"}}]}`)})
	req := everyShapeRequest()
	if _, err := openai.NewChat(testClient(srv.URL), "gpt-test").Generate(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	p, _ := openai.ChatParams("gpt-test", req)
	var sent, built any
	json.Unmarshal(srv.Requests()[0].Body, &sent)
	json.Unmarshal(marshal(t, p), &built)
	if d := cmp.Diff(built, sent); d != "" {
		t.Errorf("sent body differs from ChatParams (-built +sent):\n%s", d)
	}
}

func driverText(s string) tool.Result { return tool.Text(s) }

// What the driver leaves alone, the caller sets through the SDK's own params.
func TestWithParams(t *testing.T) {
	srv := streamtest.NewServer(t, streamtest.Reply{ContentType: "application/json",
		Body: []byte(`{"id":"r","object":"response","status":"completed","model":"m","output":[]}`)})
	m := openai.NewResponses(testClient(srv.URL), "m", openai.WithResponsesParams(func(p *responses.ResponseNewParams) {
		p.Store = param.NewOpt(false)
	}))
	if _, err := m.Generate(context.Background(), weatherReq); err != nil {
		t.Fatal(err)
	}
	if body := string(srv.Requests()[0].Body); !strings.Contains(body, `"store":false`) {
		t.Errorf("store not sent: %s", body)
	}
}
