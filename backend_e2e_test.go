package quiver_test

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/quiverkit/quiver"
	"github.com/quiverkit/quiver/policy"
	"github.com/quiverkit/quiver/policy/approve"
	"github.com/quiverkit/quiver/provider/builtin"
	"github.com/quiverkit/quiver/sandbox"
	"github.com/quiverkit/quiver/tool"
	"github.com/quiverkit/quiver/workspace"
	"github.com/quiverkit/quiver/workspace/gitref"
)

// TestGitRefBackend: a toolkit serving a branch through the git ref
// backend reads the branch, not the working tree; offers no tool that
// writes or starts a process, and refuses a call to one naming the
// backend; and keeps the read denies.
func TestGitRefBackend(t *testing.T) {
	dir := featureBranchRepo(t)
	tk := gitRefToolkit(t, dir, "feature")

	out, err := tk.Invoke(context.Background(), "read_file", map[string]any{"path": "notes.txt"})
	if err != nil || !strings.Contains(out.Content.Parts[0].Text, "on feature") {
		t.Fatalf("read_file: %v %+v; want the branch's content", err, out.Content)
	}
	if _, err := tk.Invoke(context.Background(), "read_file", map[string]any{"path": ".env"}); tool.CodeOf(err) != tool.CodeToolNotAllowed {
		t.Errorf("read_file .env: %v, want the read deny", err)
	}
	allowed, err := tk.AllowedTools(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range allowed {
		names = append(names, tl.Name)
	}
	for _, name := range []string{"read_file", "list_dirs", "list_files", "tree", "glob_search", "grep_search", "search_code"} {
		if !slices.Contains(names, name) {
			t.Errorf("%s is not offered on the backend", name)
		}
	}
	// What quiver tools shows (Toolkit.Offer) agrees with what is offered,
	// tool by tool: one gate, not a second copy that could drift.
	entries, err := tk.Registry().Entries(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if offered := tk.Offer(*e).Offered(); offered != slices.Contains(names, e.Tool.Name) {
			t.Errorf("%s: Offer says offered %v, AllowedTools %v", e.Tool.Name, offered, !offered)
		}
	}
	refused := map[string]map[string]any{
		"write_file":         {"path": "x.txt", "content": "x"},
		"edit":               {"path": "notes.txt", "old_string": "on", "new_string": "off"},
		"apply_patch":        {"patch": "*** Begin Patch\n*** Add File: y.txt\n+y\n*** End Patch"},
		"exec_command":       {"cmd": "touch z"},
		"git_status_summary": {},
	}
	for name, args := range refused {
		if slices.Contains(names, name) {
			t.Errorf("%s is offered on a read-only backend", name)
		}
		_, err := tk.Invoke(context.Background(), name, args)
		if tool.CodeOf(err) != tool.CodeToolNotAllowed || !strings.Contains(err.Error(), "git ref feature") {
			t.Errorf("%s: %v, want TOOL_NOT_ALLOWED naming the backend", name, err)
		}
	}
	if data, err := os.ReadFile(filepath.Join(dir, "notes.txt")); err != nil || string(data) != "on main\n" {
		t.Errorf("the working tree changed: %q, %v", data, err)
	}
}

// TestToolkitWorkspaceIsTheBackends: with a backend, Toolkit.Workspace is
// the workspace the tools read: a host reading through it gets the ref's
// files, not the working tree's, with the read denies the tools have, and
// cannot write; the directory on disk stays the sandbox's.
func TestToolkitWorkspaceIsTheBackends(t *testing.T) {
	dir := featureBranchRepo(t)
	tk := gitRefToolkit(t, dir, "feature")
	ws := tk.Workspace()
	if got := ws.ReadOnlyBackend(); !strings.HasPrefix(got, "git ref feature ") {
		t.Errorf("Workspace().ReadOnlyBackend() = %q, want the git ref backend's name", got)
	}
	f, err := ws.OpenRead("notes.txt")
	if err != nil {
		t.Fatal(err)
	}
	data, err := io.ReadAll(f)
	f.Close()
	if err != nil || string(data) != "on feature\n" {
		t.Errorf("Workspace().OpenRead(notes.txt) = %q, %v; want the ref's content", data, err)
	}
	if data, err := fs.ReadFile(ws.FS(), "notes.txt"); err != nil || string(data) != "on feature\n" {
		t.Errorf("fs.ReadFile(Workspace().FS(), notes.txt) = %q, %v; want the ref's content", data, err)
	}
	if _, err := ws.OpenRead(".env"); tool.CodeOf(err) != tool.CodeToolNotAllowed {
		t.Errorf("Workspace().OpenRead(.env): %v, want the read deny the tools get", err)
	}
	if err := ws.WriteFile("notes.txt", []byte("x"), 0o644); !errors.Is(err, workspace.ErrReadOnly) {
		t.Errorf("Workspace().WriteFile: %v, want ErrReadOnly", err)
	}
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		t.Fatal(err)
	}
	if got := tk.Sandbox().Workspace; got != real {
		t.Errorf("Sandbox().Workspace = %q, want the directory on disk %q", got, real)
	}
}

