package tools_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/quiverkit/quiver"
	"github.com/quiverkit/quiver/policy"
	"github.com/quiverkit/quiver/policy/approve"
	"github.com/quiverkit/quiver/provider/builtin"
	"github.com/quiverkit/quiver/provider/script"
	"github.com/quiverkit/quiver/sandbox"
)

const hookBody = "#!/bin/sh\n# quiver: description Counts.\necho counted\n"

// TestApprovedRewritesDoNotStayExecutable is the write half of breach 7 of
// issue 18, and breach 8: an approved rewrite of an executable in
// .git/hooks or .quiver/tools kept it executable, so one approved write
// became code that the next commit or call ran. Every write tool now leaves
// such a file without exec bits and says so; elsewhere the mode is kept.
func TestApprovedRewritesDoNotStayExecutable(t *testing.T) {
	sum := func(s string) string { h := sha256.Sum256([]byte(s)); return hex.EncodeToString(h[:]) }
	tests := []struct {
		name string
		file string // an executable made before the call
		tool string
		args map[string]any
		path string // where the mode is checked
		want fs.FileMode
		note bool
	}{
		{"write_file over a hook", ".git/hooks/pre-commit", "write_file",
			map[string]any{"path": ".git/hooks/pre-commit", "content": "#!/bin/sh\nexit 0\n", "expected_sha256": sum(hookBody)},
			".git/hooks/pre-commit", 0o644, true},
		{"edit of a script tool", ".quiver/tools/count.sh", "edit",
			map[string]any{"path": ".quiver/tools/count.sh", "old_string": "echo counted", "new_string": "echo changed", "expected_sha256": sum(hookBody)},
			".quiver/tools/count.sh", 0o644, true},
		{"multi_edit of a script tool", ".quiver/tools/count.sh", "multi_edit",
			map[string]any{"path": ".quiver/tools/count.sh", "expected_sha256": sum(hookBody),
				"edits": []any{map[string]any{"old_string": "echo counted", "new_string": "echo changed"}}},
			".quiver/tools/count.sh", 0o644, true},
		{"apply_patch updating a script tool", ".quiver/tools/count.sh", "apply_patch",
			map[string]any{"patch": "*** Begin Patch\n*** Update File: .quiver/tools/count.sh\n@@\n-echo counted\n+echo changed\n*** End Patch\n"},
			".quiver/tools/count.sh", 0o644, true},
		{"apply_patch moving a sample hook into place", ".git/hooks/pre-commit.sample", "apply_patch",
			map[string]any{"patch": "*** Begin Patch\n*** Update File: .git/hooks/pre-commit.sample\n*** Move to: .git/hooks/pre-commit\n@@\n-echo counted\n+echo changed\n*** End Patch\n"},
			".git/hooks/pre-commit", 0o644, true},
		{"apply_patch moving an executable into the scripts directory", "bin/count.sh", "apply_patch",
			map[string]any{"patch": "*** Begin Patch\n*** Update File: bin/count.sh\n*** Move to: .quiver/tools/count.sh\n@@\n-echo counted\n+echo changed\n*** End Patch\n"},
			".quiver/tools/count.sh", 0o644, true},
		{"write_file elsewhere keeps the mode", "scripts/build.sh", "write_file",
			map[string]any{"path": "scripts/build.sh", "content": "#!/bin/sh\nexit 0\n", "expected_sha256": sum(hookBody)},
			"scripts/build.sh", 0o755, false},
		{"apply_patch moving elsewhere keeps the mode", "bin/count.sh", "apply_patch",
			map[string]any{"patch": "*** Begin Patch\n*** Update File: bin/count.sh\n*** Move to: bin/tally.sh\n@@\n-echo counted\n+echo changed\n*** End Patch\n"},
			"bin/tally.sh", 0o755, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := t.TempDir()
			writeExecutable(t, root, tt.file, hookBody)
			tk := approvingToolkit(t, root)
			out, err := tk.Invoke(context.Background(), tt.tool, tt.args)
			if err != nil {
				t.Fatal(err)
			}
			fi, err := os.Stat(filepath.Join(root, tt.path))
			if err != nil {
				t.Fatal(err)
			}
			if got := fi.Mode().Perm(); got != tt.want {
				t.Errorf("mode %v, want %v", got, tt.want)
			}
			view := out.Content.String()
			if said := strings.Contains(view, tt.path+" was executable and is not any more"); said != tt.note {
				t.Errorf("the result says the exec bits went: %v, want %v:\n%s", said, tt.note, view)
			}
		})
	}
}

