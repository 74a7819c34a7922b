package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

// openAIScript is an OpenAI-compatible server on loopback that answers the
// n-th Chat Completions request with the n-th body and keeps the requests.
func openAIScript(t *testing.T, replies ...string) (*httptest.Server, func() []string) {
	t.Helper()
	var mu sync.Mutex
	var got []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		mu.Lock()
		n := len(got)
		got = append(got, string(body))
		mu.Unlock()
		if r.URL.Path != "/chat/completions" || n >= len(replies) {
			http.Error(w, `{"error":{"message":"unexpected request"}}`, http.StatusBadRequest)
			return
		}
		if strings.Contains(string(body), `"stream":true`) {
			w.Header().Set("Content-Type", "text/event-stream")
			fmt.Fprintf(w, "data: %s\n\ndata: [DONE]\n\n", asChunk(t, replies[n]))
			return
		}
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, replies[n])
	}))
	t.Cleanup(srv.Close)
	return srv, func() []string { mu.Lock(); defer mu.Unlock(); return append([]string(nil), got...) }
}

// asChunk turns a whole Chat Completions reply into the one chunk a server
// streaming it at once would send: the message as the delta, each tool call
// with its index.
func asChunk(t *testing.T, reply string) string {
	var r struct {
		ID      string `json:"id"`
		Model   string `json:"model"`
		Choices []struct {
			FinishReason string         `json:"finish_reason"`
			Message      map[string]any `json:"message"`
		} `json:"choices"`
		Usage json.RawMessage `json:"usage"`
	}
	if err := json.Unmarshal([]byte(reply), &r); err != nil {
		t.Fatal(err)
	}
	ch := r.Choices[0]
	if calls, ok := ch.Message["tool_calls"].([]any); ok {
		for i, c := range calls {
			c.(map[string]any)["index"] = i
		}
	}
	delta, _ := json.Marshal(ch.Message)
	return fmt.Sprintf(`{"id":%q,"object":"chat.completion.chunk","created":1,"model":%q,"choices":[{"index":0,"delta":%s,"finish_reason":%q}],"usage":%s}`,
		r.ID, r.Model, delta, ch.FinishReason, r.Usage)
}

func chatCall(id, name, args string) string {
	return fmt.Sprintf(`{"id":"c","object":"chat.completion","created":1,"model":"m","choices":[{"index":0,"finish_reason":"tool_calls",
"message":{"role":"assistant","content":null,"tool_calls":[{"id":%q,"type":"function","function":{"name":%q,"arguments":%q}}]}}],
"usage":{"prompt_tokens":20,"completion_tokens":5,"total_tokens":25}}`, id, name, args)
}

func chatText(text string) string {
	return fmt.Sprintf(`{"id":"c","object":"chat.completion","created":1,"model":"m","choices":[{"index":0,"finish_reason":"stop",
"message":{"role":"assistant","content":%q}}],"usage":{"prompt_tokens":30,"completion_tokens":5,"total_tokens":35}}`, text)
}

func TestRunPrintsTheFinalText(t *testing.T) {
	t.Parallel()
	srv, requests := openAIScript(t, chatCall("call_1", "read_file", `{"path":"todo.txt"}`), chatText("The list has one item: ship it."))
	dir := workdir(t, map[string]string{"todo.txt": "ship it\n"})

	r := runCLI(t, dir, "", "run", "--base-url", srv.URL, "--model", "llama3.2", "What is on the list?")
	if r.code != 0 || r.stdout != "The list has one item: ship it.\n" {
		t.Fatalf("exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	reqs := requests()
	if len(reqs) != 2 || !strings.Contains(reqs[0], `"model":"llama3.2"`) || !strings.Contains(reqs[1], "ship it") {
		t.Errorf("requests: %q", reqs)
	}
}

func TestRunJSONAndBudget(t *testing.T) {
	t.Parallel()
	read := chatCall("call_1", "read_file", `{"path":"todo.txt"}`)
	srv, _ := openAIScript(t, read, read, read)
	dir := workdir(t, map[string]string{"todo.txt": "ship it\n"})

	r := runCLI(t, dir, "", "run", "--json", "--base-url", srv.URL, "--model", "m", "--max-turns", "2", "Loop.")
	if r.code != exitTool {
		t.Fatalf("exit %d, want %d; stderr %q", r.code, exitTool, r.stderr)
	}
	lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
	var j runResult
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &j); err != nil || j.Type != "result" {
		t.Fatalf("the last line is not the result event: %v\n%s", err, r.stdout)
	}
	if j.Turns != 2 || j.Error == nil || j.Error.Code != "BUDGET_EXCEEDED" || j.Usage.TotalTokens != 50 {
		t.Errorf("got %+v (error %+v)", j, j.Error)
	}
}

func TestRunUsageErrors(t *testing.T) {
	dir := workdir(t, nil)
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"no model", []string{"run", "--base-url", "http://127.0.0.1:1", "task"}, "--model is required"},
		{"unknown provider", []string{"run", "--provider", "acme", "--model", "m", "task"}, `--provider: "acme": want openai, anthropic or gemini`},
		{"no key", []string{"run", "--provider", "anthropic", "--model", "m", "task"}, "ANTHROPIC_API_KEY"},
		{"no task", []string{"run", "--model", "m"}, "accepts 1 arg"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv("ANTHROPIC_API_KEY", "")
			r := runCLI(t, dir, "", tt.args...)
			if r.code != exitUsage || !strings.Contains(r.stderr, tt.want) {
				t.Errorf("exit %d, stderr %q; want %d and %q", r.code, r.stderr, exitUsage, tt.want)
			}
		})
	}
}

// TestRunShowsModelTextVisibly: the model's streamed text and its tool
// calls reach the terminal with escapes, carriage returns and bidi controls
// written out, never interpreted.
func TestRunShowsModelTextVisibly(t *testing.T) {
	t.Parallel()
	srv, _ := openAIScript(t, chatCall("call_1", "read_file", `{"path":"todo.txt\u001b[2K\r$ ls"}`),
		chatJSONText("All done.\x1b[2K\r$ go test ./... passed \u202egnp.txt"))
	dir := workdir(t, map[string]string{"todo.txt": "ship it\n"})
	r := runCLI(t, dir, "", "run", "--base-url", srv.URL, "--model", "m", "go")
	for name, stream := range map[string]string{"stdout": r.stdout, "stderr": r.stderr} {
		if strings.ContainsAny(stream, "\x1b\r\u202e") {
			t.Errorf("%s holds a raw control character: %q", name, stream)
		}
	}
	if !strings.Contains(r.stdout, `All done.\x1b[2K\r$ go test ./... passed \u202egnp.txt`) {
		t.Errorf("stdout %q does not show the text with its escapes", r.stdout)
	}
	if !strings.Contains(r.stderr, `read_file(todo.txt\x1b[2K\r$ ls)`) {
		t.Errorf("stderr %q does not show the call with its escapes", r.stderr)
	}
}

// chatJSONText is chatText for any text: JSON-encoded, not Go-quoted.
func chatJSONText(text string) string {
	content, _ := json.Marshal(text)
	return strings.Replace(chatText(""), `"content":""`, `"content":`+string(content), 1)
}
