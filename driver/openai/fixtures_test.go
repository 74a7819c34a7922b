package openai_test

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	oai "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/quiverkit/quiver/driver"
	"github.com/quiverkit/quiver/driver/internal/streamtest"
	"github.com/quiverkit/quiver/driver/openai"
)

func testClient(url string, opts ...option.RequestOption) oai.Client {
	return oai.NewClient(append([]option.RequestOption{option.WithBaseURL(url), option.WithAPIKey("test-key"), option.WithMaxRetries(0)}, opts...)...)
}

var weatherReq = driver.Request{
	Messages: []driver.Message{driver.UserMessage("What is the weather in San Francisco?")},
	Tools:    []driver.ToolDefinition{{Name: "weather", Description: "Get the weather"}},
}

// Every recorded Chat Completions stream, replayed over HTTP to the official
// SDK client with LF and with CRLF line ends, accumulates to what it encodes.
func TestChatStreamFixtures(t *testing.T) {
	for _, f := range streamtest.Load(t, "openai-chat") {
		for _, eol := range []string{"\n", "\r\n"} {
			name := f.Name + map[string]string{"\n": "/lf", "\r\n": "/crlf"}[eol]
			t.Run(name, func(t *testing.T) {
				srv := streamtest.NewServer(t, streamtest.Reply{Body: streamtest.ChatSSE(f.Payloads, eol)})
				s, err := openai.NewChat(testClient(srv.URL), "m").Stream(context.Background(), weatherReq)
				if err != nil {
					t.Fatal(err)
				}
				resp, evs, err := streamtest.Drain(s)
				if err != nil {
					t.Fatalf("stream: %v", err)
				}
				streamtest.Check(t, f, resp)
				streamtest.CheckReasoning(t, f, resp)
				streamtest.CheckEvents(t, evs, resp)
				if resp.StopReason == "" || resp.ID == "" && !strings.Contains(f.Name, "sanitized") {
					t.Errorf("stop reason %q, id %q", resp.StopReason, resp.ID)
				}
				req := srv.Requests()[0]
				if req.Path != "/chat/completions" || !strings.Contains(string(req.Body), `"stream":true`) {
					t.Errorf("request %s %s", req.Path, req.Body)
				}
			})
		}
	}
}

// The non-streaming reply each stream stands for (its final state) goes
// through Generate to the same calls.
func TestChatGenerateFixtures(t *testing.T) {
	for _, f := range streamtest.Load(t, "openai-chat") {
		t.Run(f.Name, func(t *testing.T) {
			srv := streamtest.NewServer(t, streamtest.Reply{Body: chatCompletionFromFixture(t, f), ContentType: "application/json"})
			resp, err := openai.NewChat(testClient(srv.URL), "m").Generate(context.Background(), weatherReq)
			if err != nil {
				t.Fatal(err)
			}
			streamtest.Check(t, f, resp)
		})
	}
}

