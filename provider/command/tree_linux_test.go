package command_test

import (
	"context"
	"testing"
	"time"

	"github.com/quiverkit/quiver/provider/command"
	"github.com/quiverkit/quiver/sandbox"
	"github.com/quiverkit/quiver/sandbox/sandboxtest"
)

// TestRunKillsTheTree: a custom or script tool's program that leaves a
// child ignoring SIGTERM and a setsid daemon behind loses both when its
// call times out or is cancelled, confined or not.
func TestRunKillsTheTree(t *testing.T) {
	for _, mode := range []sandbox.WriteScope{sandbox.ReadOnly, sandbox.WorkspaceWrite, sandbox.Unrestricted} {
		for _, end := range []string{"timeout", "cancel"} {
			t.Run(string(mode)+"/"+end, func(t *testing.T) {
				t.Parallel() // the timeouts wait ten seconds each
				ws := t.TempDir()
				box, err := sandbox.New(mode, ws, sandbox.Config{}, sandbox.StandardProtected)
				if err != nil {
					t.Fatal(err)
				}
				tree := sandboxtest.NewTree(t)
				ctx, cancel := context.WithCancel(context.Background())
				defer cancel()
				p := command.Process{Argv: []string{"sh", "-c", sandboxtest.TreeLine}, Dir: ws,
					Env: append(sandbox.HostEnv(nil), tree.Env), Timeout: time.Hour, Sandbox: box}
				if end == "timeout" {
					p.Timeout = 10 * time.Second
				} else {
					go func() { tree.WaitStarted(t, 1); cancel() }()
				}
				out, err := command.Run(ctx, p)
				if end == "timeout" && (!out.TimedOut || err != nil) {
					t.Errorf("Run: %+v, %v; want a timeout", out, err)
				}
				if end == "cancel" && err == nil {
					t.Errorf("Run after a cancellation: nil error")
				}
				tree.WaitGone(t)
			})
		}
	}
}
