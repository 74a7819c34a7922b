package workspace_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/quiverkit/quiver/tool"
	"github.com/quiverkit/quiver/workspace"
)

// linkedTree is the red-team layout: links that stay inside the workspace
// but lead away from where they sit.
func linkedTree(t *testing.T) (*workspace.Workspace, string, string) {
	t.Helper()
	base := t.TempDir()
	root, outside := filepath.Join(base, "root"), filepath.Join(base, "outside")
	for _, d := range []string{filepath.Join(root, "src", "deep"), filepath.Join(root, ".git"), outside} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{".env", "notes.txt", ".git/config", "src/a.go", "src/deep/x"} {
		if err := os.WriteFile(filepath.Join(root, f), []byte(f), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	links := map[string]string{
		"src/up":         "..",
		"src/envlink":    "../.env",
		"src/gitlink":    "../.git",
		"src/chain":      "envlink",
		"src/d":          "deep",
		"src/deep/back":  "../../notes.txt",
		"src/deep/upper": "..",
		"src/abs":        filepath.Join(root, ".env"),
		"src/out":        "../../outside",
		"src/loop":       "loop",
		"src/dangling":   "../new/file.txt",
		"src/ghost":      "missing/../../.env",
		"deeplink":       "src/deep",
		"src/deep/sib":   "../a.go",
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

func TestResolve(t *testing.T) {
	ws, root, _ := linkedTree(t)
	cases := []struct {
		name, path, want string
		code             tool.Code
	}{
		{"a plain file is itself", "src/a.go", "src/a.go", ""},
		{"spelling is cleaned", "./src//deep/../a.go", "src/a.go", ""},
		{"an absolute path inside is relative", filepath.Join(root, "src", "a.go"), "src/a.go", ""},
		{"the root is .", ".", ".", ""},
		{"a file link resolves to its target", "src/envlink", ".env", ""},
		{"a chain of links is followed", "src/chain", ".env", ""},
		{"a directory link resolves what is below it", "src/up/notes.txt", "notes.txt", ""},
		{"a link to .git reaches .git/config", "src/gitlink/config", ".git/config", ""},
		{"a file not there yet resolves its parent", "src/up/new.txt", "new.txt", ""},
		{"a directory not there yet keeps the rest as written", "src/up/new/dir/f", "new/dir/f", ""},
		{"a dangling link resolves to where it would create", "src/dangling", "new/file.txt", ""},
		{".. after a link climbs from the target, as the kernel does", "src/d/upper/a.go", "src/a.go", ""},
		{"links relative to a linked directory", "src/d/back", "notes.txt", ""},
		{"a link out of the workspace is refused", "src/out/secret", "", tool.CodeSandboxViolation},
		{"an absolute link is refused, as os.Root refuses it", "src/abs", "", tool.CodeSandboxViolation},
		{"a loop is refused", "src/loop", "", tool.CodeSandboxViolation},
		{"climbing out by spelling is refused", "../outside/secret", "", tool.CodeSandboxViolation},
		{"a spelled .. is cleaned first, as every open does", "src/missing/../../.env", ".env", ""},
		{"a missing directory then a link's .. stops, as the kernel does", "src/ghost", "", tool.CodeNotFound},
		{"a link's .. climbs from where the link really is", "deeplink/sib", "src/a.go", ""},
		{"an empty path is refused", "", "", tool.CodeInvalidArguments},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := ws.Resolve(c.path)
			if c.code != "" {
				if tool.CodeOf(err) != c.code {
					t.Fatalf("Resolve(%q) = %q, %v; want code %s", c.path, got, err, c.code)
				}
				return
			}
			if err != nil || got != c.want {
				t.Fatalf("Resolve(%q) = %q, %v; want %q", c.path, got, err, c.want)
			}
		})
	}
}

// TestResolveAgreesWithTheKernel checks every existing path the table names
// against what the kernel opens: Resolve must name the same file.
func TestResolveAgreesWithTheKernel(t *testing.T) {
	ws, root, _ := linkedTree(t)
	for _, p := range []string{"src/envlink", "src/chain", "src/up/notes.txt", "src/gitlink/config",
		"src/d/upper/a.go", "src/d/back", "src/up/src/up/src/d/x", "deeplink/sib"} {
		assertSameFile(t, ws, root, p)
	}
}

func assertSameFile(t *testing.T, ws *workspace.Workspace, root, p string) {
	t.Helper()
	got, err := ws.Resolve(p)
	if err != nil {
		t.Fatalf("Resolve(%q): %v", p, err)
	}
	opened, err := ws.Stat(p)
	if err != nil {
		t.Fatalf("Stat(%q): %v", p, err)
	}
	named, err := os.Lstat(filepath.Join(root, filepath.FromSlash(got)))
	if err != nil || !os.SameFile(opened, named) {
		t.Errorf("Resolve(%q) = %q, which is not the file the kernel opens (%v)", p, got, err)
	}
}

// TestWriteThroughLinkedDirectories is the write side of the same
// agreement: a link whose target climbs with .. from inside a linked
// directory is written where the kernel resolves it, not where a lexical
// join of the spelling would put it.
func TestWriteThroughLinkedDirectories(t *testing.T) {
	ws, root, _ := linkedTree(t)
	if err := ws.WriteFile("deeplink/sib", []byte("changed"), 0o644); err != nil {
		t.Fatal(err)
	}
	assertFile(t, filepath.Join(root, "src", "a.go"), "changed")
	if _, err := os.Lstat(filepath.Join(root, "a.go")); err == nil {
		t.Error("the write went to a.go, a lexical join of the link's spelling")
	}
	if err := ws.WriteFile("src/up/new.txt", []byte("new"), 0o644); err != nil {
		t.Fatal(err)
	}
	assertFile(t, filepath.Join(root, "new.txt"), "new")
}
