package tools

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/quiverkit/quiver/internal/shell"
	"github.com/quiverkit/quiver/sandbox/sandboxtest"
	"github.com/quiverkit/quiver/tool"
)

// A session's shell runs what write_stdin types into it past the command
// gate, which saw only "sh": the sandbox is the only confinement there, and
// it holds. A write outside the workspace fails and leaves nothing, as it
// would from exec_command itself.
func TestWriteStdinIntoAShellStaysConfined(t *testing.T) {
	e := newExecEnv(t, "sh")
	outside := t.TempDir()
	start := e.execOK(`{"argv":["sh"],"yield_time_ms":50}`)
	e.send(start.SessionID, "echo pwned > "+outside+"/x; echo status=$?\n", "status=")
	_, seen := e.send(start.SessionID, "ls "+outside+" | wc -l; echo listed\n", "listed")
	if _, err := os.Stat(outside + "/x"); err == nil || !strings.Contains(seen, "0\n") {
		t.Errorf("a write outside the workspace typed into the session went through (%v): %q", err, seen)
	}
	e.send(start.SessionID, "echo inside > in.txt; echo status=$?\n", "status=0")
	if b, err := os.ReadFile(e.root + "/in.txt"); err != nil || string(b) != "inside\n" {
		t.Errorf("a write inside the workspace: %q, %v", b, err)
	}
	e.jobCallOK(newExecKill(), `{"job_id":"`+start.SessionID+`"}`)
}

// Sessions are capped as background jobs are, in one count: the session
// beyond the cap is refused with LIMIT_EXCEEDED, saying how to free a slot,
// and ending one (exec_kill) frees one. The end of the MCP session that
// started them (the toolkit's EndSession closes the session's scope) kills
// those still running, processes and all.
func TestSessionCap(t *testing.T) {
	e := newExecEnv(t, "sh", "sleep")
	e.override(jobsKey.ID, func(context.Context) (any, error) {
		js := shell.NewJobs()
		js.MaxRunning = 2
		return js, nil
	})
	tree := sandboxtest.NewTree(t)
	first := e.execOK(`{"argv":["sh"],"yield_time_ms":10,"env":["` + tree.Env + `"]}`)
	e.execOK(`{"command":"sleep 1000.72","background":true,"env":["` + tree.Env + `"]}`)
	_, err := e.exec(`{"argv":["sh"],"yield_time_ms":10}`)
	wantToolError(t, err, tool.CodeLimitExceeded, "the most allowed", "exec_kill")
	e.jobCallOK(newExecKill(), `{"job_id":"`+first.SessionID+`"}`)
	third := e.execOK(`{"argv":["sh"],"yield_time_ms":10,"env":["` + tree.Env + `"]}`)
	if third.SessionID == "" {
		t.Fatalf("after exec_kill: %+v", third)
	}
	for deadline := time.Now().Add(time.Minute); len(tree.Live()) < 2; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) { // a hang guard
			t.Fatalf("the session and the job are not running: %v", tree.Live())
		}
	}
	if err := e.shared.CloseSession(""); err != nil {
		t.Fatal(err)
	}
	if left := tree.Live(); len(left) > 0 {
		t.Errorf("processes %v outlived their session", left)
	}
}
