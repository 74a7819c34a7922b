package agent_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"

	oai "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/quiverkit/quiver"
	"github.com/quiverkit/quiver/agent"
	"github.com/quiverkit/quiver/driver/openai"
	"github.com/quiverkit/quiver/provider/builtin"
)

// A model on an OpenAI-compatible server reads a file, then calls done; the
// loop runs the read through the toolkit and stops at done. The server here
// plays the model with two scripted replies.
func ExampleRun() {
	replies := []string{
		`{"id":"c1","object":"chat.completion","created":1,"model":"m","choices":[{"index":0,"finish_reason":"tool_calls",
"message":{"role":"assistant","content":null,"tool_calls":[{"id":"call_1","type":"function",
"function":{"name":"read_file","arguments":"{\"path\":\"VERSION\"}"}}]}}],"usage":{"prompt_tokens":90,"completion_tokens":10,"total_tokens":100}}`,
		`{"id":"c2","object":"chat.completion","created":1,"model":"m","choices":[{"index":0,"finish_reason":"tool_calls",
"message":{"role":"assistant","content":null,"tool_calls":[{"id":"call_2","type":"function",
"function":{"name":"done","arguments":"{\"summary\":\"The version is 1.4.2.\"}"}}]}}],"usage":{"prompt_tokens":110,"completion_tokens":10,"total_tokens":120}}`,
	}
	turn := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, replies[turn])
		turn++
	}))
	defer srv.Close()

	dir, _ := os.MkdirTemp("", "agent-example")
	defer os.RemoveAll(dir)
	os.WriteFile(filepath.Join(dir, "VERSION"), []byte("1.4.2\n"), 0o644)
	tk, err := quiver.New(quiver.WithRoot(dir), builtin.Standard())
	if err != nil {
		panic(err)
	}
	defer tk.Close()
	model := openai.NewChat(oai.NewClient(option.WithBaseURL(srv.URL), option.WithAPIKey("sk-example")), "gpt-4o")

	res, err := agent.Run(context.Background(), agent.Config{Model: model, Toolkit: tk, MaxTurns: 5}, "Which version is this?")
	if err != nil {
		panic(err)
	}
	fmt.Println("done:", res.Done)
	fmt.Println("summary:", res.Summary)
	fmt.Println("turns:", res.Turns, "tokens:", res.Usage.TotalTokens)
	// Output:
	// done: true
	// summary: The version is 1.4.2.
	// turns: 2 tokens: 220
}
