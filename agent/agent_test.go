package agent_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/quiverkit/quiver"
	"github.com/quiverkit/quiver/agent"
	"github.com/quiverkit/quiver/driver"
	"github.com/quiverkit/quiver/provider/builtin"
	"github.com/quiverkit/quiver/tool"
)

// newToolkit returns a toolkit with the built-in tools on a workspace
// holding files.
func newToolkit(t testing.TB, files map[string]string) *quiver.Toolkit {
	t.Helper()
	dir := t.TempDir()
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	tk, err := quiver.New(quiver.WithRoot(dir), builtin.Standard())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tk.Close() })
	return tk
}

func TestRunRunsToolsAndFinishesOnText(t *testing.T) {
	srv := newChatServer(t,
		callsReply(40, call{"call_1", "read_file", `{"path":"notes.txt"}`}),
		textReply(60, "The notes say hello."))
	tk := newToolkit(t, map[string]string{"notes.txt": "hello from the notes\n"})

	res, err := agent.Run(context.Background(), agent.Config{Model: srv.model(), Toolkit: tk, System: "Be brief."}, "What do the notes say?")
	if err != nil {
		t.Fatal(err)
	}
	if res.Text != "The notes say hello." || res.Turns != 2 || res.Done {
		t.Errorf("text %q, turns %d, done %v", res.Text, res.Turns, res.Done)
	}
	if res.Usage.TotalTokens != 100 || res.Usage.InputTokens != 75 {
		t.Errorf("usage %+v, want 100 total, 75 input", res.Usage)
	}
	var roles []driver.Role
	for _, m := range res.Messages {
		roles = append(roles, m.Role)
	}
	want := []driver.Role{driver.RoleSystem, driver.RoleUser, driver.RoleAssistant, driver.RoleTool, driver.RoleAssistant}
	if diff := cmp.Diff(want, roles); diff != "" {
		t.Errorf("transcript roles (-want +got):\n%s", diff)
	}
	reqs := srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests, want 2", len(reqs))
	}
	if !offers(reqs[0], "read_file") || !offers(reqs[0], "done") {
		t.Errorf("first request does not offer read_file and done: %+v", reqs[0].Tools)
	}
	got, ok := reqs[1].toolContent("call_1")
	if !ok || !strings.Contains(got, "hello from the notes") {
		t.Errorf("second request's result for call_1 = %q (found %v), want the file's text", got, ok)
	}
}

func TestRunStopsWhenDoneSucceeds(t *testing.T) {
	srv := newChatServer(t, callsReply(30, call{"call_d", "done", `{"summary":"Nothing needed changing."}`}))
	tk := newToolkit(t, nil)

	res, err := agent.Run(context.Background(), agent.Config{Model: srv.model(), Toolkit: tk}, "Check the repo.")
	if err != nil {
		t.Fatal(err)
	}
	if !res.Done || res.Summary != "Nothing needed changing." || res.Turns != 1 {
		t.Errorf("done %v, summary %q, turns %d", res.Done, res.Summary, res.Turns)
	}
	if n := len(srv.Requests()); n != 1 {
		t.Errorf("%d requests after done, want 1", n)
	}
	last := res.Messages[len(res.Messages)-1]
	if last.Role != driver.RoleTool || len(last.ToolResults) != 1 || last.ToolResults[0].IsError {
		t.Errorf("last message %+v, want done's successful result", last)
	}
}

func TestRunBudgets(t *testing.T) {
	read := callsReply(100, call{"call_r", "read_file", `{"path":"a.txt"}`})
	tests := []struct {
		name      string
		cfg       agent.Config
		wantTurns int
	}{
		{"turns", agent.Config{MaxTurns: 2}, 2},
		{"tokens", agent.Config{MaxTokens: 250}, 3},
		{"default turns", agent.Config{}, agent.DefaultMaxTurns},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			replies := make([]string, agent.DefaultMaxTurns+1)
			for i := range replies {
				replies[i] = read
			}
			srv := newChatServer(t, replies...)
			cfg := tt.cfg
			cfg.Model, cfg.Toolkit = srv.model(), newToolkit(t, map[string]string{"a.txt": "a\n"})

			res, err := agent.Run(context.Background(), cfg, "Loop forever.")
			if code := tool.CodeOf(err); code != tool.CodeBudgetExceeded {
				t.Fatalf("err %v (code %q), want BUDGET_EXCEEDED", err, code)
			}
			var te *tool.Error
			if !errors.As(err, &te) {
				t.Errorf("err %T is not a *tool.Error", err)
			}
			if res == nil || res.Turns != tt.wantTurns || len(srv.Requests()) != tt.wantTurns {
				t.Fatalf("partial result %+v, %d requests; want %d turns", res, len(srv.Requests()), tt.wantTurns)
			}
			if last := res.Messages[len(res.Messages)-1]; last.Role != driver.RoleTool {
				t.Errorf("partial transcript ends with %s, want the last turn's results", last.Role)
			}
		})
	}
}

