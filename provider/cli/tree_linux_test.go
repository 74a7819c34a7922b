package cli

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/quiverkit/quiver/sandbox/sandboxtest"
)

// TestRunnerKillsTheTree: a program the CLI provider runs (rg, fd; here a
// stand-in that leaves a child ignoring SIGTERM and a setsid daemon) loses
// its whole tree when the call is cancelled or its time is up.
func TestRunnerKillsTheTree(t *testing.T) {
	for _, end := range []string{"timeout", "cancel"} {
		t.Run(end, func(t *testing.T) {
			dir := t.TempDir()
			tree := sandboxtest.NewTree(t)
			prog := filepath.Join(t.TempDir(), "rg")
			// The runner gives the program the minimal environment: the
			// stand-in marks its tree itself.
			script := "#!/bin/sh\nexport " + tree.Env + "\n" + sandboxtest.TreeLine + "\n"
			if err := os.WriteFile(prog, []byte(script), 0o755); err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			r := runner{path: prog, timeout: time.Hour}
			if end == "timeout" {
				r.timeout = 2 * time.Second
			}
			_, err := r.run(ctx, dir, nil, func(out io.Reader) error {
				if end == "cancel" {
					tree.WaitStarted(t, 1)
					cancel()
				}
				_, err := io.Copy(io.Discard, out)
				return err
			})
			if err == nil {
				t.Errorf("run: nil error after the %s", end)
			}
			tree.WaitGone(t)
		})
	}
}
