package agent_test

import (
	"context"
	"strings"
	"testing"

	"github.com/quiverkit/quiver/agent"
)

// With TrimOutputs, an old tool output that takes the conversation past the
// budget is replaced by a stub naming its ref before the next request; the
// newest output is sent whole. Without it nothing is replaced.
func TestRunTrimsOldOutputs(t *testing.T) {
	big := strings.Repeat("a line of the big file\n", 100) // about 3 KB a read, with line numbers
	for _, budget := range []int{0, 4500} {
		srv := newChatServer(t,
			callsReply(10, call{"call_1", "read_file", `{"path":"big.txt"}`}),
			callsReply(10, call{"call_2", "read_file", `{"path":"big.txt","offset":2}`}),
			textReply(10, "Read it twice."))
		cfg := agent.Config{Model: srv.model(), Toolkit: newToolkit(t, map[string]string{"big.txt": big}), TrimOutputs: budget}

		res, err := agent.Run(context.Background(), cfg, "Read big.txt twice.")
		if err != nil {
			t.Fatal(err)
		}
		last := srv.Requests()[2]
		first, _ := last.toolContent("call_1")
		second, _ := last.toolContent("call_2")
		stubbed := strings.Contains(first, "removed to fit the context budget") && strings.Contains(first, "ref=")
		if stubbed != (budget > 0) {
			t.Errorf("budget %d: call_1 sent as %q", budget, first)
		}
		if !strings.Contains(second, "a line of the big file") {
			t.Errorf("budget %d: newest output not sent whole: %q", budget, second)
		}
		if res.Text != "Read it twice." {
			t.Errorf("text %q", res.Text)
		}
	}
}