// Calls the toolkit cannot run — an unknown tool, arguments the schema
// refuses, arguments that are not JSON — go back to the model as error
// results with their codes, and the run goes on.
func TestRunSendsBadCallsBackAsErrors(t *testing.T) {
	srv := newChatServer(t,
		callsReply(10,
			call{"call_u", "no_such_tool", `{}`},
			call{"call_v", "read_file", `{"path":5}`},
			call{"call_j", "read_file", `{"path":`}),
		textReply(10, "I could not read it."))
	tk := newToolkit(t, nil)

	res, err := agent.Run(context.Background(), agent.Config{Model: srv.model(), Toolkit: tk}, "Read something.")
	if err != nil {
		t.Fatal(err)
	}
	if res.Text != "I could not read it." {
		t.Errorf("text %q", res.Text)
	}
	reqs := srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests, want 2", len(reqs))
	}
	for id, code := range map[string]tool.Code{
		"call_u": tool.CodeToolNotFound,
		"call_v": tool.CodeInvalidArguments,
		"call_j": tool.CodeInvalidToolArgumentsType,
	} {
		got, ok := reqs[1].toolContent(id)
		if !ok || !strings.Contains(got, string(code)) {
			t.Errorf("result for %s = %q (found %v), want %s", id, got, ok, code)
		}
	}
}

func TestRunAnswersParallelCallsInOrder(t *testing.T) {
	srv := newChatServer(t,
		callsReply(10,
			call{"call_b", "read_file", `{"path":"b.txt"}`},
			call{"call_a", "read_file", `{"path":"a.txt"}`},
			call{"call_l", "list_files", `{}`}),
		textReply(10, "Read both."))
	tk := newToolkit(t, map[string]string{"a.txt": "alpha\n", "b.txt": "beta\n"})

	res, err := agent.Run(context.Background(), agent.Config{Model: srv.model(), Toolkit: tk}, "Read a and b.")
	if err != nil {
		t.Fatal(err)
	}
	results := res.Messages[len(res.Messages)-2].ToolResults
	var ids []string
	for _, r := range results {
		ids = append(ids, r.CallID)
	}
	if diff := cmp.Diff([]string{"call_b", "call_a", "call_l"}, ids); diff != "" {
		t.Errorf("result order (-want +got):\n%s", diff)
	}
	req := srv.Requests()[1]
	for id, want := range map[string]string{"call_a": "alpha", "call_b": "beta"} {
		if got, _ := req.toolContent(id); !strings.Contains(got, want) {
			t.Errorf("result for %s = %q, want %q in it", id, got, want)
		}
	}
}

// A cancelled context ends a run waiting on the model, with the partial
// result and an error that is context.Canceled.
func TestRunStopsOnCancel(t *testing.T) {
	arrived := make(chan struct{})
	srv := newChatServer(t)
	srv.Config.Handler = blockUntilGone(arrived)
	tk := newToolkit(t, nil)
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		<-arrived
		cancel()
	}()

	type outcome struct {
		res *agent.Result
		err error
	}
	ch := make(chan outcome, 1)
	go func() {
		res, err := agent.Run(ctx, agent.Config{Model: srv.model(), Toolkit: tk}, "Wait.")
		ch <- outcome{res, err}
	}()
	select {
	case o := <-ch:
		if !errors.Is(o.err, context.Canceled) {
			t.Errorf("err %v, want context.Canceled", o.err)
		}
		if o.res == nil || o.res.Turns != 0 {
			t.Errorf("partial result %+v, want 0 turns", o.res)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("Run did not return after its context was cancelled")
	}
}

func TestRunStreamsEvents(t *testing.T) {
	sse := "data: " + `{"id":"c1","object":"chat.completion.chunk","created":1,"model":"gpt-test","choices":[{"index":0,"delta":{"role":"assistant","content":"Hel"}}]}` + "\n\n" +
		"data: " + `{"id":"c1","object":"chat.completion.chunk","created":1,"model":"gpt-test","choices":[{"index":0,"delta":{"content":"lo."},"finish_reason":"stop"}]}` + "\n\n" +
		"data: " + `{"id":"c1","object":"chat.completion.chunk","created":1,"model":"gpt-test","choices":[],"usage":{"prompt_tokens":7,"completion_tokens":2,"total_tokens":9}}` + "\n\n" +
		"data: [DONE]\n\n"
	srv := newChatServer(t, sse)
	var deltas []string
	cfg := agent.Config{Model: srv.model(), Toolkit: newToolkit(t, nil), OnEvent: func(ev driver.Event) {
		if ev.Type == driver.EventTextDelta {
			deltas = append(deltas, ev.Delta)
		}
	}}

	res, err := agent.Run(context.Background(), cfg, "Say hello.")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"Hel", "lo."}, deltas); diff != "" {
		t.Errorf("deltas (-want +got):\n%s", diff)
	}
	if res.Text != "Hello." || res.Usage.TotalTokens != 9 || !srv.Requests()[0].Stream {
		t.Errorf("text %q, usage %+v, streamed %v", res.Text, res.Usage, srv.Requests()[0].Stream)
	}
}

func TestRunNeedsModelAndToolkit(t *testing.T) {
	if _, err := agent.Run(context.Background(), agent.Config{}, "x"); err == nil {
		t.Error("Run without a model or toolkit succeeded")
	}
}

func offers(r chatRequest, name string) bool {
	for _, t := range r.Tools {
		if t.Function.Name == name {
			return true
		}
	}
	return false
}
