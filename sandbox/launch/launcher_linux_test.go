package launch

import (
	"os"
	"path/filepath"
	"testing"
)

// TestLauncherChoice: the launcher is the quiver-sandbox beside the running
// executable only when nothing a confined process or the call's
// environment controls could have put it there; every planted spelling
// falls back to the running executable.
func TestLauncherChoice(t *testing.T) {
	base := t.TempDir()
	ws, extra, tmp := filepath.Join(base, "ws"), filepath.Join(base, "cache"), filepath.Join(base, "tmp")
	mkdirs(t, ws, extra, tmp, filepath.Join(ws, "bin"), filepath.Join(extra, "bin"), filepath.Join(tmp, "bin"))
	s := Spec{Workspace: ws, Writable: []string{extra}, TempDir: tmp}
	good := func(dir string) string { // a trustworthy install: dir/quiver and dir/quiver-sandbox
		mkdirs(t, dir)
		writeExe(t, filepath.Join(dir, "quiver"), 0o755)
		writeExe(t, filepath.Join(dir, SiblingName), 0o755)
		return filepath.Join(dir, "quiver")
	}
	for _, tc := range []struct {
		name  string
		setup func() (exe string, s Spec)
		want  string // "sibling" or "self"
	}{
		{"a sibling outside every writable tree", func() (string, Spec) { return good(filepath.Join(base, "install")), s }, "sibling"},
		{"QUIVER_SANDBOX_LAUNCHER names one: ignored", func() (string, Spec) {
			planted := filepath.Join(base, "elsewhere", SiblingName)
			mkdirs(t, filepath.Dir(planted))
			writeExe(t, planted, 0o755)
			t.Setenv("QUIVER_SANDBOX_LAUNCHER", planted)
			exe := filepath.Join(base, "lonely", "quiver")
			mkdirs(t, filepath.Dir(exe))
			writeExe(t, exe, 0o755)
			return exe, s
		}, "self"},
		{"a quiver built into the workspace", func() (string, Spec) { return good(filepath.Join(ws, "bin")), s }, "self"},
		{"read-only: an earlier call wrote it", func() (string, Spec) {
			r := s
			r.ReadOnly = true
			return good(filepath.Join(ws, "bin")), r
		}, "self"},
		{"in an extra writable root", func() (string, Spec) { return good(filepath.Join(extra, "bin")), s }, "self"},
		{"in the call's TMPDIR", func() (string, Spec) { return good(filepath.Join(tmp, "bin")), s }, "self"},
		{"the sibling is a link to a planted file", func() (string, Spec) {
			dir := filepath.Join(base, "linked")
			exe := good(dir)
			planted := filepath.Join(ws, "planted")
			writeExe(t, planted, 0o755)
			replaceWithLink(t, filepath.Join(dir, SiblingName), planted)
			return exe, s
		}, "self"},
		{"the sibling is a link to a trustworthy file", func() (string, Spec) {
			dir := filepath.Join(base, "linked-good")
			exe := good(dir)
			replaceWithLink(t, filepath.Join(dir, SiblingName), filepath.Join(base, "install", SiblingName))
			return exe, s
		}, "self"},
		{"the executable's directory is a link into the workspace", func() (string, Spec) {
			good(filepath.Join(ws, "bin"))
			link := filepath.Join(base, "bin-link")
			if err := os.Symlink(filepath.Join(ws, "bin"), link); err != nil {
				t.Fatal(err)
			}
			return filepath.Join(link, "quiver"), s
		}, "self"},
		{"a sibling others may write", func() (string, Spec) {
			exe := good(filepath.Join(base, "loose-file"))
			chmod(t, filepath.Join(base, "loose-file", SiblingName), 0o777)
			return exe, s
		}, "self"},
		{"a directory others may write", func() (string, Spec) {
			exe := good(filepath.Join(base, "loose-dir"))
			chmod(t, filepath.Join(base, "loose-dir"), 0o777)
			return exe, s
		}, "self"},
		{"not executable", func() (string, Spec) {
			exe := good(filepath.Join(base, "noexec"))
			chmod(t, filepath.Join(base, "noexec", SiblingName), 0o644)
			return exe, s
		}, "self"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			exe, spec := tc.setup()
			got := launcher(spec, exe)
			want := selfLauncher
			if tc.want == "sibling" {
				want = filepath.Join(filepath.Dir(exe), SiblingName)
			}
			if got != want {
				t.Errorf("launcher = %s, want %s (%v)", got, want, spec.TrustedSibling(filepath.Join(filepath.Dir(exe), SiblingName)))
			}
		})
	}
}

func mkdirs(t *testing.T, dirs ...string) {
	t.Helper()
	for _, d := range dirs {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
}

func writeExe(t *testing.T, path string, mode os.FileMode) {
	t.Helper()
	if err := os.WriteFile(path, []byte("#!/bin/sh\n"), mode); err != nil {
		t.Fatal(err)
	}
	chmod(t, path, mode)
}

func chmod(t *testing.T, path string, mode os.FileMode) {
	t.Helper()
	if err := os.Chmod(path, mode); err != nil {
		t.Fatal(err)
	}
}

func replaceWithLink(t *testing.T, path, target string) {
	t.Helper()
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, path); err != nil {
		t.Fatal(err)
	}
}