// chatCompletionFromFixture builds the chat.completion object whose stream the
// fixture recorded: its id, model, finish reason and usage from the chunks, its
// message from the expected calls and text.
func chatCompletionFromFixture(t *testing.T, f streamtest.Fixture) []byte {
	t.Helper()
	var id, model, finish string
	var usage json.RawMessage
	for _, p := range f.Payloads {
		var c struct {
			ID      string          `json:"id"`
			Model   string          `json:"model"`
			Usage   json.RawMessage `json:"usage"`
			Choices []struct {
				FinishReason *string `json:"finish_reason"`
			} `json:"choices"`
		}
		if err := json.Unmarshal(p, &c); err != nil {
			t.Fatal(err)
		}
		id, model = c.ID, c.Model
		if len(c.Usage) > 0 && string(c.Usage) != "null" {
			usage = c.Usage
		}
		for _, ch := range c.Choices {
			if ch.FinishReason != nil {
				finish = *ch.FinishReason
			}
		}
	}
	type fn struct {
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	}
	type call struct {
		ID       string `json:"id"`
		Type     string `json:"type"`
		Function fn     `json:"function"`
	}
	var calls []call
	for _, c := range f.Expected.ToolCalls {
		calls = append(calls, call{ID: *c.ID, Type: "function", Function: fn{Name: c.Name, Arguments: string(c.Arguments)}})
	}
	msg := map[string]any{"role": "assistant", "content": nil, "tool_calls": calls}
	if f.Expected.Text != "" {
		msg["content"] = f.Expected.Text
	}
	b, err := json.Marshal(map[string]any{
		"id": id, "object": "chat.completion", "created": 0, "model": model, "usage": usage,
		"choices": []any{map[string]any{"index": 0, "finish_reason": finish, "message": msg, "logprobs": nil}},
	})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// Every recorded Responses API stream, framed with event: lines as OpenAI
// sends it, accumulates to what it encodes; the call's id is its call_id.
func TestResponsesStreamFixtures(t *testing.T) {
	for _, f := range streamtest.Load(t, "openai-responses") {
		t.Run(f.Name, func(t *testing.T) {
			srv := streamtest.NewServer(t, streamtest.Reply{Body: streamtest.TypedSSE(f.Payloads, "\n")})
			s, err := openai.NewResponses(testClient(srv.URL), "m").Stream(context.Background(), weatherReq)
			if err != nil {
				t.Fatal(err)
			}
			resp, evs, err := streamtest.Drain(s)
			if err != nil {
				t.Fatalf("stream: %v", err)
			}
			streamtest.Check(t, f, resp)
			streamtest.CheckReasoning(t, f, resp)
			streamtest.CheckEvents(t, evs, resp)
			for _, c := range resp.ToolCalls {
				if !strings.HasPrefix(c.Metadata[driver.MetaItemID], "fc_") {
					t.Errorf("call %s: item id %q not kept", c.ID, c.Metadata[driver.MetaItemID])
				}
			}
			if resp.Usage.TotalTokens == 0 || resp.StopReason != driver.StopToolCalls {
				t.Errorf("usage %+v, stop %q", resp.Usage, resp.StopReason)
			}
		})
	}
}

// The response.completed object of each stream is the non-streaming reply.
func TestResponsesGenerateFixtures(t *testing.T) {
	for _, f := range streamtest.Load(t, "openai-responses") {
		t.Run(f.Name, func(t *testing.T) {
			var final json.RawMessage
			for _, p := range f.Payloads {
				var ev struct {
					Type     string          `json:"type"`
					Response json.RawMessage `json:"response"`
				}
				if err := json.Unmarshal(p, &ev); err != nil {
					t.Fatal(err)
				}
				if ev.Type == "response.completed" {
					final = ev.Response
				}
			}
			if final == nil {
				t.Fatal("fixture has no response.completed")
			}
			srv := streamtest.NewServer(t, streamtest.Reply{Body: final, ContentType: "application/json"})
			resp, err := openai.NewResponses(testClient(srv.URL), "m").Generate(context.Background(), weatherReq)
			if err != nil {
				t.Fatal(err)
			}
			streamtest.Check(t, f, resp)
			// The reasoning items are response.completed's, kept whole: their
			// encrypted content is the one that object carries (the recording
			// shows it differs from output_item.done's).
			var want struct{ Output []json.RawMessage }
			if err := json.Unmarshal(final, &want); err != nil {
				t.Fatal(err)
			}
			var items []string
			for _, it := range want.Output {
				if bytes.Contains(it, []byte(`"type":"reasoning"`)) {
					items = append(items, string(it))
				}
			}
			var got []string
			for _, r := range resp.Reasoning {
				got = append(got, string(r.Raw))
			}
			if d := cmp.Diff(items, got); d != "" {
				t.Errorf("reasoning items (-want +got):\n%s", d)
			}
		})
	}
}
