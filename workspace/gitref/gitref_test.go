package gitref_test

import (
	"context"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/quiverkit/quiver/sandbox"
	"github.com/quiverkit/quiver/tool"
	"github.com/quiverkit/quiver/workspace"
	"github.com/quiverkit/quiver/workspace/gitref"
	"github.com/quiverkit/quiver/workspace/workspacetest"
)

// git runs the user's git in dir, outside any sandbox: the test's own
// set-up, not what the backend runs.
func git(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	date := workspacetest.ModTime.Format("2006-01-02T15:04:05Z")
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t.invalid", "GIT_COMMITTER_NAME=t",
		"GIT_COMMITTER_EMAIL=t@t.invalid", "GIT_AUTHOR_DATE="+date, "GIT_COMMITTER_DATE="+date, "GIT_CONFIG_NOSYSTEM=1", "HOME="+dir)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}

// fixtureRepo commits workspacetest's files on a branch "feature" of a new
// repository whose working tree is then emptied: the backend reads the
// commit, never the checkout.
func fixtureRepo(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	git(t, dir, "init", "-q", "-b", "main")
	git(t, dir, "commit", "-q", "--allow-empty", "-m", "empty")
	git(t, dir, "checkout", "-q", "-b", "feature")
	var files []workspacetest.File
	var sub workspacetest.File
	for _, f := range workspacetest.Files() {
		if f.Mode.IsDir() {
			sub = f
			continue
		}
		files = append(files, f)
	}
	if err := workspacetest.Materialize(dir, files); err != nil {
		t.Fatal(err)
	}
	git(t, dir, "add", "-f", "-A", ".")
	git(t, dir, "update-index", "--add", "--cacheinfo", "160000,"+sub.Content+","+sub.Path)
	git(t, dir, "commit", "-q", "-m", "fixture")
	git(t, dir, "checkout", "-q", "main")
	return dir
}

func readOnlyBox(t *testing.T, dir string) *sandbox.Profile {
	t.Helper()
	box, err := sandbox.New(sandbox.ReadOnly, dir, sandbox.Config{}, sandbox.StandardProtected)
	if err != nil {
		t.Fatal(err)
	}
	return box
}

func open(t *testing.T, dir, ref string) *gitref.Backend {
	t.Helper()
	b, err := gitref.Open(context.Background(), dir, ref, readOnlyBox(t, dir))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	return b
}

// TestContract: a ref answers every read tool as its files on disk do.
func TestContract(t *testing.T) {
	dir := fixtureRepo(t)
	b := open(t, dir, "feature")
	if _, err := os.Stat(filepath.Join(dir, "src")); !os.IsNotExist(err) {
		t.Fatalf("the working tree holds the branch's files (%v): the test would prove nothing", err)
	}
	workspacetest.Run(t, workspace.New(b))
}

// TestFS: the backend is an fs.FS that fstest accepts, below the root,
// whose links lead out or nowhere on purpose (fstest opens every link).
func TestFS(t *testing.T) {
	dir := fixtureRepo(t)
	b := open(t, dir, "feature")
	for sub, expect := range map[string][]string{"src": {"auth/login.ts", "deep/a/b/c/d.txt"}, "vendor": {"lib"}, "bin": {"data.bin"}} {
		fsys, err := fs.Sub(b, sub)
		if err != nil {
			t.Fatal(err)
		}
		if err := fstest.TestFS(fsys, expect...); err != nil {
			t.Errorf("%s: %v", sub, err)
		}
	}
}

// TestLinksAndSubmodules: links are shown as links, with their targets as
// stored; a submodule is a directory without entries that says whose commit
// it holds.
func TestLinksAndSubmodules(t *testing.T) {
	b := open(t, fixtureRepo(t), "feature")
	for name, want := range map[string]string{"link-out": "../outside.txt", "link-abs": "/etc/passwd", "linkdir": "src/auth"} {
		fi, err := b.Lstat(name)
		if err != nil || fi.Mode()&fs.ModeSymlink == 0 {
			t.Errorf("Lstat(%s): %v, %v; want a link", name, fi, err)
		}
		if got, err := b.ReadLink(name); got != want || err != nil {
			t.Errorf("ReadLink(%s) = %q, %v; want %q", name, got, err, want)
		}
	}
	fi, err := b.Lstat("vendor/lib")
	if err != nil || !fi.IsDir() || fi.Sys() != (workspace.Submodule{Commit: workspacetest.SubmoduleCommit}) {
		t.Fatalf("Lstat(vendor/lib) = %v, %v", fi, err)
	}
	if entries, err := b.ReadDir("vendor/lib"); len(entries) != 0 || err != nil {
		t.Errorf("ReadDir(vendor/lib) = %v, %v; want no entries", entries, err)
	}
	if _, err := b.Open("linkdir/token.ts"); err == nil {
		t.Error("Open followed a link itself; the workspace resolves links")
	}
}