// TestGitRefBackendResolvesPathsInTheRef: a call's paths are resolved, for
// the policy, where the tool reads them: a file of the ref is read though
// the working tree holds a symbolic link out of the workspace under its
// name, which on disk would be refused.
func TestGitRefBackendResolvesPathsInTheRef(t *testing.T) {
	dir := featureBranchRepo(t)
	tk := gitRefToolkit(t, dir, "feature")
	outside := filepath.Join(t.TempDir(), "outside.txt")
	mustWrite(t, outside, "outside\n", 0o644)
	if err := os.Remove(filepath.Join(dir, "notes.txt")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(dir, "notes.txt")); err != nil {
		t.Fatal(err)
	}
	out, err := tk.Invoke(context.Background(), "read_file", map[string]any{"path": "notes.txt"})
	if err != nil || !strings.Contains(out.Content.Parts[0].Text, "on feature") {
		t.Errorf("read_file notes.txt: %v %+v; want the ref's file", err, out.Content)
	}
}

// featureBranchRepo makes a repository whose working tree (main) holds
// notes.txt "on main" and whose branch feature holds "on feature" and a
// .env.
func featureBranchRepo(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	run := func(args ...string) {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t.invalid", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@t.invalid")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	run("init", "-q", "-b", "main")
	mustWrite(t, filepath.Join(dir, "notes.txt"), "on main\n", 0o644)
	run("add", ".")
	run("commit", "-q", "-m", "main")
	run("checkout", "-q", "-b", "feature")
	mustWrite(t, filepath.Join(dir, "notes.txt"), "on feature\n", 0o644)
	mustWrite(t, filepath.Join(dir, ".env"), "SECRET=1\n", 0o644)
	run("add", "-f", ".")
	run("commit", "-q", "-m", "feature")
	run("checkout", "-q", "main")
	return dir
}

// gitRefToolkit serves ref of the repository at dir through the git ref
// backend, with the standard catalogue, every call approved, and a read
// deny on .env.
func gitRefToolkit(t *testing.T, dir, ref string) *quiver.Toolkit {
	t.Helper()
	box, err := sandbox.New(sandbox.ReadOnly, dir, sandbox.Config{}, sandbox.StandardProtected)
	if err != nil {
		t.Fatal(err)
	}
	b, err := gitref.Open(context.Background(), dir, ref, box)
	if err != nil {
		t.Fatal(err)
	}
	pol, err := policy.New(policy.Config{Deny: []string{"read_file(.env)"}}, sandbox.WorkspaceWrite)
	if err != nil {
		t.Fatal(err)
	}
	tk, err := quiver.New(quiver.WithRoot(dir), quiver.WithBackend(b), quiver.WithPolicy(pol), quiver.WithApprover(approve.Auto), builtin.Standard())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tk.Close() })
	return tk
}