// TestAMovedHookDoesNotRunOnCommit is breach 8 end to end, with real git:
// the patch that moved pre-commit.sample into place planted a hook that
// the next commit ran.
func TestAMovedHookDoesNotRunOnCommit(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Fatalf("git is needed for this test (scripts/test installs it): %v", err)
	}
	root := t.TempDir()
	gitIn := func(args ...string) string {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-c", "user.name=t", "-c", "user.email=t@example.com", "-c", "init.defaultBranch=main"}, args...)...)
		cmd.Dir = root
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return string(out)
	}
	gitIn("init", "-q")
	writeExecutable(t, root, ".git/hooks/pre-commit.sample", "#!/bin/sh\nexit 0\n")
	tk := approvingToolkit(t, root)
	patch := "*** Begin Patch\n*** Update File: .git/hooks/pre-commit.sample\n*** Move to: .git/hooks/pre-commit\n@@\n-exit 0\n+touch hook-ran\n*** End Patch\n"
	if _, err := tk.Invoke(context.Background(), "apply_patch", map[string]any{"patch": patch}); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "f.txt"), []byte("x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	gitIn("add", "f.txt")
	gitIn("commit", "-q", "-m", "x")
	if _, err := os.Stat(filepath.Join(root, "hook-ran")); err == nil {
		t.Fatal("the moved hook ran on commit")
	}
}

// TestARewrittenScriptIsNoLongerATool: the script an operator lowered to
// low risk, once rewritten by an approved write, does not run: this
// toolkit, which listed it before, fails to execute it, and the next
// listing skips it until a person makes it executable again.
func TestARewrittenScriptIsNoLongerATool(t *testing.T) {
	root := t.TempDir()
	writeExecutable(t, root, ".quiver/tools/count.sh", hookBody)
	p := script.New(script.Options{Dir: filepath.Join(root, script.DefaultDir), LowRisk: []string{"count"}})
	tk := approvingToolkit(t, root, quiver.WithProvider(p))
	ctx := context.Background()
	if out, err := tk.Invoke(ctx, "count", map[string]any{}); err != nil || out.Content.String() != "counted\n" {
		t.Fatalf("before the rewrite: %q, %v", out.Content.String(), err)
	}
	if _, err := tk.Invoke(ctx, "read_file", map[string]any{"path": ".quiver/tools/count.sh"}); err != nil {
		t.Fatal(err)
	}
	evil := strings.Replace(hookBody, "echo counted", "touch pwned", 1)
	if _, err := tk.Invoke(ctx, "write_file", map[string]any{"path": ".quiver/tools/count.sh", "content": evil}); err != nil {
		t.Fatal(err)
	}
	out, err := tk.Invoke(ctx, "count", map[string]any{})
	if err == nil && !out.Content.IsError {
		t.Errorf("after the rewrite the script ran: %q", out.Content.String())
	}
	if _, err := os.Stat(filepath.Join(root, "pwned")); err == nil {
		t.Error("the rewritten script ran")
	}
	tools, err := p.Tools(ctx)
	if len(tools) != 0 || err == nil || !strings.Contains(err.Error(), "count.sh: not executable") {
		t.Errorf("the next listing: %d tools, %v; want count.sh skipped as not executable", len(tools), err)
	}
}

func writeExecutable(t *testing.T, root, rel, body string) {
	t.Helper()
	p := filepath.Join(root, rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(body), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(p, 0o755); err != nil {
		t.Fatal(err)
	}
}

// approvingToolkit is a toolkit on root whose approver says yes to every
// call: what the breaches needed was one approved write.
func approvingToolkit(t *testing.T, root string, opts ...quiver.Option) *quiver.Toolkit {
	t.Helper()
	pol, err := policy.New(policy.Config{}, sandbox.WorkspaceWrite)
	if err != nil {
		t.Fatal(err)
	}
	tk, err := quiver.New(append([]quiver.Option{quiver.WithRoot(root), builtin.Standard(), quiver.WithPolicy(pol), quiver.WithApprover(approve.Auto)}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tk.Close() })
	return tk
}
