package gemini_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/quiverkit/quiver/driver"
	"github.com/quiverkit/quiver/driver/gemini"
	"github.com/quiverkit/quiver/driver/internal/streamtest"
	"github.com/quiverkit/quiver/tool"
	"google.golang.org/genai"
)

const okBody = `{"candidates":[{"content":{"role":"model","parts":[{"text":"ok"}]},"finishReason":"STOP"}]}`

// sent returns the request body the SDK sent for req.
func sent(t *testing.T, req driver.Request, opts ...gemini.Option) []byte {
	t.Helper()
	srv := streamtest.NewServer(t, streamtest.Reply{ContentType: "application/json", Body: []byte(okBody)})
	if _, err := gemini.New(testClient(t, srv.URL), "gemini-test", opts...).Generate(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	return srv.Requests()[0].Body
}

// The request for a conversation of every message shape, as the SDK puts it
// on the wire, matches the golden file: the system instruction, user text and
// inline image, model turns with function calls (thought signature restored,
// a generated id left out), the results of one turn merged into one user turn
// of functionResponse parts (text wrapped as output, a JSON object as is, an
// image in the response's parts, an error as error), the tool config.
func TestRequestEveryShape(t *testing.T) {
	body := sent(t, driver.Request{Messages: streamtest.Conversation(), Tools: streamtest.Catalogue(3), ToolChoice: driver.Choose("weather"), MaxTokens: 256})
	streamtest.Golden(t, "request_every_shape", body)
}

// parametersJsonSchema is sent on request, as the canonical schema.
func TestRequestWithJSONSchema(t *testing.T) {
	body := sent(t, driver.Request{Messages: []driver.Message{driver.UserMessage("hi")}, Tools: streamtest.Catalogue(1)}, gemini.WithJSONSchema())
	var req struct {
		Tools []struct {
			FunctionDeclarations []struct {
				Parameters           any             `json:"parameters"`
				ParametersJSONSchema json.RawMessage `json:"parametersJsonSchema"`
			} `json:"functionDeclarations"`
		} `json:"tools"`
	}
	json.Unmarshal(body, &req)
	fd := req.Tools[0].FunctionDeclarations[0]
	var got, want any
	json.Unmarshal(fd.ParametersJSONSchema, &got)
	json.Unmarshal(mustJSON(t, streamtest.Catalogue(1)[0].Parameters), &want)
	if fd.Parameters != nil || !cmp.Equal(want, got) {
		t.Errorf("parameters %v, parametersJsonSchema (-want +got):\n%s", fd.Parameters, cmp.Diff(want, got))
	}
}

func TestToolResults(t *testing.T) {
	tests := []struct {
		name   string
		result driver.ToolResult
		want   string
	}{
		{"text is wrapped as output", driver.TextResult("c1", "read", "line 1"), `{"id":"c1","name":"read","response":{"output":"line 1"}}`},
		{"a JSON object is the response", driver.ResultFor(driver.ToolCall{ID: "c2", Name: "w"}, tool.JSON(map[string]int{"temp": 4}), nil),
			`{"id":"c2","name":"w","response":{"temp":4}}`},
		{"a JSON array is wrapped as output", driver.ResultFor(driver.ToolCall{ID: "c3", Name: "ls"}, tool.JSON([]string{"a", "b"}), nil),
			`{"id":"c3","name":"ls","response":{"output":["a","b"]}}`},
		{"a JSON string is wrapped as output", driver.ResultFor(driver.ToolCall{ID: "c4", Name: "s"}, tool.JSON("x"), nil),
			`{"id":"c4","name":"s","response":{"output":"x"}}`},
		{"an error is error", driver.ErrorResult(driver.ToolCall{ID: "c5", Name: "w"}, "budget spent"),
			`{"id":"c5","name":"w","response":{"error":"budget spent"}}`},
		{"an image goes in the response's parts", driver.ResultFor(driver.ToolCall{ID: "c6", Name: "shot"}, tool.Result{Parts: []tool.Part{streamtest.PNG}}, nil),
			`{"id":"c6","name":"shot","response":{"output":""},"parts":[{"inlineData":{"data":"iVBORw0KGgo=","mimeType":"image/png"}}]}`},
		{"a generated id is not sent", driver.ResultFor(driver.ToolCall{ID: "call_x_0", Name: "w", Metadata: map[string]string{driver.MetaIDGenerated: "true"}}, tool.Text("ok"), nil),
			`{"name":"w","response":{"output":"ok"}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := gemini.ToolResults([]driver.ToolResult{tt.result})
			if err != nil {
				t.Fatal(err)
			}
			if c.Role != genai.RoleUser || len(c.Parts) != 1 {
				t.Fatalf("content %+v", c)
			}
			var a, b any
			json.Unmarshal([]byte(tt.want), &a)
			json.Unmarshal(mustJSON(t, c.Parts[0].FunctionResponse), &b)
			if d := cmp.Diff(a, b); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
		})
	}
}

// A response's calls come back through the driver types into the next
// request: the thought part goes back first, as it came; the thought
// signature is restored on its part, an id Gemini sent
// is kept, one the driver generated is left out, and both results go in one
// turn.
func TestRoundTrip(t *testing.T) {
	sig := []byte("opaque-signature")
	resp, err := gemini.Response(&genai.GenerateContentResponse{
		ResponseID: "r1", ModelVersion: "gemini-test",
		Candidates: []*genai.Candidate{{FinishReason: genai.FinishReasonStop, Content: &genai.Content{Role: genai.RoleModel, Parts: []*genai.Part{
			{Text: "thinking...", Thought: true},
			{Text: "Checking."},
			{FunctionCall: &genai.FunctionCall{Name: "weather", Args: map[string]any{"city": "Oslo"}}, ThoughtSignature: sig},
			{FunctionCall: &genai.FunctionCall{ID: "fc_7", Name: "weather", Args: map[string]any{"city": "Paris"}}},
		}}}},
		UsageMetadata: &genai.GenerateContentResponseUsageMetadata{PromptTokenCount: 10, CandidatesTokenCount: 4, ThoughtsTokenCount: 6, TotalTokenCount: 20},
	})
	if err != nil {
		t.Fatal(err)
	}
	if resp.Text != "Checking." || resp.StopReason != driver.StopToolCalls || resp.Usage != (driver.Usage{InputTokens: 10, OutputTokens: 10, ReasoningTokens: 6, TotalTokens: 20}) {
		t.Errorf("response %+v", resp)
	}
	first := resp.ToolCalls[0]
	if first.Metadata[driver.MetaIDGenerated] != "true" || first.Metadata[driver.MetaThoughtSignature] != base64.StdEncoding.EncodeToString(sig) || resp.ToolCalls[1].ID != "fc_7" {
		t.Fatalf("calls %+v", resp.ToolCalls)
	}
	results := []driver.ToolResult{
		driver.ResultFor(resp.ToolCalls[0], tool.Text("4°C"), nil),
		driver.ResultFor(resp.ToolCalls[1], tool.Text("18°C"), nil),
	}
	_, contents, err := gemini.Contents([]driver.Message{resp.Message(), driver.ToolMessage(results[0]), driver.ToolMessage(results[1])})
	if err != nil {
		t.Fatal(err)
	}
	got := string(mustJSON(t, contents))
	want := `[{"parts":[{"text":"thinking...","thought":true},{"text":"Checking."},{"functionCall":{"args":{"city":"Oslo"},"name":"weather"},"thoughtSignature":"` + base64.StdEncoding.EncodeToString(sig) + `"},` +
		`{"functionCall":{"id":"fc_7","args":{"city":"Paris"},"name":"weather"}}],"role":"model"},` +
		`{"parts":[{"functionResponse":{"name":"weather","response":{"output":"4°C"}}},{"functionResponse":{"id":"fc_7","name":"weather","response":{"output":"18°C"}}}],"role":"user"}]`
	if got != want {
		t.Errorf("next request's contents:\n got %s\nwant %s", got, want)
	}
}
