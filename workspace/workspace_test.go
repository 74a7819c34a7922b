package workspace_test

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/quiverkit/quiver/tool"
	"github.com/quiverkit/quiver/workspace"
)

// tree builds a workspace with a file, a directory, links that stay inside
// and links that lead out, and a secret outside it.
func tree(t *testing.T) (*workspace.Workspace, string, string) {
	t.Helper()
	base := t.TempDir()
	root := filepath.Join(base, "root")
	outside := filepath.Join(base, "outside")
	for _, d := range []string{root, outside, filepath.Join(root, "dir")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	write := func(p, s string) {
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(root, "a.txt"), "inside")
	write(filepath.Join(root, "dir", "b.txt"), "deeper")
	write(filepath.Join(outside, "secret"), "secret")
	links := map[string]string{
		"in-link":   "a.txt",
		"dir-link":  "dir",
		"out-rel":   "../outside/secret",
		"out-abs":   filepath.Join(outside, "secret"),
		"out-dir":   "../outside",
		"loop-a":    "loop-b",
		"loop-b":    "loop-a",
		"self-loop": "self-loop",
	}
	for name, target := range links {
		if err := os.Symlink(target, filepath.Join(root, name)); err != nil {
			t.Fatal(err)
		}
	}
	ws, err := workspace.Open(root, workspace.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ws.Close() })
	return ws, root, outside
}

func TestOpenConfinement(t *testing.T) {
	ws, root, outside := tree(t)
	cases := []struct {
		path string
		want tool.Code // "" means it opens
	}{
		{"a.txt", ""},
		{"./dir/../a.txt", ""},
		{filepath.Join(root, "a.txt"), ""},
		{"in-link", ""},
		{"dir-link/b.txt", ""},
		{"../outside/secret", tool.CodeSandboxViolation},
		{"dir/../../outside/secret", tool.CodeSandboxViolation},
		{"../../../../../../etc/passwd", tool.CodeSandboxViolation},
		{filepath.Join(outside, "secret"), tool.CodeSandboxViolation},
		{"/etc/passwd", tool.CodeSandboxViolation},
		{"/proc/self/root/etc/passwd", tool.CodeSandboxViolation},
		{"out-rel", tool.CodeSandboxViolation},
		{"out-abs", tool.CodeSandboxViolation},
		{"out-dir/secret", tool.CodeSandboxViolation},
		{"loop-a", tool.CodeSandboxViolation},
		{"self-loop", tool.CodeSandboxViolation},
		{"a\x00b", tool.CodeInvalidArguments},
		{"", tool.CodeInvalidArguments},
		{strings.Repeat("x", 10000), tool.CodeInvalidArguments},
		{"missing.txt", tool.CodeNotFound},
		{"dir", tool.CodeExecutionFailed},
		{"a.txt/child", tool.CodeExecutionFailed},
	}
	for _, c := range cases {
		f, err := ws.Open(c.path)
		if f != nil {
			f.Close()
		}
		if got := tool.CodeOf(err); got != c.want {
			t.Errorf("Open(%.60q) = %v; want code %q", c.path, err, c.want)
		}
		if err != nil && strings.Contains(err.Error(), "secret\n") {
			t.Errorf("Open(%q) leaked content in its error", c.path)
		}
	}
}

