package sandbox_test

import (
	"errors"
	"os/exec"
	"testing"

	"github.com/quiverkit/quiver/sandbox"
)

// TestNoProcessRefusesEveryStart: a NoProcess profile refuses to start
// anything, whatever its scope (confinement turned off included), and so does
// every profile a tool can derive from it; the profile it came from, and the
// nil profile, are untouched.
func TestNoProcessRefusesEveryStart(t *testing.T) {
	var unconfined *sandbox.Profile
	if err := unconfined.Wrap(exec.Command("true")); err != nil {
		t.Errorf("the nil profile: Wrap = %v", err)
	}
	dir := t.TempDir()
	for _, tt := range []struct {
		name  string
		scope sandbox.WriteScope
		cfg   sandbox.Config
	}{
		{"read-only", sandbox.ReadOnly, sandbox.Config{}},
		{"workspace-write", sandbox.WorkspaceWrite, sandbox.Config{}},
		{"unrestricted", sandbox.Unrestricted, sandbox.Config{}},
		{"confinement off", sandbox.WorkspaceWrite, sandbox.Config{Disabled: true}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			p, err := sandbox.New(tt.scope, dir, tt.cfg, nil)
			if err != nil {
				t.Fatal(err)
			}
			none := p.NoProcess()
			withTemp, remove, err := none.WithTempDir()
			if err != nil {
				t.Fatal(err)
			}
			defer remove()
			derived := map[string]*sandbox.Profile{
				"NoProcess":   none,
				"With":        none.With(sandbox.Unrestricted),
				"WithNetwork": none.WithNetwork(),
				"ReadingOnly": none.ReadingOnly(dir),
				"WithTempDir": withTemp,
			}
			for name, q := range derived {
				cmd := exec.Command("true")
				path := cmd.Path
				if err := q.Wrap(cmd); !errors.Is(err, sandbox.ErrNoProcess) {
					t.Errorf("%s: Wrap = %v, want ErrNoProcess", name, err)
				}
				if cmd.Path != path {
					t.Errorf("%s: a refused command was rewritten to start %s", name, cmd.Path)
				}
			}
			if err := p.Wrap(exec.Command("true")); errors.Is(err, sandbox.ErrNoProcess) {
				t.Errorf("the profile NoProcess was made from refuses too")
			}
		})
	}
}
