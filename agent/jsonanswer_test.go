package agent_test

import (
	"context"
	"errors"
	"testing"

	"github.com/quiverkit/quiver/agent"
)

// With JSONAnswer the final answer is cut to its JSON value while the
// conversation keeps the reply as written; an answer with no JSON ends the
// run with ErrNoJSON; done's summary is no answer and is left alone.
func TestRunJSONAnswer(t *testing.T) {
	tests := []struct {
		name, reply string // the model's second reply
		want        string // Result.Text
		wantErr     error
	}{
		{"fenced", textReply(10, "Here:\n```json\n{\"ok\": true}\n```\nDone."), `{"ok": true}`, nil},
		{"prose around", textReply(10, "The list is [1, 2] as asked."), `[1, 2]`, nil},
		{"no JSON", textReply(10, "Nothing to report."), "Nothing to report.", agent.ErrNoJSON},
		{"done", callsReply(10, call{"call_2", "done", `{"summary":"no JSON here"}`}), "", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := newChatServer(t, callsReply(10, call{"call_1", "read_file", `{"path":"a.txt"}`}), tt.reply)
			cfg := agent.Config{Model: srv.model(), Toolkit: newToolkit(t, map[string]string{"a.txt": "a\n"}), JSONAnswer: true}
			res, err := agent.Run(context.Background(), cfg, "Answer in JSON.")
			if !errors.Is(err, tt.wantErr) || res.Text != tt.want {
				t.Fatalf("text %q, err %v; want %q, %v", res.Text, err, tt.want, tt.wantErr)
			}
			if tt.name == "fenced" && res.Messages[len(res.Messages)-1].Text() == res.Text {
				t.Errorf("the conversation's last reply was rewritten to %q", res.Text)
			}
		})
	}
}
