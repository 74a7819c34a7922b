package process

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/quiverkit/quiver/driver"
	"github.com/quiverkit/quiver/sandbox"
	"github.com/quiverkit/quiver/sandbox/sandboxtest"
)

// TestCloseKillsTheTree: what the model program left running — a child
// that ignores SIGTERM, a daemon that called setsid — ends when the model
// is closed, confined or not.
func TestCloseKillsTheTree(t *testing.T) {
	for _, mode := range []sandbox.WriteScope{sandbox.ReadOnly, sandbox.Unrestricted} {
		t.Run(string(mode), func(t *testing.T) {
			box, err := sandbox.New(mode, t.TempDir(), sandbox.Config{}, nil)
			if err != nil {
				t.Fatal(err)
			}
			tree := sandboxtest.NewTree(t)
			prog := filepath.Join(t.TempDir(), "quiver-models")
			line := strings.Replace(sandboxtest.TreeLine, "echo started; wait", "exec cat >/dev/null", 1)
			if err := os.WriteFile(prog, []byte("#!/bin/sh\n"+line+"\n"), 0o755); err != nil {
				t.Fatal(err)
			}
			m := New(Config{Path: prog, Spec: driver.Spec{Model: "fake"}, Sandbox: box, Env: append(sandbox.HostEnv(nil), tree.Env)})
			if _, _, err := m.send(opGenerate, ask("hello")); err != nil {
				t.Fatal(err)
			}
			tree.WaitStarted(t, 1)
			m.Close()
			tree.WaitGone(t)
		})
	}
}