// TestRefusesRefs: a ref that git could read as an option, a range, a
// path in an object or a reflog lookup is refused before git runs, and
// one that names nothing is NOT_FOUND.
func TestRefusesRefs(t *testing.T) {
	dir := fixtureRepo(t)
	for _, ref := range []string{"", "--output=/tmp/x", "-c", "main..feature", "feature:README.md", "main@{1}", "a b", "x\x00y", "x\ny", strings.Repeat("a", 300)} {
		_, err := gitref.Open(context.Background(), dir, ref, readOnlyBox(t, dir))
		if te := tool.AsError(err); te.Code != tool.CodeInvalidArguments || te.Details["field"] != "ref" {
			t.Errorf("Open(%q): %v, want INVALID_ARGUMENTS naming the field", ref, err)
		}
	}
	_, err := gitref.Open(context.Background(), dir, "no-such-branch", readOnlyBox(t, dir))
	if err == nil {
		t.Error("Open of a missing ref succeeded")
	}
	b := open(t, dir, "feature~0")
	if !strings.HasPrefix(b.Name(), "git ref feature~0 (") {
		t.Errorf("Name() = %q", b.Name())
	}
}

// TestLargeBlobReadBounded: a blob over the batch bound streams from its
// own git, and closing it early stops that git.
func TestLargeBlobReadBounded(t *testing.T) {
	dir := t.TempDir()
	git(t, dir, "init", "-q", "-b", "main")
	big := strings.Repeat("0123456789abcdef\n", 1<<20) // 17 MiB
	if err := os.WriteFile(filepath.Join(dir, "huge.txt"), []byte(big), 0o644); err != nil {
		t.Fatal(err)
	}
	git(t, dir, "add", "huge.txt")
	git(t, dir, "commit", "-q", "-m", "huge")
	b := open(t, dir, "main")
	f, err := b.Open("huge.txt")
	if err != nil {
		t.Fatal(err)
	}
	head := make([]byte, 17)
	if _, err := io.ReadFull(f, head); err != nil || string(head) != "0123456789abcdef\n" {
		t.Fatalf("head %q, %v", head, err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	f, err = b.Open("huge.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	data, err := io.ReadAll(f)
	if err != nil || len(data) != len(big) {
		t.Fatalf("read %d bytes, %v; want %d", len(data), err, len(big))
	}
}

// TestCraftedTree: entries git never writes — "..", ".", a name with a
// slash made by hand — are left out of the tree.
func TestCraftedTree(t *testing.T) {
	dir := t.TempDir()
	git(t, dir, "init", "-q", "-b", "main")
	blob := gitStdin(t, dir, "secret\n", "hash-object", "-w", "--stdin")
	sub := gitStdin(t, dir, "100644 blob "+blob+"\tok.txt\n", "mktree")
	// mktree refuses "..", so the tree is written as a raw object.
	raw := treeObject(t, []treeEntry{{"100644", "..", blob}, {"40000", "d", sub}, {"100644", "ok.txt", blob}})
	tree := gitStdin(t, dir, raw, "hash-object", "-w", "-t", "tree", "--literally", "--stdin")
	commit := git(t, dir, "commit-tree", tree, "-m", "crafted")
	b := open(t, dir, commit)
	entries, err := b.ReadDir(".")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if want := []string{"d", "ok.txt"}; !slices.Equal(names, want) {
		t.Errorf("root entries %q, want %q", names, want)
	}
}

type treeEntry struct{ mode, name, oid string }

// treeObject builds a raw tree object: "MODE NAME\0" and the binary id.
func treeObject(t *testing.T, entries []treeEntry) string {
	t.Helper()
	var b strings.Builder
	for _, e := range entries {
		id := make([]byte, len(e.oid)/2)
		for i := range id {
			var v byte
			for _, c := range e.oid[2*i : 2*i+2] {
				v <<= 4
				switch {
				case c >= '0' && c <= '9':
					v |= byte(c - '0')
				default:
					v |= byte(c-'a') + 10
				}
			}
			id[i] = v
		}
		b.WriteString(e.mode + " " + e.name + "\x00" + string(id))
	}
	return b.String()
}

func gitStdin(t *testing.T, dir, stdin string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Stdin = strings.NewReader(stdin)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("git %s: %v", strings.Join(args, " "), err)
	}
	return strings.TrimSpace(string(out))
}
