package sandbox_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/quiverkit/quiver/sandbox"
)

// TestReadWorkspace: under [sandbox] read = "workspace" a confined process
// reads the workspace, a writable root and its own TMPDIR, and runs the
// system's programs, but reads no file outside them (`cat ~/file`), in
// either confined scope; under the default it reads that file, so the limit
// is what refuses it.
func TestReadWorkspace(t *testing.T) {
	home := t.TempDir()
	if err := os.WriteFile(filepath.Join(home, "somefile-outside"), []byte("outside-secret\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("HOME", home)
	cat := func(p *sandbox.Profile, ws, line string) (string, error) {
		proc := sandbox.Command(context.Background(), p, "/bin/sh", "-c", line)
		var out bytes.Buffer
		proc.Dir, proc.Stdout, proc.Stderr = ws, &out, &out
		err := proc.Run()
		return out.String(), err
	}
	for _, scope := range []sandbox.WriteScope{sandbox.WorkspaceWrite, sandbox.ReadOnly} {
		t.Run(string(scope), func(t *testing.T) {
			root := t.TempDir()
			if err := os.WriteFile(filepath.Join(root, "root.txt"), []byte("in-root\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			open, ws, _ := profile(t, scope, sandbox.Config{WritableRoots: []string{root}})
			if out, err := cat(open, ws, "cat ~/somefile-outside"); err != nil || !strings.Contains(out, "outside-secret") {
				t.Fatalf("under the default reads, cat ~/somefile-outside: %v\n%s", err, out)
			}
			p, ws, _ := profile(t, scope, sandbox.Config{WritableRoots: []string{root}, Read: sandbox.ReadScope{Workspace: true}})
			if err := os.WriteFile(filepath.Join(ws, "in.txt"), []byte("in-workspace\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			for _, c := range []struct {
				line, want string
			}{
				{"cat in.txt", "in-workspace"},
				{"cat " + filepath.Join(ws, "in.txt"), "in-workspace"},
				{"cat " + filepath.Join(root, "root.txt"), "in-root"},
				{"/usr/bin/env printf 'from /usr/bin\\n'; ls /usr/bin | grep -c . >/dev/null && echo listed", "listed"},
				{`ls "$TMPDIR" && echo tmp-readable`, "tmp-readable"}, // its entries are read
			} {
				if out, err := cat(p, ws, c.line); err != nil || !strings.Contains(out, c.want) {
					t.Errorf("%s: %v\n%s", c.line, err, out)
				}
			}
			if scope == sandbox.WorkspaceWrite {
				if out, err := cat(p, ws, `echo back > "$TMPDIR/t" && cat "$TMPDIR/t"`); err != nil || !strings.Contains(out, "back") {
					t.Errorf("the call's TMPDIR does not read back: %v\n%s", err, out)
				}
			}
			for _, c := range []struct{ line, leak string }{
				{"cat ~/somefile-outside", "outside-secret"},
				{"cat " + filepath.Join(home, "somefile-outside"), "outside-secret"},
				{"ls ~", "somefile"}, // the directory's names are not read either
			} {
				if out, err := cat(p, ws, c.line); err == nil || strings.Contains(out, c.leak) {
					t.Errorf("%s read outside the workspace: %v\n%s", c.line, err, out)
				}
			}
		})
	}
}

// TestInspectReportsReads: `quiver sandbox check` says, for each confined
// write scope, which reads [sandbox] read leaves a process.
func TestInspectReportsReads(t *testing.T) {
	for _, c := range []struct {
		read sandbox.ReadScope
		want string
	}{
		{sandbox.ReadScope{}, `reads everything the user can, but the paths a read deny masks ([sandbox] read = "all")`},
		{sandbox.ReadScope{Workspace: true}, `reads only the workspace, writable_roots, the call's TMPDIR and the system's program directories`},
	} {
		r := sandbox.Inspect(sandbox.Config{Read: c.read})
		for _, p := range r.Profiles {
			if p.Scope == sandbox.Unrestricted {
				continue
			}
			if !strings.Contains(strings.Join(p.Enforces, "\n"), c.want) {
				t.Errorf("read = %s, %s enforces %q, want a line %q", c.read, p.Scope, p.Enforces, c.want)
			}
		}
	}
}
