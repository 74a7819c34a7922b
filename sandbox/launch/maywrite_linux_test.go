package launch

import (
	"os"
	"path/filepath"
	"testing"
)

// TestMayWrite: what a confined process could write or create, symbolic
// links resolved, so that Quiver never starts a program its tools could
// have planted.
func TestMayWrite(t *testing.T) {
	base := t.TempDir()
	ws := filepath.Join(base, "ws")
	extra := filepath.Join(base, "cache")
	outside := filepath.Join(base, "bin")
	for _, d := range []string{ws, extra, outside, filepath.Join(ws, "sub")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	// A link outside pointing in, and a link inside pointing out.
	if err := os.Symlink(filepath.Join(ws, "sub"), filepath.Join(outside, "into-ws")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(ws, "out")); err != nil {
		t.Fatal(err)
	}
	// The workspace itself reached through a link.
	wsLink := filepath.Join(base, "ws-link")
	if err := os.Symlink(ws, wsLink); err != nil {
		t.Fatal(err)
	}
	write := Spec{Workspace: ws, Writable: []string{extra}}
	read := Spec{Workspace: ws, Writable: []string{extra}, ReadOnly: true}
	for _, tc := range []struct {
		path        string
		write, read bool
	}{
		{filepath.Join(ws, "quiver-sandbox"), true, false},                // does not exist: can be created
		{filepath.Join(ws, "sub", "deep", "quiver-models"), true, false},  // under a directory still to make
		{filepath.Join(extra, "quiver-models"), true, false},              // a writable root; read-only writes nothing
		{filepath.Join(outside, "quiver-models"), false, false},           // beside, outside every root
		{filepath.Join(outside, "into-ws", "quiver-models"), true, false}, // a link that leads in
		{filepath.Join(ws, "out", "quiver-models"), true, false},          // a link that leads out can be swapped for a directory
		{filepath.Join(wsLink, "quiver-models"), true, false},             // the workspace by another name
		{filepath.Join(ws, "..", "bin", "quiver-models"), false, false},   // dot-dot out
		{filepath.Join(ws, "sub", "..", "quiver-models"), true, false},    // dot-dot within
	} {
		if got := write.MayWrite(tc.path); got != tc.write {
			t.Errorf("workspace-write: MayWrite(%s) = %v, want %v", tc.path, got, tc.write)
		}
		if got := read.MayWrite(tc.path); got != tc.read {
			t.Errorf("read-only: MayWrite(%s) = %v, want %v", tc.path, got, tc.read)
		}
	}
}

// FuzzMayWrite: whatever the spelling, a path that names something in the
// workspace is writable, and one that names something in a tree with no
// link into the workspace is not.
func FuzzMayWrite(f *testing.F) {
	base := f.TempDir()
	ws, outside := filepath.Join(base, "ws"), filepath.Join(base, "outside")
	for _, d := range []string{ws, outside} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			f.Fatal(err)
		}
	}
	for _, s := range []string{"quiver-models", "a/../b", "../outside/x", "./x", "x/../../ws/y", "..", "a//b/", "\x00", "../ws/../outside/z"} {
		f.Add(s)
	}
	spec := Spec{Workspace: ws}
	f.Fuzz(func(t *testing.T, rel string) {
		for _, root := range []string{ws, outside} {
			p := filepath.Join(root, rel)
			got := spec.MayWrite(p)
			switch {
			case within(ws, filepath.Clean(p)) && !got:
				t.Errorf("MayWrite(%q) = false for a path in the workspace", p)
			case within(outside, filepath.Clean(p)) && got:
				t.Errorf("MayWrite(%q) = true for a path outside it, with no link in", p)
			}
		}
	})
}
