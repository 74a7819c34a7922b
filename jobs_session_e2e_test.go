//go:build linux

package quiver_test

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"testing"

	"github.com/quiverkit/quiver"
	"github.com/quiverkit/quiver/policy"
	"github.com/quiverkit/quiver/provider/builtin"
	"github.com/quiverkit/quiver/sandbox/sandboxtest"
	"github.com/quiverkit/quiver/tool"
	"github.com/quiverkit/quiver/tools"
)

// jobsToolkit is a toolkit that allows everything, under the real sandbox,
// in a workspace of its own.
func jobsToolkit(t *testing.T) (*quiver.Toolkit, string) {
	t.Helper()
	ws := t.TempDir()
	tk, err := quiver.New(quiver.WithRoot(ws), builtin.Standard(), quiver.WithPolicy(policy.AllowAll()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tk.Close() })
	return tk, ws
}

// startTree starts a sandboxtest.Tree as a background job in ctx's session
// and returns the job's id and the tree, once it has started.
func startTree(t *testing.T, ctx context.Context, tk *quiver.Toolkit, name string) (string, *sandboxtest.Tree) {
	t.Helper()
	tree := sandboxtest.NewTree(t)
	out, err := quiver.Call(ctx, tk, tools.ExecCommand, tools.ExecCommandInput{Argv: tree.Argv(), Background: true})
	if err != nil {
		t.Fatalf("starting %s: %v", name, err)
	}
	tree.WaitStarted(t, 1)
	return out.JobID, tree
}

// wantNotFound fails unless err is NOT_FOUND with the answer an id nobody
// has gets, nobody (see notFoundFor).
func wantNotFound(t *testing.T, err error, id, nobody, what string) {
	t.Helper()
	var te *tool.Error
	if !errors.As(err, &te) || te.Code != tool.CodeNotFound {
		t.Fatalf("%s: %v, want NOT_FOUND", what, err)
	}
	if got := strings.Replace(te.Message, strconv.Quote(id), "JOB", 1); got != nobody {
		t.Errorf("%s: %q\nwant the answer to an id nobody has: %q", what, got, nobody)
	}
}

// notFoundFor is exec_output's answer to an id nobody has, with JOB for the
// id.
func notFoundFor(t *testing.T, tk *quiver.Toolkit) string {
	t.Helper()
	const nobody = "job_nobodyhasthisidnobodyhasthi"
	_, err := quiver.Call(context.Background(), tk, tools.ExecOutput, tools.ExecOutputInput{JobID: nobody})
	var te *tool.Error
	if !errors.As(err, &te) || te.Code != tool.CodeNotFound {
		t.Fatalf("an id nobody has: %v, want NOT_FOUND", err)
	}
	return strings.Replace(te.Message, strconv.Quote(nobody), "JOB", 1)
}

// TestJobsBelongToTheirSession is issue 34's "jobs belong to their
// session" through the library: session B reads, waits for and kills
// session A's job by its id and by other spellings, and gets the answer an
// id nobody has gets every time, while A's tree runs on; ending A's
// session kills A's tree, double-forked grandchild included, and nothing
// of B's; closing the toolkit kills every session's, the default one's
// too.
func TestJobsBelongToTheirSession(t *testing.T) {
	tk, _ := jobsToolkit(t)
	nobody := notFoundFor(t, tk)
	a, b := tool.WithSession(context.Background(), "A"), tool.WithSession(context.Background(), "B")
	aJob, aTree := startTree(t, a, tk, "a")
	bJob, bTree := startTree(t, b, tk, "b")
	defJob, defTree := startTree(t, context.Background(), tk, "default")

	for _, guess := range []string{aJob, strings.ToUpper(aJob), " " + aJob, aJob + "\n", aJob[:len(aJob)-1], strings.Replace(aJob, "_", "-", 1), "job-1", "job-2"} {
		for _, ctx := range []context.Context{b, context.Background(), tool.WithSession(context.Background(), "a")} {
			_, err := quiver.Call(ctx, tk, tools.ExecOutput, tools.ExecOutputInput{JobID: guess})
			wantNotFound(t, err, guess, nobody, "another session's exec_output of "+guess)
			wait := 1
			_, err = quiver.Call(ctx, tk, tools.ExecOutput, tools.ExecOutputInput{JobID: guess, WaitSecs: &wait})
			wantNotFound(t, err, guess, nobody, "another session's exec_output wait of "+guess)
			_, err = quiver.Call(ctx, tk, tools.ExecKill, tools.ExecKillInput{JobID: guess})
			wantNotFound(t, err, guess, nobody, "another session's exec_kill of "+guess)
		}
	}
	aTree.WantRunning(t, "other sessions tried to kill A's job")
	if out, err := quiver.Call(a, tk, tools.ExecOutput, tools.ExecOutputInput{JobID: aJob}); err != nil || out.Status != "running" {
		t.Fatalf("A reading its own job: %+v, %v", out, err)
	}
	if out, err := quiver.Call(context.Background(), tk, tools.ExecOutput, tools.ExecOutputInput{JobID: defJob}); err != nil || out.Status != "running" {
		t.Fatalf("the default session reading its own job: %+v, %v", out, err)
	}

	if err := tk.EndSession("A"); err != nil {
		t.Fatal(err)
	}
	aTree.WaitGone(t)
	bTree.WantRunning(t, "A's session ended")
	defTree.WantRunning(t, "A's session ended")
	_, err := quiver.Call(a, tk, tools.ExecOutput, tools.ExecOutputInput{JobID: aJob})
	wantNotFound(t, err, aJob, nobody, "A's job after its session ended")
	if out, err := quiver.Call(b, tk, tools.ExecOutput, tools.ExecOutputInput{JobID: bJob}); err != nil || out.Status != "running" {
		t.Fatalf("B reading its own job after A's session ended: %+v, %v", out, err)
	}

	if err := tk.Close(); err != nil {
		t.Fatal(err)
	}
	bTree.WaitGone(t)
	defTree.WaitGone(t)
}

// TestOneCallSessionRefusesBackgroundJobs: a call marked as its session's
// only one (quiver call) cannot start a job that would die unread as it
// returns; the refusal names the field, and a foreground command still
// runs.
func TestOneCallSessionRefusesBackgroundJobs(t *testing.T) {
	tk, _ := jobsToolkit(t)
	ctx := tool.WithOneCallSession(context.Background())
	for _, name := range []string{"exec_command", "run_command"} {
		_, err := tk.Invoke(ctx, name, map[string]any{"command": "true", "background": true})
		var te *tool.Error
		if !errors.As(err, &te) || te.Code != tool.CodeInvalidArguments || !strings.Contains(te.Message, `field "background"`) {
			t.Errorf("%s in the background in a one-call session: %v, want INVALID_ARGUMENTS naming \"background\"", name, err)
		}
	}
	if out, err := tk.Invoke(ctx, "exec_command", map[string]any{"command": "echo fg"}); err != nil || !strings.Contains(out.Content.String(), "fg") {
		t.Errorf("a foreground command in a one-call session: %v\n%s", err, out.Content)
	}
}
