package sandbox_test

import (
	"bufio"
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/quiverkit/quiver/sandbox"
	"github.com/quiverkit/quiver/sandbox/sandboxtest"
)

// allScopes are the write scopes' profiles: the tree must die under each,
// unconfined included.
var allScopes = []sandbox.WriteScope{sandbox.ReadOnly, sandbox.WorkspaceWrite, sandbox.Unrestricted}

// TestCommandKillsTheTree: however a Process of its own group ends — its
// context ended (a deadline is the same end), its program exited — nothing it
// started survives: not a child that ignores SIGTERM, not a daemon that
// forked twice and called setsid.
func TestCommandKillsTheTree(t *testing.T) {
	ends := []struct {
		name string
		end  func(cancel context.CancelFunc, stdin func())
		ctx  func() (context.Context, context.CancelFunc)
	}{
		{"cancelled", func(cancel context.CancelFunc, _ func()) { cancel() }, func() (context.Context, context.CancelFunc) {
			return context.WithCancel(context.Background())
		}},
		{"exited", func(_ context.CancelFunc, stdin func()) { stdin() }, func() (context.Context, context.CancelFunc) {
			return context.WithCancel(context.Background())
		}},
	}
	for _, scope := range allScopes {
		for _, end := range ends {
			t.Run(string(scope)+"/"+end.name, func(t *testing.T) {
				p, ws, _ := profile(t, scope, sandbox.Config{})
				tree := sandboxtest.NewTree(t)
				ctx, cancel := end.ctx()
				defer cancel()
				// The shell waits for its input to end, not for its children.
				line := strings.Replace(sandboxtest.TreeLine, "; wait", "; read x", 1)
				proc := sandbox.Command(ctx, p, "sh", "-c", line)
				proc.Dir, proc.Env = ws, append(sandbox.HostEnv(nil), tree.Env)
				stdin, err := proc.StdinPipe()
				if err != nil {
					t.Fatal(err)
				}
				out, err := proc.StdoutPipe()
				if err != nil {
					t.Fatal(err)
				}
				if err := proc.Start(); err != nil {
					t.Fatal(err)
				}
				if line, err := bufio.NewReader(out).ReadString('\n'); line != "started\n" {
					t.Fatalf("the tree did not start: %q %v", line, err)
				}
				tree.WaitStarted(t, 1)
				end.end(cancel, func() { stdin.Close() })
				err = proc.Wait()
				if end.name != "exited" && err == nil {
					t.Errorf("Wait after the context ended: nil error")
				}
				tree.WaitGone(t)
			})
		}
	}
}

// TestGroupKillsEveryTree: a shared group (exec_command's run) kills the
// trees of all its programs when its context ends.
func TestGroupKillsEveryTree(t *testing.T) {
	for _, scope := range allScopes {
		t.Run(string(scope), func(t *testing.T) {
			p, ws, _ := profile(t, scope, sandbox.Config{})
			tree := sandboxtest.NewTree(t)
			ctx, cancel := context.WithCancel(context.Background())
			g, err := sandbox.NewGroup(ctx, p)
			if err != nil {
				t.Fatal(err)
			}
			defer g.Close()
			var procs []*sandbox.Process
			for range 2 {
				proc := g.Command("sh", "-c", sandboxtest.TreeLine)
				proc.Dir, proc.Env = ws, append(sandbox.HostEnv(nil), tree.Env)
				if err := proc.Start(); err != nil {
					t.Fatal(err)
				}
				procs = append(procs, proc)
			}
			tree.WaitStarted(t, 2)
			cancel()
			for _, proc := range procs {
				proc.Wait()
			}
			tree.WaitGone(t)
			if err := g.Command("true").Start(); !errors.Is(err, sandbox.ErrGroupClosed) {
				t.Errorf("a start after the group's end: %v, want ErrGroupClosed", err)
			}
		})
	}
}

// TestCommandEnvironment: a Process without an environment gets the
// minimal one, not Quiver's.
func TestCommandEnvironment(t *testing.T) {
	t.Setenv("QUIVER_TEST_SECRET", "hunter2")
	for _, scope := range allScopes {
		t.Run(string(scope), func(t *testing.T) {
			p, ws, _ := profile(t, scope, sandbox.Config{})
			var out strings.Builder
			proc := sandbox.Command(context.Background(), p, "sh", "-c", "echo ${QUIVER_TEST_SECRET:-unset} ${PATH:+path}")
			proc.Dir, proc.Stdout = ws, &out
			if err := proc.Run(); err != nil {
				t.Fatal(err)
			}
			if out.String() != "unset path\n" {
				t.Errorf("environment: %q, want the minimal one", out.String())
			}
		})
	}
}
