package main

import (
	"bufio"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/quiverkit/quiver/sandbox/sandboxtest"
)

// TestSandboxCommandKillsTheTree: whatever a command run by `quiver
// sandbox -- CMD` leaves behind — a child that ignores SIGTERM, a daemon
// that forked twice, called setsid and closed its streams — is gone once
// the command has ended, under every write scope (unrestricted included,
// where no PID namespace holds the tree): when the command exits by
// itself, and when quiver sandbox gets SIGTERM, which it passes on to the
// command; quiver sandbox exits with the command's status (143 for a
// command SIGTERM ended, as a shell says).
func TestSandboxCommandKillsTheTree(t *testing.T) {
	ends := []struct {
		name string
		end  func(t *testing.T, cmd *exec.Cmd, stdin func())
		code int // read's status at the end of its input; 128 + SIGTERM
	}{
		{"the command exits", func(_ *testing.T, _ *exec.Cmd, stdin func()) { stdin() }, 1},
		{"quiver sandbox gets SIGTERM", func(t *testing.T, cmd *exec.Cmd, _ func()) {
			if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
				t.Fatal(err)
			}
		}, 143},
	}
	for _, scope := range []string{"workspace-write", "read-only", "unrestricted"} {
		for _, end := range ends {
			t.Run(scope+"/"+end.name, func(t *testing.T) {
				t.Parallel()
				ws := workdir(t, nil)
				tree := sandboxtest.NewTree(t)
				// The shell waits for its input to end, not for its children.
				line := strings.Replace(sandboxtest.TreeLine, "; wait", "; read x", 1)
				cmd, stdin, stdout := startPiped(t, ws, "--write-scope", scope, "sandbox", "--", "env", tree.Env, "sh", "-c", line)
				// The tree's processes can show before the shell has printed
				// "started"; ending the command before that line would end
				// the shell before it prints it.
				started, done := make(chan struct{}), make(chan error, 1)
				go func() {
					out, err := bufio.NewReader(stdout).ReadString('\n')
					if out != "started\n" {
						t.Errorf("the command did not start its tree: %q %v", out, err)
					}
					close(started)
					done <- cmd.Wait()
				}()
				select {
				case <-started:
				case <-time.After(time.Minute):
					t.Fatal("the command printed nothing within a minute (hang guard)")
				}
				tree.WaitStarted(t, 1)
				end.end(t, cmd, func() { stdin.Close() })
				select {
				case err := <-done:
					if code := cmd.ProcessState.ExitCode(); code != end.code {
						t.Errorf("quiver sandbox: %v (exit status %d), want exit status %d", err, code, end.code)
					}
				case <-time.After(time.Minute):
					t.Fatal("quiver sandbox did not exit within a minute of the command's end (hang guard)")
				}
				tree.WaitGone(t)
			})
		}
	}
}
