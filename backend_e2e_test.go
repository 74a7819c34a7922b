package quiver_test

import (
	"context"
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
	"github.com/quiverkit/quiver/workspace/gitref"
)

// TestGitRefBackend: a toolkit serving a branch through the git ref
// backend reads the branch, not the working tree; offers no tool that
// writes or starts a process, and refuses a call to one naming the
// backend; and keeps the read denies.
func TestGitRefBackend(t *testing.T) {
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

	box, err := sandbox.New(sandbox.ReadOnly, dir, sandbox.Config{}, sandbox.StandardProtected)
	if err != nil {
		t.Fatal(err)
	}
	b, err := gitref.Open(context.Background(), dir, "feature", box)
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
	defer tk.Close()

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
