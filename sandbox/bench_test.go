package sandbox_test

import (
	"os/exec"
	"testing"

	"github.com/quiverkit/quiver/sandbox"
)

// BenchmarkStart compares starting /bin/true bare and under each profile,
// side by side in one run.
func BenchmarkStart(b *testing.B) {
	ws := b.TempDir()
	for _, bc := range []struct {
		name    string
		scope   sandbox.WriteScope
		network bool
	}{
		{"bare", sandbox.Unrestricted, false},
		{"read-only", sandbox.ReadOnly, false},
		{"workspace-write", sandbox.WorkspaceWrite, false},
		{"workspace-write+network", sandbox.WorkspaceWrite, true},
	} {
		p, err := sandbox.New(bc.scope, ws, netConfig(bc.network), sandbox.StandardProtected)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(bc.name, func(b *testing.B) {
			for b.Loop() {
				cmd := &exec.Cmd{Path: "/bin/true", Args: []string{"true"}}
				if err := p.Wrap(cmd); err != nil {
					b.Fatal(err)
				}
				if err := cmd.Run(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func netConfig(on bool) sandbox.Config {
	if on {
		return sandbox.Config{Network: sandbox.AnyHost}
	}
	return sandbox.Config{}
}

// BenchmarkCommand starts /bin/true confined through the start path, a
// group of its own per start as a call has: with the call's cgroup where
// the machine gives Quiver one (made, joined, emptied and removed each
// time), which BenchmarkStart, wrapping a bare exec.Cmd, leaves out.
func BenchmarkCommand(b *testing.B) {
	p, err := sandbox.New(sandbox.WorkspaceWrite, b.TempDir(), sandbox.Config{}, sandbox.StandardProtected)
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if err := sandbox.Command(b.Context(), p, "/bin/true").Run(); err != nil {
			b.Fatal(err)
		}
	}
}
