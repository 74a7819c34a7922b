package patch

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/quiverkit/quiver/tool"
	"github.com/quiverkit/quiver/workspace"
)

// newWorkspace writes files (path → content) into a temporary directory and
// opens it as a workspace.
func newWorkspace(t *testing.T, files map[string]string) (*workspace.Workspace, string) {
	t.Helper()
	dir := t.TempDir()
	for name, data := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ws, err := workspace.Open(dir, workspace.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ws.Close() })
	return ws, dir
}

// tree returns every regular file under dir (path → content) and every
// directory as path + "/".
func tree(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || p == dir {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		rel = filepath.ToSlash(rel)
		switch {
		case d.IsDir():
			out[rel+"/"] = ""
		case d.Type()&fs.ModeSymlink != 0:
			target, _ := os.Readlink(p)
			out[rel+"@"] = target
		default:
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			out[rel] = string(b)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func apply(t *testing.T, fsys FS, text string) (*Result, error) {
	t.Helper()
	p, err := Parse(text)
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	return Apply(context.Background(), fsys, p)
}

func begin(body string) string { return "*** Begin Patch\n" + body + "\n*** End Patch" }

func TestApplyUpdatesOneFile(t *testing.T) {
	tests := []struct {
		name, file, patch, want string
	}{
		{"exact context", "a\nb\nc\n", begin("*** Update File: f\n@@\n a\n-b\n+B\n c"), "a\nB\nc\n"},
		{"trailing whitespace in the file is kept on context lines", "a  \nb\nc\t\n", begin("*** Update File: f\n@@\n a\n-b\n+B\n c"), "a  \nB\nc\t\n"},
		{"uniformly under-indented context re-indents added lines", "    if x:\n        y()\n", begin("*** Update File: f\n@@\n if x:\n-    y()\n+    z()"), "    if x:\n        z()\n"},
		{"uniformly over-indented context dedents added lines", "if x:\n  y()\n", begin("*** Update File: f\n@@\n     if x:\n-      y()\n+      z()\n+      w()"), "if x:\n  z()\n  w()\n"},
		{"mixed indentation drift leaves added lines as written", "def f():\n        y()\n", begin("*** Update File: f\n@@\n def f():\n-    y()\n+    z()"), "def f():\n    z()\n"},
		{"Unicode punctuation folds to ASCII", "say(\u201chi\u201d) \u2014 ok\nend\n", begin("*** Update File: f\n@@\n-say(\"hi\") - ok\n+say(\"hello\") - ok\n end"), "say(\"hello\") - ok\nend\n"},
		{"exact match below beats a loose one above", "  x\nx\n", begin("*** Update File: f\n@@\n-x\n+y"), "  x\ny\n"},
		{"no final newline stays so", "a\nb", begin("*** Update File: f\n@@\n a\n-b\n+c"), "a\nc"},
		{"no final newline, line appended", "a\nb", begin("*** Update File: f\n@@\n b\n+c"), "a\nb\nc"},
		{"final newline kept", "a\nb\n", begin("*** Update File: f\n@@\n-b\n+c"), "a\nc\n"},
		{"marker after removed line adds the final newline", "a\nb", begin("*** Update File: f\n@@\n a\n-b\n\\ No newline at end of file\n+b"), "a\nb\n"},
		{"marker after added line drops the final newline", "a\nb\n", begin("*** Update File: f\n@@\n a\n-b\n+b\n\\ No newline at end of file"), "a\nb"},
		{"marker on a hunk away from the end changes nothing", "a\nb\nc", begin("*** Update File: f\n@@\n-a\n+A\n\\ No newline at end of file"), "A\nb\nc"},
		{"CRLF file gets CRLF added lines", "a\r\nb\r\nc\r\n", begin("*** Update File: f\n@@\n a\n-b\n+B1\n+B2"), "a\r\nB1\r\nB2\r\nc\r\n"},
		{"header matches the start of a line", "class A:\n    def f(self, x):\n        return 1\n", begin("*** Update File: f\n@@ def f\n-        return 1\n+        return 2"), "class A:\n    def f(self, x):\n        return 2\n"},
		{"header prefix does not stop inside a word", "def foo():\n    return 1\ndef f(x):\n    return 1\n", begin("*** Update File: f\n@@ def f\n-    return 1\n+    return 2"), "def foo():\n    return 1\ndef f(x):\n    return 2\n"},
		{"stacked headers pick the second class", "class A:\n  def f():\n    return 1\nclass B:\n  def f():\n    return 1\n",
			begin("*** Update File: f\n@@ class B:\n@@   def f():\n-    return 1\n+    return 2"), "class A:\n  def f():\n    return 1\nclass B:\n  def f():\n    return 2\n"},
		{"insertion goes right after the header", "def f():\n    pass\ndef g():\n    pass\n", begin("*** Update File: f\n@@ def g():\n+    \"\"\"g.\"\"\""), "def f():\n    pass\ndef g():\n    \"\"\"g.\"\"\"\n    pass\n"},
		{"insertion without header goes at the end", "a\n", begin("*** Update File: f\n@@\n+b"), "a\nb\n"},
		{"insertion into an empty file", "", begin("*** Update File: f\n@@\n+x"), "x\n"},
		{"End of File picks the last occurrence", "x\ny\nx\n", begin("*** Update File: f\n@@\n-x\n+z\n*** End of File"), "x\ny\nz\n"},
		{"trailing blank line of a hunk is dropped when it does not match", "a\nb\nc\n", begin("*** Update File: f\n@@\n-a\n+A\n\n@@\n-c\n+C"), "A\nb\nC\n"},
		{"several hunks in order", "1\n2\n3\n4\n5\n6\n", begin("*** Update File: f\n@@\n-2\n+two\n@@\n 4\n-5\n+five"), "1\ntwo\n3\n4\nfive\n6\n"},
		{"every line removed", "a\nb\n", begin("*** Update File: f\n@@\n-a\n-b"), ""},
		{"unified line number picks among equal contexts", "x\nold\nx\nold\n", "--- a/f\n+++ b/f\n@@ -3,2 +3,2 @@\n x\n-old\n+new\n", "x\nold\nx\nnew\n"},
		{"unified insertion at a line number", "1\n2\n3\n", "--- a/f\n+++ b/f\n@@ -1,0 +2 @@\n+1.5\n", "1\n1.5\n2\n3\n"},
		{"unified hunk found when its line number is stale", "0\n0\n1\n2\n3\n", "--- a/f\n+++ b/f\n@@ -1,3 +1,3 @@\n 1\n-2\n+two\n 3\n", "0\n0\n1\ntwo\n3\n"},
		{"unified no-newline marker on new side", "a\nb\n", "--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n a\n-b\n+c\n\\ No newline at end of file\n", "a\nc"},
		{"unified without markers keeps a missing final newline", "a\nb", "--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n a\n-b\n+c\n", "a\nc"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ws, dir := newWorkspace(t, map[string]string{"f": tt.file})
			if _, err := apply(t, ws, tt.patch); err != nil {
				t.Fatalf("Apply: %v", err)
			}
			got, _ := os.ReadFile(filepath.Join(dir, "f"))
			if diff := cmp.Diff(tt.want, string(got)); diff != "" {
				t.Errorf("content (-want +got):\n%s", diff)
			}
		})
	}
}

func TestApplyReportsEachFile(t *testing.T) {
	ws, dir := newWorkspace(t, map[string]string{"u": "a\nb\n", "d": "1\n2\n3\n", "m": "x\n"})
	res, err := apply(t, ws, begin("*** Add File: sub/dir/n\n+1\n+2\n*** Update File: u\n@@\n-a\n+A\n+A2\n*** Delete File: d\n*** Update File: m\n*** Move to: moved/m2\n@@\n-x\n+y"))
	if err != nil {
		t.Fatal(err)
	}
	want := []FileResult{
		{Op: OpAdd, Path: "sub/dir/n", Added: 2},
		{Op: OpUpdate, Path: "u", Added: 2, Removed: 1},
		{Op: OpDelete, Path: "d", Removed: 3},
		{Op: OpMove, Path: "moved/m2", From: "m", Added: 1, Removed: 1},
	}
	if diff := cmp.Diff(want, res.Files); diff != "" {
		t.Errorf("result (-want +got):\n%s", diff)
	}
	wantTree := map[string]string{"sub/": "", "sub/dir/": "", "sub/dir/n": "1\n2\n", "u": "A\nA2\nb\n", "moved/": "", "moved/m2": "y\n"}
	if diff := cmp.Diff(wantTree, tree(t, dir)); diff != "" {
		t.Errorf("tree (-want +got):\n%s", diff)
	}
}

func TestApplySeesEarlierOperationsOfThePatch(t *testing.T) {
	tests := []struct {
		name  string
		files map[string]string
		patch string
		want  map[string]string
	}{
		{"add then update", nil, begin("*** Add File: a\n+1\n*** Update File: a\n@@\n-1\n+2"), map[string]string{"a": "2\n"}},
		{"delete then add", map[string]string{"a": "old\n"}, begin("*** Delete File: a\n*** Add File: a\n+new"), map[string]string{"a": "new\n"}},
		{"move onto a file deleted earlier", map[string]string{"a": "A\n", "b": "B\n"}, begin("*** Delete File: b\n*** Update File: a\n*** Move to: b\n@@\n-A\n+A2"), map[string]string{"b": "A2\n"}},
		{"move then update the new name", map[string]string{"a": "1\n"}, begin("*** Update File: a\n*** Move to: b\n*** Update File: b\n@@\n-1\n+2"), map[string]string{"b": "2\n"}},
		{"two updates of one file", map[string]string{"a": "1\n2\n"}, begin("*** Update File: a\n@@\n-1\n+one\n*** Update File: a\n@@\n-2\n+two"), map[string]string{"a": "one\ntwo\n"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ws, dir := newWorkspace(t, tt.files)
			if _, err := apply(t, ws, tt.patch); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, tree(t, dir)); diff != "" {
				t.Errorf("tree (-want +got):\n%s", diff)
			}
		})
	}
}

func TestApplyRefusesAndChangesNothing(t *testing.T) {
	files := map[string]string{"a": "one\ntwo\nthree\n", "b": "x\ny\n", "dir/f": "f\n"}
	tests := []struct {
		name  string
		patch string
		code  tool.Code
		want  []string
	}{
		{"second file's hunk fails", begin("*** Update File: a\n@@\n-one\n+ONE\n*** Update File: b\n@@\n-nope\n+p"),
			tool.CodeInvalidArguments, []string{"file 2 of 2 (update b)", "hunk 1 of 1", "    nope", "occurs nowhere", "Nothing was changed"}},
		{"context not found names hunk and header", begin("*** Update File: a\n@@\n-one\n+1\n@@ missing\n-three\n+3"),
			tool.CodeInvalidArguments, []string{"hunk 2 of 2 (@@ missing) at patch line 6", `its @@ line "missing" matches no line of the file at or after line 2`}},
		{"hunks out of order", begin("*** Update File: a\n@@\n-three\n+3\n@@\n-one\n+1"),
			tool.CodeInvalidArguments, []string{"hunk 2 of 2", "not found at or after line 4", `"one" occurs at line 1, above where`}},
		{"stale context", begin("*** Update File: a\n@@\n one\n-TWO!\n+2"),
			tool.CodeInvalidArguments, []string{`"one" occurs at line 1, but the lines after it there differ`}},
		{"update of a missing file", begin("*** Update File: nope\n@@\n-a\n+b"), tool.CodeExecutionFailed, []string{"nope does not exist", "Add File"}},
		{"delete of a missing file", begin("*** Delete File: nope"), tool.CodeExecutionFailed, []string{"nope does not exist"}},
		{"add over an existing file", begin("*** Add File: b\n+new"), tool.CodeExecutionFailed, []string{"b already exists"}},
		{"delete of a directory", begin("*** Delete File: dir"), tool.CodeExecutionFailed, []string{"dir is a directory"}},
		{"update of a directory", begin("*** Update File: dir\n@@\n-a\n+b"), tool.CodeExecutionFailed, []string{"dir is a directory"}},
		{"move onto an existing file", begin("*** Update File: a\n*** Move to: b\n@@\n-one\n+1"), tool.CodeExecutionFailed, []string{"cannot move to b: it already exists"}},
		{"path climbing out", begin("*** Add File: ../escape\n+x"), tool.CodeSandboxViolation, []string{"outside the workspace"}},
		{"absolute path outside", begin("*** Delete File: /etc/hostname"), tool.CodeSandboxViolation, []string{"outside the workspace"}},
		{"add under a file", begin("*** Add File: b/c\n+x"), tool.CodeExecutionFailed, []string{"not a directory"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ws, dir := newWorkspace(t, files)
			before := tree(t, dir)
			_, err := apply(t, ws, tt.patch)
			if err == nil {
				t.Fatal("Apply succeeded; want an error")
			}
			if got := tool.CodeOf(err); got != tt.code {
				t.Errorf("code = %q, want %q (%v)", got, tt.code, err)
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error does not contain %q:\n%v", w, err)
				}
			}
			if diff := cmp.Diff(before, tree(t, dir)); diff != "" {
				t.Errorf("the tree changed (-before +after):\n%s", diff)
			}
		})
	}
}

