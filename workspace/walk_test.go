package workspace_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/quiverkit/quiver/workspace"
)

func build(t *testing.T, files map[string]string) string {
	t.Helper()
	root := t.TempDir()
	for p, content := range files {
		full := filepath.Join(root, p)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

func walk(t *testing.T, root, dir string, opts workspace.WalkOptions) []string {
	t.Helper()
	ws, err := workspace.Open(root, workspace.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	var got []string
	err = ws.Walk(dir, opts, func(rel string, d fs.DirEntry) error {
		if !d.IsDir() {
			got = append(got, rel)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return got
}

func TestWalkHonoursIgnoreFiles(t *testing.T) {
	root := build(t, map[string]string{
		".gitignore":        "*.log\n/build\nnode_modules/\n!keep.log\n# comment\n\\#hash\ntmp/**/cache\n",
		".git/info/exclude": "excluded.txt\n",
		".git/HEAD":         "ref: x",
		".ignore":           "secret*\n",
		".quiverignore":     "generated/\n",
		"a.log":             "",
		"keep.log":          "",
		"main.go":           "",
		"#hash":             "",
		"excluded.txt":      "",
		"secret.key":        "",
		"build/out":         "",
		"src/build/keep.go": "",
		"src/node_modules":  "a file, not a directory",
		"node_modules/x.js": "",
		"generated/g.go":    "",
		"tmp/a/b/cache":     "",
		"tmp/a/b/kept":      "",
		"src/.gitignore":    "*.tmp\n!important.tmp\n/local.go\n",
		"src/x.tmp":         "",
		"src/important.tmp": "",
		"src/local.go":      "",
		"src/deep/local.go": "",
		"src/deep/y.log":    "",
		".hidden/file":      "",
		"src/.env":          "",
	})
	got := walk(t, root, ".", workspace.WalkOptions{})
	want := []string{"keep.log", "main.go", "src/build/keep.go", "src/deep/local.go", "src/important.tmp", "src/node_modules", "tmp/a/b/kept"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("walk (-want +got):\n%s", diff)
	}
	t.Run("starting below the root applies the ancestors' ignore files", func(t *testing.T) {
		got := walk(t, root, "src", workspace.WalkOptions{})
		want := []string{"src/build/keep.go", "src/deep/local.go", "src/important.tmp", "src/node_modules"}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("walk src (-want +got):\n%s", diff)
		}
	})
	t.Run("hidden entries when asked, never .git", func(t *testing.T) {
		got := walk(t, root, ".", workspace.WalkOptions{Hidden: true})
		for _, p := range got {
			if p == ".git/HEAD" {
				t.Error(".git was walked")
			}
		}
		if !contains(got, ".hidden/file") || !contains(got, "src/.env") || !contains(got, ".gitignore") {
			t.Errorf("hidden entries missing: %v", got)
		}
	})
	t.Run("NoIgnore shows everything but .git and hidden", func(t *testing.T) {
		got := walk(t, root, ".", workspace.WalkOptions{NoIgnore: true})
		if !contains(got, "a.log") || !contains(got, "build/out") || !contains(got, "generated/g.go") {
			t.Errorf("NoIgnore hid files: %v", got)
		}
	})
	t.Run("MaxDepth", func(t *testing.T) {
		got := walk(t, root, ".", workspace.WalkOptions{MaxDepth: 1})
		if diff := cmp.Diff([]string{"keep.log", "main.go"}, got); diff != "" {
			t.Errorf("depth 1 (-want +got):\n%s", diff)
		}
	})
}

func TestWalkDoesNotFollowSymlinks(t *testing.T) {
	root := build(t, map[string]string{"a/f": ""})
	outside := build(t, map[string]string{"secret": ""})
	os.Symlink(outside, filepath.Join(root, "out"))
	os.Symlink(".", filepath.Join(root, "a", "loop"))
	ws, _ := workspace.Open(root, workspace.Options{})
	defer ws.Close()
	var seen []string
	if err := ws.Walk(".", workspace.WalkOptions{}, func(rel string, d fs.DirEntry) error {
		seen = append(seen, rel)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"a", "a/f", "a/loop", "out"}, seen); diff != "" {
		t.Errorf("walk (-want +got):\n%s", diff)
	}
}

func contains(list []string, s string) bool {
	for _, e := range list {
		if e == s {
			return true
		}
	}
	return false
}