func TestRel(t *testing.T) {
	ws, root, _ := tree(t)
	for in, want := range map[string]string{
		"a.txt":                          "a.txt",
		"./a.txt":                        "a.txt",
		"dir/../a.txt":                   "a.txt",
		".":                              ".",
		root:                             ".",
		filepath.Join(root, "dir/b.txt"): "dir/b.txt",
	} {
		got, err := ws.Rel(in)
		if err != nil || got != want {
			t.Errorf("Rel(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
}

func TestWriteFileIsAtomic(t *testing.T) {
	ws, root, _ := tree(t)
	if err := os.Chmod(filepath.Join(root, "a.txt"), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Run("a failure before rename leaves the old content and no temp file", func(t *testing.T) {
		restore := workspace.SetBeforeRename(func(string) error { return errors.New("disk on fire") })
		defer restore()
		err := ws.WriteFile("a.txt", []byte("new"), 0o644)
		if err == nil || !strings.Contains(err.Error(), "disk on fire") {
			t.Fatalf("WriteFile = %v", err)
		}
		assertFile(t, filepath.Join(root, "a.txt"), "inside")
		assertNoTemp(t, root)
	})
	t.Run("a reader that fails mid-stream leaves the old content", func(t *testing.T) {
		err := ws.WriteFileFrom("a.txt", io.MultiReader(strings.NewReader("half"), failingReader{}), 0o644)
		if err == nil {
			t.Fatal("WriteFileFrom succeeded")
		}
		assertFile(t, filepath.Join(root, "a.txt"), "inside")
		assertNoTemp(t, root)
	})
	t.Run("success replaces content and keeps the mode", func(t *testing.T) {
		if err := ws.WriteFile("a.txt", []byte("new"), 0o644); err != nil {
			t.Fatal(err)
		}
		assertFile(t, filepath.Join(root, "a.txt"), "new")
		if fi, _ := os.Stat(filepath.Join(root, "a.txt")); fi.Mode().Perm() != 0o600 {
			t.Errorf("mode = %v, want 0600", fi.Mode().Perm())
		}
		assertNoTemp(t, root)
	})
	t.Run("writing through a link inside writes its target and keeps the link", func(t *testing.T) {
		if err := ws.WriteFile("in-link", []byte("via link"), 0o644); err != nil {
			t.Fatal(err)
		}
		assertFile(t, filepath.Join(root, "a.txt"), "via link")
		if fi, _ := os.Lstat(filepath.Join(root, "in-link")); fi.Mode()&fs.ModeSymlink == 0 {
			t.Error("the link was replaced by a file")
		}
	})
	t.Run("escapes and non-files are refused", func(t *testing.T) {
		for p, want := range map[string]tool.Code{
			"out-rel": tool.CodeSandboxViolation, "out-abs": tool.CodeSandboxViolation,
			"../x": tool.CodeSandboxViolation, "out-dir/new": tool.CodeSandboxViolation,
			"dir": tool.CodeExecutionFailed, "nodir/x": tool.CodeNotFound,
		} {
			if err := ws.WriteFile(p, []byte("x"), 0o644); tool.CodeOf(err) != want {
				t.Errorf("WriteFile(%q) = %v, want %s", p, err, want)
			}
		}
	})
}

type failingReader struct{}

func (failingReader) Read([]byte) (int, error) { return 0, errors.New("source broke") }

func assertFile(t *testing.T, p, want string) {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil || string(b) != want {
		t.Errorf("%s = %q, %v; want %q", p, b, err, want)
	}
}

func assertNoTemp(t *testing.T, root string) {
	t.Helper()
	filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if strings.Contains(d.Name(), ".quiver-") {
			t.Errorf("temporary file left: %s", p)
		}
		return nil
	})
}

func TestAllowOutside(t *testing.T) {
	base := t.TempDir()
	ws, err := workspace.Open(base, workspace.Options{AllowOutside: true})
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	other := filepath.Join(t.TempDir(), "x.txt")
	if err := ws.WriteFile(other, []byte("out"), 0o644); err != nil {
		t.Fatalf("unrestricted write outside: %v", err)
	}
	assertFile(t, other, "out")
	if _, err := ws.Rel("../relative-escape"); tool.CodeOf(err) != tool.CodeSandboxViolation {
		t.Errorf("relative escape allowed in unrestricted mode: %v", err)
	}
}

// FuzzOpen holds the confinement for any path: whatever Open accepts is a
// regular file inside the root.
func FuzzOpen(f *testing.F) {
	for _, s := range []string{"a.txt", "../outside/secret", "out-rel", "dir-link/b.txt", "/proc/self/root/etc/passwd", "./././a.txt", "dir//..//a.txt", "loop-a", "\x00", "dir/../../root/a.txt"} {
		f.Add(s)
	}
	base := f.TempDir()
	root := filepath.Join(base, "root")
	os.MkdirAll(filepath.Join(root, "dir"), 0o755)
	os.MkdirAll(filepath.Join(base, "outside"), 0o755)
	os.WriteFile(filepath.Join(root, "a.txt"), []byte("inside"), 0o644)
	os.WriteFile(filepath.Join(root, "dir", "b.txt"), []byte("inside"), 0o644)
	os.WriteFile(filepath.Join(base, "outside", "secret"), []byte("secret"), 0o644)
	os.Symlink("../outside/secret", filepath.Join(root, "out-rel"))
	os.Symlink("dir", filepath.Join(root, "dir-link"))
	os.Symlink("loop-a", filepath.Join(root, "loop-a"))
	ws, err := workspace.Open(root, workspace.Options{})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, p string) {
		file, err := ws.Open(p)
		if err != nil {
			if tool.CodeOf(err) == "" {
				t.Fatalf("Open(%q): error without a code: %v", p, err)
			}
			return
		}
		defer file.Close()
		b, _ := io.ReadAll(file)
		if string(b) != "inside" {
			t.Fatalf("Open(%q) read %q", p, b)
		}
		if rel, err := ws.Rel(p); err != nil || strings.HasPrefix(rel, "..") {
			t.Fatalf("Open(%q) succeeded but Rel = %q, %v", p, rel, err)
		}
	})
}
