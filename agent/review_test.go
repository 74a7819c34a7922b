package agent_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/quiverkit/quiver"
	"github.com/quiverkit/quiver/agent"
	"github.com/quiverkit/quiver/policy/approve"
	"github.com/quiverkit/quiver/provider/builtin"
)

// A high-risk call goes to the toolkit's approver; with a Quorum of reviewer
// models the run follows their vote: a rejected write never happens and the
// model is told why, an approved one runs.
func TestRunReviewsHighRiskCallsThroughQuorum(t *testing.T) {
	vote := func(approve bool) string {
		args := `{"approve":false,"reason":"not asked for"}`
		if approve {
			args = `{"approve":true,"reason":"part of the task"}`
		}
		return callsReply(5, call{"call_v", "vote", args})
	}
	tests := []struct {
		name    string
		votes   []bool
		written bool
	}{
		{"rejected 2-1", []bool{false, true, false}, false},
		{"approved 2-1", []bool{true, false, true}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var q approve.Quorum
			for _, v := range tt.votes {
				q.Reviewers = append(q.Reviewers, newChatServer(t, vote(v)).model())
			}
			dir := t.TempDir()
			tk, err := quiver.New(quiver.WithRoot(dir), builtin.Standard(), quiver.WithApprover(q))
			if err != nil {
				t.Fatal(err)
			}
			defer tk.Close()
			srv := newChatServer(t,
				callsReply(10, call{"call_w", "write_file", `{"path":"out.txt","content":"hi\n"}`}),
				textReply(10, "Finished."))

			if _, err := agent.Run(context.Background(), agent.Config{Model: srv.model(), Toolkit: tk}, "Write out.txt."); err != nil {
				t.Fatal(err)
			}
			_, statErr := os.Stat(filepath.Join(dir, "out.txt"))
			if written := statErr == nil; written != tt.written {
				t.Errorf("out.txt written %v, want %v", written, tt.written)
			}
			got, _ := srv.Requests()[1].toolContent("call_w")
			if denied := strings.Contains(got, "APPROVAL_DENIED"); denied == tt.written {
				t.Errorf("result sent back: %q", got)
			}
		})
	}
}
