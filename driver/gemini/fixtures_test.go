package gemini_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/quiverkit/quiver/driver"
	"github.com/quiverkit/quiver/driver/gemini"
	"github.com/quiverkit/quiver/driver/internal/streamtest"
	"google.golang.org/genai"
)

func testClient(t *testing.T, url string) *genai.Client {
	t.Helper()
	c, err := genai.NewClient(context.Background(), &genai.ClientConfig{
		APIKey: "test-key", Backend: genai.BackendGeminiAPI, HTTPOptions: genai.HTTPOptions{BaseURL: url},
	})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

var weatherReq = driver.Request{
	Messages: []driver.Message{driver.UserMessage("What is the weather in San Francisco?")},
	Tools:    []driver.ToolDefinition{{Name: "weather", Description: "Get the weather"}},
}

// Every recorded Gemini and Vertex stream, replayed over HTTP with the
// alt=sse framing to the official genai client, accumulates to what it
// encodes: calls without ids get unique generated ids, thought signatures are
// kept, partialArgs are assembled by JSON path.
func TestStreamFixtures(t *testing.T) {
	for _, f := range streamtest.Load(t, "gemini") {
		t.Run(f.Name, func(t *testing.T) {
			srv := streamtest.NewServer(t, streamtest.Reply{Body: streamtest.GeminiSSE(f.Payloads)})
			s, err := gemini.New(testClient(t, srv.URL), "gemini-test").Stream(context.Background(), weatherReq)
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
			checkSignatures(t, f, resp)
			req := srv.Requests()[0]
			if !strings.HasSuffix(req.Path, ":streamGenerateContent") || req.Query != "alt=sse" {
				t.Errorf("request %s?%s", req.Path, req.Query)
			}
		})
	}
}

// checkSignatures checks that every call whose opening part carried a thought
// signature has it in its metadata.
func checkSignatures(t *testing.T, f streamtest.Fixture, resp *driver.Response) {
	t.Helper()
	want := signatures(t, f)
	var got []string
	for _, c := range resp.ToolCalls {
		if s := c.Metadata[driver.MetaThoughtSignature]; s != "" {
			got = append(got, s)
		}
	}
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("thought signatures %v, want %v", got, want)
	}
}

// signatures lists the thoughtSignature of every part that names a function.
func signatures(t *testing.T, f streamtest.Fixture) []string {
	var out []string
	for _, p := range f.Payloads {
		var chunk struct {
			Candidates []struct {
				Content struct {
					Parts []struct {
						FunctionCall *struct {
							Name string `json:"name"`
						} `json:"functionCall"`
						ThoughtSignature string `json:"thoughtSignature"`
					} `json:"parts"`
				} `json:"content"`
			} `json:"candidates"`
		}
		if err := json.Unmarshal(p, &chunk); err != nil {
			t.Fatal(err)
		}
		for _, c := range chunk.Candidates {
			for _, part := range c.Content.Parts {
				if part.FunctionCall != nil && part.FunctionCall.Name != "" && part.ThoughtSignature != "" {
					sig := part.ThoughtSignature
					if sig == "<redacted>" {
						sig = streamtest.RedactedSignature
					}
					out = append(out, sig)
				}
			}
		}
	}
	return out
}

// The whole response each stream stands for (its calls with their arguments
// and signatures, its text, usage and finish reason) gives the same calls
// through Generate.
func TestGenerateFixtures(t *testing.T) {
	for _, f := range streamtest.Load(t, "gemini") {
		t.Run(f.Name, func(t *testing.T) {
			srv := streamtest.NewServer(t, streamtest.Reply{Body: wholeResponse(t, f), ContentType: "application/json"})
			resp, err := gemini.New(testClient(t, srv.URL), "gemini-test").Generate(context.Background(), weatherReq)
			if err != nil {
				t.Fatal(err)
			}
			streamtest.Check(t, f, resp)
			checkSignatures(t, f, resp)
		})
	}
}

func wholeResponse(t *testing.T, f streamtest.Fixture) []byte {
	t.Helper()
	sigs := signatures(t, f)
	var parts []map[string]any
	if f.Expected.Text != "" {
		parts = append(parts, map[string]any{"text": f.Expected.Text})
	}
	for i, c := range f.Expected.ToolCalls {
		fc := map[string]any{"name": c.Name, "args": c.Arguments}
		if c.ID != nil {
			fc["id"] = *c.ID
		}
		part := map[string]any{"functionCall": fc}
		if i < len(sigs) {
			part["thoughtSignature"] = sigs[i]
		}
		parts = append(parts, part)
	}
	var last map[string]any
	if err := json.Unmarshal(f.Payloads[len(f.Payloads)-1], &last); err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(map[string]any{
		"candidates":    []any{map[string]any{"content": map[string]any{"role": "model", "parts": parts}, "finishReason": "STOP", "index": 0}},
		"usageMetadata": last["usageMetadata"],
		"modelVersion":  last["modelVersion"],
		"responseId":    last["responseId"],
	})
	if err != nil {
		t.Fatal(err)
	}
	return b
}
