//go:build linux

package quiver_test

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/quiverkit/quiver"
	"github.com/quiverkit/quiver/outputcache"
	"github.com/quiverkit/quiver/policy"
	"github.com/quiverkit/quiver/provider/builtin"
	"github.com/quiverkit/quiver/sandbox"
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

// TestConfinedCommandsCannotReadQuiversFiles: a background job's log and
// where exec_command keeps a large output whole — a file, for a toolkit
// without an output cache, or a directory store's files — lie where no
// confined process can read them: session B's exec_command gets nothing of
// session A's, naming their paths (as exec_output and exec_command tell
// A) or searching Quiver's directories; nor does A's own.
func TestConfinedCommandsCannotReadQuiversFiles(t *testing.T) {
	private, err := sandbox.PrivateDir()
	if err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(private); err != nil || fi.Mode().Perm() != 0o700 {
		t.Errorf("the private directory: %v, %v; want mode 0700", fi.Mode(), err)
	}
	storeDir := t.TempDir()
	dirStore, err := outputcache.NewDirStore(outputcache.DirOptions{Dir: storeDir})
	if err != nil {
		t.Fatal(err)
	}
	for _, store := range []outputcache.Store{nil, dirStore} {
		t.Run(fmt.Sprintf("%T", store), func(t *testing.T) {
			tk, err := quiver.New(quiver.WithRoot(t.TempDir()), builtin.Standard(), quiver.WithPolicy(policy.AllowAll()),
				quiver.WithOutputCache(store, outputcache.Budget{}))
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { tk.Close() })
			a, b := tool.WithSession(context.Background(), "A"), tool.WithSession(context.Background(), "B")
			// The secret is printed, never written in a command line that
			// a search could find.
			secret := "SECRET-" + strings.ToUpper(rand.Text())
			log := jobLogWith(t, a, tk, secret)
			big, err := quiver.Call(a, tk, tools.ExecCommand, tools.ExecCommandInput{Argv: []string{"sh", "-c", `echo "$0"; seq 1 100000`, secret}})
			if err != nil {
				t.Fatal(err)
			}
			kept := big.OutputFile
			if store != nil {
				kept = storeDir
			} else if fi, err := os.Stat(kept); err != nil || fi.Mode().Perm() != 0o600 {
				t.Errorf("%s: %v, %v; want mode 0600", kept, fi.Mode(), err)
			}
			if !big.Truncated || kept == "" {
				t.Fatalf("the output was not kept whole: %+v", big)
			}
			lines := []string{
				"cat " + log,
				"cat < " + log,
				"while read -r l; do echo \"$l\"; done < " + log,
				"tail -c 200 " + log,
				"ls -lR " + private + " " + storeDir,
				"cat " + filepath.Join(private, "*", "*", "*") + " " + filepath.Join(private, "*", "*") + " " + filepath.Join(private, "*"),
				"grep -rsa SECRET " + kept + " " + private,
			}
			if store == nil {
				lines = append(lines, "cat "+kept, "echo \"$(< "+kept+")\"")
			}
			for _, ctx := range []context.Context{b, a} {
				for _, line := range lines {
					out, err := quiver.Call(ctx, tk, tools.ExecCommand, tools.ExecCommandInput{Command: line})
					if err != nil {
						t.Fatalf("%s: %v", line, err)
					}
					if strings.Contains(out.Output, secret) {
						t.Errorf("session %s read Quiver's files with %s:\n%.300s", tool.SessionOf(ctx), line, out.Output)
					}
				}
			}
		})
	}
}

// jobLogWith starts a background job in ctx's session that prints secret
// and runs on, and returns its log, once the log holds the secret.
func jobLogWith(t *testing.T, ctx context.Context, tk *quiver.Toolkit, secret string) string {
	t.Helper()
	job, err := quiver.Call(ctx, tk, tools.ExecCommand, tools.ExecCommandInput{
		Argv: []string{"sh", "-c", `echo "$0"; exec sleep 1000`, secret}, Background: true})
	if err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(10 * time.Millisecond) {
		out, err := quiver.Call(ctx, tk, tools.ExecOutput, tools.ExecOutputInput{JobID: job.JobID})
		if err != nil {
			t.Fatal(err)
		}
		if b, _ := os.ReadFile(out.LogFile); strings.Contains(string(b), secret) {
			if fi, err := os.Stat(out.LogFile); err != nil || fi.Mode().Perm() != 0o600 {
				t.Errorf("%s: %v, %v; want mode 0600", out.LogFile, fi.Mode(), err)
			}
			return out.LogFile
		}
		if time.Now().After(deadline) {
			t.Fatalf("the job's log %s did not get its output within a minute", out.LogFile)
		}
	}
}