func TestApplySymlinks(t *testing.T) {
	ws, dir := newWorkspace(t, map[string]string{"real": "a\n"})
	if err := os.Symlink("real", filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
	outside := t.TempDir()
	os.WriteFile(filepath.Join(outside, "secret"), []byte("s\n"), 0o644)
	if err := os.Symlink(filepath.Join(outside, "secret"), filepath.Join(dir, "out")); err != nil {
		t.Fatal(err)
	}

	t.Run("update through a link writes its target", func(t *testing.T) {
		if _, err := apply(t, ws, begin("*** Update File: link\n@@\n-a\n+b")); err != nil {
			t.Fatal(err)
		}
		want := map[string]string{"real": "b\n", "link@": "real", "out@": filepath.Join(outside, "secret")}
		if diff := cmp.Diff(want, tree(t, dir)); diff != "" {
			t.Errorf("tree (-want +got):\n%s", diff)
		}
	})
	for _, tt := range []struct{ name, patch string }{
		{"delete of a link is refused", begin("*** Delete File: link")},
		{"move of a link is refused", begin("*** Update File: link\n*** Move to: moved\n@@\n-b\n+c")},
		{"a link out of the workspace is not followed", begin("*** Update File: out\n@@\n-s\n+t")},
	} {
		t.Run(tt.name, func(t *testing.T) {
			before := tree(t, dir)
			if _, err := apply(t, ws, tt.patch); err == nil {
				t.Fatal("Apply succeeded; want an error")
			}
			if diff := cmp.Diff(before, tree(t, dir)); diff != "" {
				t.Errorf("the tree changed (-before +after):\n%s", diff)
			}
			if b, _ := os.ReadFile(filepath.Join(outside, "secret")); string(b) != "s\n" {
				t.Errorf("the file outside changed: %q", b)
			}
		})
	}
}

func TestApplyKeepsModes(t *testing.T) {
	ws, dir := newWorkspace(t, map[string]string{"run.sh": "echo a\n", "tool.sh": "echo b\n"})
	os.Chmod(filepath.Join(dir, "run.sh"), 0o755)
	os.Chmod(filepath.Join(dir, "tool.sh"), 0o750)
	if _, err := apply(t, ws, begin("*** Update File: run.sh\n@@\n-echo a\n+echo A\n*** Update File: tool.sh\n*** Move to: bin/tool.sh\n@@\n-echo b\n+echo B")); err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]fs.FileMode{"run.sh": 0o755, "bin/tool.sh": 0o750} {
		fi, err := os.Stat(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode().Perm() != want {
			t.Errorf("%s: mode %v, want %v", name, fi.Mode().Perm(), want)
		}
	}
}

func TestApplyAcceptsAbsolutePathsInside(t *testing.T) {
	ws, dir := newWorkspace(t, map[string]string{"a": "1\n"})
	res, err := apply(t, ws, begin("*** Update File: "+filepath.Join(ws.Dir(), "a")+"\n@@\n-1\n+2"))
	if err != nil {
		t.Fatal(err)
	}
	if res.Files[0].Path != "a" {
		t.Errorf("path = %q, want the relative path", res.Files[0].Path)
	}
	if diff := cmp.Diff(map[string]string{"a": "2\n"}, tree(t, dir)); diff != "" {
		t.Errorf("tree (-want +got):\n%s", diff)
	}
}

// failingFS fails the first write or removal of one path, after letting
// everything else through to the real workspace.
type failingFS struct {
	*workspace.Workspace
	failWrite, failRemove string
	failed                bool
}

var errInjected = errors.New("injected failure")

func (f *failingFS) WriteFileFrom(p string, r io.Reader, perm fs.FileMode) error {
	if p == f.failWrite && !f.failed {
		f.failed = true
		return errInjected
	}
	return f.Workspace.WriteFileFrom(p, r, perm)
}

func (f *failingFS) Remove(p string) error {
	if p == f.failRemove && !f.failed {
		f.failed = true
		return errInjected
	}
	return f.Workspace.Remove(p)
}

func TestCommitFailureRollsBack(t *testing.T) {
	files := map[string]string{"a": "1\n2\n", "b": "x\n", "gone": "bye\n"}
	p := begin("*** Update File: a\n@@\n-1\n+one\n*** Add File: new/deep/n\n+n\n*** Update File: b\n*** Move to: moved/b\n@@\n-x\n+X\n*** Delete File: gone")
	tests := []struct {
		name string
		fsys func(*workspace.Workspace) *failingFS
	}{
		{"the third write fails", func(w *workspace.Workspace) *failingFS { return &failingFS{Workspace: w, failWrite: "moved/b"} }},
		{"a removal fails after every write", func(w *workspace.Workspace) *failingFS { return &failingFS{Workspace: w, failRemove: "gone"} }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ws, dir := newWorkspace(t, files)
			before := tree(t, dir)
			fsys := tt.fsys(ws)
			_, err := apply(t, fsys, p)
			if !errors.Is(err, errInjected) {
				t.Fatalf("err = %v, want the injected failure", err)
			}
			if !fsys.failed {
				t.Fatal("the failure was never injected")
			}
			if !strings.Contains(err.Error(), "were restored: nothing was changed") {
				t.Errorf("error does not say the files were restored: %v", err)
			}
			if diff := cmp.Diff(before, tree(t, dir)); diff != "" {
				t.Errorf("the tree changed (-before +after):\n%s", diff)
			}
		})
	}
}

func TestApplyStopsWhenCancelled(t *testing.T) {
	ws, dir := newWorkspace(t, map[string]string{"a": "1\n"})
	p, _ := Parse(begin("*** Update File: a\n@@\n-1\n+2"))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Apply(ctx, ws, p); tool.CodeOf(err) != tool.CodeCancelled {
		t.Errorf("err = %v, want CANCELLED", err)
	}
	if diff := cmp.Diff(map[string]string{"a": "1\n"}, tree(t, dir)); diff != "" {
		t.Errorf("tree (-want +got):\n%s", diff)
	}
}
