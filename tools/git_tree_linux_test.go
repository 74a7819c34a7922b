package tools

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/quiverkit/quiver/sandbox"
	"github.com/quiverkit/quiver/sandbox/sandboxtest"
	"github.com/quiverkit/quiver/tool"
)

// TestGitKillsTheTree: a git that git_status_summary runs (here a stand-in
// first in PATH, which leaves a child ignoring SIGTERM and a setsid daemon
// behind) loses its whole tree when the call is cancelled, confined or not.
func TestGitKillsTheTree(t *testing.T) {
	for _, mode := range []sandbox.WriteScope{sandbox.ReadOnly, sandbox.Unrestricted} {
		t.Run(string(mode), func(t *testing.T) {
			ws := t.TempDir()
			box, err := sandbox.New(mode, ws, sandbox.Config{}, sandbox.StandardProtected)
			if err != nil {
				t.Fatal(err)
			}
			tree := sandboxtest.NewTree(t)
			bin := t.TempDir()
			// It has no exec path to tell the start path (git --exec-path),
			// which leaves its execution open under read-only: a shell
			// script's interpreter is not git's.
			script := "#!/bin/sh\n[ \"$1\" = --exec-path ] && exit 1\nexport " + tree.Env + "\n" + sandboxtest.TreeLine + "\n"
			if err := os.WriteFile(filepath.Join(bin, "git"), []byte(script), 0o755); err != nil {
				t.Fatal(err)
			}
			t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			err = streamGit(ctx, box, ws, func(r io.Reader) error {
				tree.WaitStarted(t, 1)
				cancel()
				_, err := io.Copy(io.Discard, r)
				return err
			}, "status")
			if te := (*tool.Error)(nil); !errors.As(err, &te) {
				t.Errorf("streamGit after a cancellation: %v, want a tool error", err)
			}
			tree.WaitGone(t)
		})
	}
}
