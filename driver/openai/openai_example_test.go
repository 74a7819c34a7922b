package openai_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"

	oai "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/quiverkit/quiver"
	"github.com/quiverkit/quiver/driver"
	"github.com/quiverkit/quiver/driver/openai"
	"github.com/quiverkit/quiver/tool"
)

type cityIn struct {
	City string `json:"city" jsonschema:"the city"`
}

type weatherOut struct {
	City  string `json:"city"`
	TempC int    `json:"temp_c"`
	Sky   string `json:"sky"`
}

// toolkit returns a Quiver toolkit serving one tool of the host's own, and
// what releases it.
func toolkit() (*quiver.Toolkit, func()) {
	weather := tool.Func("weather", "Current weather for a city.",
		func(ctx context.Context, tc tool.Context, in cityIn) (weatherOut, error) {
			return weatherOut{City: in.City, TempC: 4, Sky: "light rain"}, nil
		}, tool.ReadOnly())
	dir, _ := os.MkdirTemp("", "quiver-example")
	tk, err := quiver.New(quiver.WithRoot(dir), quiver.WithTools(weather))
	if err != nil {
		panic(err)
	}
	return tk, func() { tk.Close(); os.RemoveAll(dir) }
}

// fakeOpenAI stands in for the API: it answers every request with body,
// after printing which tools the request offered.
func fakeOpenAI(contentType, body string) *httptest.Server {
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Tools []json.RawMessage `json:"tools"`
		}
		b, _ := io.ReadAll(r.Body)
		json.Unmarshal(b, &req)
		fmt.Printf("%s offered %d tool(s)\n", r.URL.Path, len(req.Tools))
		w.Header().Set("Content-Type", contentType)
		io.WriteString(w, body)
	}))
}

// A program that already calls Chat Completions with the SDK hands the
// model's tool calls to a Quiver toolkit and gets back the SDK's own tool
// messages.
func Example_chatCompletions() {
	ctx := context.Background()
	tk, done := toolkit()
	defer done()
	srv := fakeOpenAI("application/json", `{"id":"chatcmpl-1","object":"chat.completion","model":"gpt-4o","choices":[{"index":0,
		"finish_reason":"tool_calls","message":{"role":"assistant","content":null,"tool_calls":[
		{"id":"call_1","type":"function","function":{"name":"weather","arguments":"{\"city\":\"Oslo\"}"}},
		{"id":"call_2","type":"function","function":{"name":"forecast","arguments":"{\"city\":\"Oslo\"}"}}]}}]}`)
	defer srv.Close()
	client := oai.NewClient(option.WithBaseURL(srv.URL), option.WithAPIKey("sk-example"))

	// Toolkit tools -> the SDK request.
	tools, _ := tk.AllowedTools(ctx)
	params, _ := openai.ChatParams("gpt-4o", driver.Request{
		Messages: []driver.Message{driver.UserMessage("Weather in Oslo?")},
		Tools:    driver.Definitions(tools, true),
	})
	completion, err := client.Chat.Completions.New(ctx, params)
	if err != nil {
		panic(err)
	}

	// The model's tool calls -> InvokeCall -> the SDK's tool messages.
	calls, _ := openai.ChatToolCalls(completion.Choices[0].Message)
	var results []driver.ToolResult
	for _, c := range calls {
		out, err := tk.InvokeCall(ctx, c)
		results = append(results, driver.ResultFor(c, out.Content, err))
	}
	next := append(params.Messages, openai.ChatAssistant(driver.AssistantMessage("", calls...)))
	next = append(next, openai.ChatToolResults(results)...)
	for _, m := range next[2:] {
		b, _ := json.Marshal(m)
		fmt.Println(string(b))
	}
	// Output:
	// /chat/completions offered 1 tool(s)
	// {"content":"{\"city\":\"Oslo\",\"temp_c\":4,\"sky\":\"light rain\"}","tool_call_id":"call_1","role":"tool"}
	// {"content":"Error executing tool forecast: TOOL_NOT_FOUND: no tool named \"forecast\"","tool_call_id":"call_2","role":"tool"}
}

// The same round on the Responses API: the call_id pairs each
// function_call with its function_call_output.
func Example_responses() {
	ctx := context.Background()
	tk, done := toolkit()
	defer done()
	srv := fakeOpenAI("application/json", `{"id":"resp_1","object":"response","status":"completed","model":"gpt-5","output":[
		{"type":"function_call","id":"fc_1","call_id":"call_1","name":"weather","arguments":"{\"city\":\"Oslo\"}","status":"completed"}]}`)
	defer srv.Close()
	model := openai.NewResponses(oai.NewClient(option.WithBaseURL(srv.URL), option.WithAPIKey("sk-example")), "gpt-5")

	tools, _ := tk.AllowedTools(ctx)
	conv := []driver.Message{driver.UserMessage("Weather in Oslo?")}
	resp, err := model.Generate(ctx, driver.Request{Messages: conv, Tools: driver.Definitions(tools, true)})
	if err != nil {
		panic(err)
	}
	var results []driver.ToolResult
	for _, c := range resp.ToolCalls {
		out, err := tk.InvokeCall(ctx, c)
		results = append(results, driver.ResultFor(c, out.Content, err))
	}
	b, _ := json.Marshal(openai.ResponsesToolResults(results))
	fmt.Println(string(b))
	// Output:
	// /responses offered 1 tool(s)
	// [{"output":"{\"city\":\"Oslo\",\"temp_c\":4,\"sky\":\"light rain\"}","call_id":"call_1","type":"function_call_output"}]
}

// Any OpenAI-compatible server is reached through the base URL; for a local
// Ollama that is http://localhost:11434/v1 (here a stand-in server streams the
// reply). The stream yields the call as it arrives.
func ExampleNewChat_ollama() {
	ctx := context.Background()
	srv := fakeOpenAI("text/event-stream", "data: "+`{"id":"1","model":"qwen3","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_a","function":{"name":"weather","arguments":"{\"city\":"}}]}}]}`+"\n\n"+
		"data: "+`{"id":"1","model":"qwen3","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"\"Oslo\"}"}}]},"finish_reason":"tool_calls"}]}`+"\n\n"+
		"data: [DONE]\n\n")
	defer srv.Close()
	baseURL := srv.URL // for Ollama: "http://localhost:11434/v1"

	client := oai.NewClient(option.WithBaseURL(baseURL), option.WithAPIKey("ollama"))
	model := openai.NewChat(client, "qwen3")
	s, err := model.Stream(ctx, driver.Request{
		Messages: []driver.Message{driver.UserMessage("Weather in Oslo?")},
		Tools:    []driver.ToolDefinition{{Name: "weather", Description: "Current weather for a city."}},
	})
	if err != nil {
		panic(err)
	}
	defer s.Close()
	for s.Next() {
		switch ev := s.Event(); ev.Type {
		case driver.EventToolCallStart:
			fmt.Println("start", ev.ToolCall.ID, ev.ToolCall.Name)
		case driver.EventToolCallDelta:
			fmt.Printf("delta %q\n", ev.Delta)
		case driver.EventToolCallDone:
			fmt.Println("done", ev.ToolCall.ID, string(ev.ToolCall.Arguments))
		case driver.EventDone:
			fmt.Println("stop:", ev.Response.StopReason)
		}
	}
	if err := s.Err(); err != nil {
		panic(err)
	}
	// Output:
	// /chat/completions offered 1 tool(s)
	// start call_a weather
	// delta "{\"city\":"
	// delta "\"Oslo\"}"
	// done call_a {"city":"Oslo"}
	// stop: tool_calls
}
