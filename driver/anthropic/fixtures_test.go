package anthropic_test

import (
	"bytes"
	"context"
	"encoding/json"
	"sort"
	"strings"
	"testing"

	sdk "github.com/anthropics/anthropic-sdk-go"
	"github.com/anthropics/anthropic-sdk-go/option"
	"github.com/quiverkit/quiver/driver"
	"github.com/quiverkit/quiver/driver/anthropic"
	"github.com/quiverkit/quiver/driver/internal/streamtest"
)

func testClient(url string, opts ...option.RequestOption) sdk.Client {
	return sdk.NewClient(append([]option.RequestOption{option.WithBaseURL(url), option.WithAPIKey("test-key"), option.WithMaxRetries(0)}, opts...)...)
}

var weatherReq = driver.Request{
	Messages: []driver.Message{driver.UserMessage("What is the weather in San Francisco?")},
	Tools:    []driver.ToolDefinition{{Name: "get_weather", Description: "Get the weather"}},
}

// body returns the bytes Anthropic's server sends for f: a recorded .sse
// stream unchanged, one-payload-a-line recordings framed with event: lines.
func body(f streamtest.Fixture, eol string) []byte {
	if f.SSE {
		return bytes.ReplaceAll(bytes.ReplaceAll(f.Raw, []byte("\r\n"), []byte("\n")), []byte("\n"), []byte(eol))
	}
	return streamtest.TypedSSE(f.Payloads, eol)
}

// Every recorded Messages stream, replayed over HTTP to the official SDK
// client (LF and CRLF line ends), accumulates to what it encodes; server tool
// calls are kept apart.
func TestStreamFixtures(t *testing.T) {
	for _, f := range streamtest.Load(t, "anthropic") {
		for _, eol := range []string{"\n", "\r\n"} {
			t.Run(f.Name+map[string]string{"\n": "/lf", "\r\n": "/crlf"}[eol], func(t *testing.T) {
				srv := streamtest.NewServer(t, streamtest.Reply{Body: body(f, eol)})
				s, err := anthropic.New(testClient(srv.URL), "claude-test").Stream(context.Background(), weatherReq)
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
				if resp.ID == "" || resp.StopReason == "" || resp.Usage.OutputTokens == 0 {
					t.Errorf("id %q, stop %q, usage %+v", resp.ID, resp.StopReason, resp.Usage)
				}
				if req := srv.Requests()[0]; req.Path != "/v1/messages" || !strings.Contains(string(req.Body), `"stream":true`) {
					t.Errorf("request %s %s", req.Path, req.Body)
				}
			})
		}
	}
}

// The message each stream stands for, sent whole, gives the same calls
// through Generate.
func TestGenerateFixtures(t *testing.T) {
	for _, f := range streamtest.Load(t, "anthropic") {
		t.Run(f.Name, func(t *testing.T) {
			srv := streamtest.NewServer(t, streamtest.Reply{Body: messageFromStream(t, f.Payloads), ContentType: "application/json"})
			resp, err := anthropic.New(testClient(srv.URL), "claude-test").Generate(context.Background(), weatherReq)
			if err != nil {
				t.Fatal(err)
			}
			streamtest.Check(t, f, resp)
		})
	}
}

// messageFromStream rebuilds the message object a stream describes: the
// message_start message, its content blocks with their deltas applied, and
// the stop reason and usage of message_delta.
func messageFromStream(t *testing.T, payloads [][]byte) []byte {
	t.Helper()
	var msg map[string]any
	blocks := map[int]map[string]any{}
	partial := map[int]string{}
	for _, p := range payloads {
		var ev struct {
			Type         string          `json:"type"`
			Index        int             `json:"index"`
			Message      map[string]any  `json:"message"`
			ContentBlock map[string]any  `json:"content_block"`
			Delta        map[string]any  `json:"delta"`
			Usage        json.RawMessage `json:"usage"`
		}
		if err := json.Unmarshal(p, &ev); err != nil {
			t.Fatal(err)
		}
		switch ev.Type {
		case "message_start":
			msg = ev.Message
		case "content_block_start":
			blocks[ev.Index] = ev.ContentBlock
		case "content_block_delta":
			switch ev.Delta["type"] {
			case "text_delta":
				blocks[ev.Index]["text"] = blocks[ev.Index]["text"].(string) + ev.Delta["text"].(string)
			case "input_json_delta":
				partial[ev.Index] += ev.Delta["partial_json"].(string)
			}
		case "message_delta":
			msg["stop_reason"] = ev.Delta["stop_reason"]
			msg["usage"] = ev.Usage
		}
	}
	var idx []int
	for i := range blocks {
		idx = append(idx, i)
		if s := strings.TrimSpace(partial[i]); s != "" {
			blocks[i]["input"] = json.RawMessage(s)
		}
	}
	sort.Ints(idx)
	var content []any
	for _, i := range idx {
		content = append(content, blocks[i])
	}
	msg["content"] = content
	b, err := json.Marshal(msg)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
