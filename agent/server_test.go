package agent_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	oai "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/quiverkit/quiver/driver/openai"
)

// chatServer is an OpenAI-compatible server on loopback that answers the
// n-th Chat Completions request with the n-th scripted body, verbatim, and
// keeps every request for the test to inspect.
type chatServer struct {
	*httptest.Server
	mu       sync.Mutex
	replies  []string
	requests []chatRequest
}

// chatRequest is the part of a Chat Completions request the tests look at.
type chatRequest struct {
	Messages []struct {
		Role       string          `json:"role"`
		Content    json.RawMessage `json:"content"`
		ToolCallID string          `json:"tool_call_id"`
	} `json:"messages"`
	Tools []struct {
		Function struct {
			Name string `json:"name"`
		} `json:"function"`
	} `json:"tools"`
	ToolChoice json.RawMessage `json:"tool_choice"`
	Stream     bool            `json:"stream"`
}

// toolContent returns the content of the tool message answering callID.
func (r chatRequest) toolContent(callID string) (string, bool) {
	for _, m := range r.Messages {
		if m.Role == "tool" && m.ToolCallID == callID {
			var s string
			if err := json.Unmarshal(m.Content, &s); err != nil {
				return string(m.Content), true
			}
			return s, true
		}
	}
	return "", false
}

func newChatServer(t testing.TB, replies ...string) *chatServer {
	t.Helper()
	s := &chatServer{replies: replies}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(s.Close)
	return s
}

func (s *chatServer) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	var req chatRequest
	if r.URL.Path != "/chat/completions" || json.Unmarshal(body, &req) != nil {
		http.Error(w, `{"error":{"message":"bad request"}}`, http.StatusBadRequest)
		return
	}
	s.mu.Lock()
	n := len(s.requests)
	s.requests = append(s.requests, req)
	s.mu.Unlock()
	if n >= len(s.replies) {
		http.Error(w, `{"error":{"message":"the script has no more replies"}}`, http.StatusInternalServerError)
		return
	}
	if strings.HasPrefix(s.replies[n], "data:") {
		w.Header().Set("Content-Type", "text/event-stream")
	} else {
		w.Header().Set("Content-Type", "application/json")
	}
	io.WriteString(w, s.replies[n])
}

func (s *chatServer) Requests() []chatRequest {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]chatRequest(nil), s.requests...)
}

// model returns the driver's Chat model pointed at the server, retries off.
func (s *chatServer) model() *openai.Chat {
	client := oai.NewClient(option.WithBaseURL(s.URL), option.WithAPIKey("test-key"), option.WithMaxRetries(0))
	return openai.NewChat(client, "gpt-test")
}

// call is one scripted tool call.
type call struct{ id, name, args string }

// callsReply is a chat.completion asking for calls, costing tokens.
func callsReply(tokens int, calls ...call) string {
	var tc []string
	for _, c := range calls {
		tc = append(tc, fmt.Sprintf(`{"id":%q,"type":"function","function":{"name":%q,"arguments":%q}}`, c.id, c.name, c.args))
	}
	return fmt.Sprintf(`{"id":"chatcmpl-1","object":"chat.completion","created":1700000000,"model":"gpt-test",
"choices":[{"index":0,"finish_reason":"tool_calls","message":{"role":"assistant","content":null,"tool_calls":[%s]}}],
"usage":{"prompt_tokens":%d,"completion_tokens":%d,"total_tokens":%d}}`, strings.Join(tc, ","), tokens-tokens/4, tokens/4, tokens)
}

// textReply is a chat.completion answering with text.
func textReply(tokens int, text string) string {
	return fmt.Sprintf(`{"id":"chatcmpl-2","object":"chat.completion","created":1700000000,"model":"gpt-test",
"choices":[{"index":0,"finish_reason":"stop","message":{"role":"assistant","content":%q}}],
"usage":{"prompt_tokens":%d,"completion_tokens":%d,"total_tokens":%d}}`, text, tokens-tokens/4, tokens/4, tokens)
}

// blockUntilGone is a handler that signals arrived and then holds the
// request until the client goes away.
func blockUntilGone(arrived chan<- struct{}) http.Handler {
	var once sync.Once
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// The server notices a client that went away only once the body is read.
		io.Copy(io.Discard, r.Body)
		once.Do(func() { close(arrived) })
		<-r.Context().Done()
	})
}
