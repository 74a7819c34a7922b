package quiver_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/quiverkit/quiver"
	"github.com/quiverkit/quiver/policy"
	"github.com/quiverkit/quiver/policy/approve"
	"github.com/quiverkit/quiver/provider/builtin"
	"github.com/quiverkit/quiver/sandbox"
	"github.com/quiverkit/quiver/tool"
)

// redTeamRepo is a git repository with one tracked file, f.txt, as the
// red-team probe of November 2026 used (its report is not in this
// repository).
func redTeamRepo(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	mustWrite(t, filepath.Join(dir, "f.txt"), "needle change\n", 0o644)
	git := func(args ...string) {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-c", "user.name=Q", "-c", "user.email=q@example.invalid"}, args...)...)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	git("init", "-q", "-b", "main")
	git("add", "f.txt")
	git("commit", "-q", "-m", "one")
	return dir
}

// TestRedTeamDefaultPolicy replays the breaches that ran arbitrary commands
// without approval under the default configuration (no quiver.toml, no
// approver), under workspace-write and read-only: each is now asked about
// (so refused, with no one to ask), and nothing ran.
func TestRedTeamDefaultPolicy(t *testing.T) {
	for _, scope := range []sandbox.WriteScope{sandbox.WorkspaceWrite, sandbox.ReadOnly} {
		t.Run(string(scope), func(t *testing.T) {
			dir := redTeamRepo(t)
			marker := filepath.Join(t.TempDir(), "PWN")
			mustWrite(t, filepath.Join(dir, "evilbin/cat"), "#!/bin/sh\ntouch "+marker+"\n", 0o755)
			mustWrite(t, filepath.Join(dir, "evil/HEAD"), "ref: refs/heads/main\n", 0o644)
			mustWrite(t, filepath.Join(dir, "evil/config"), "[core]\n\tbare = true\n\tworktree = ..\n\tfsmonitor = \"touch "+marker+"; echo\"\n", 0o644)
			os.MkdirAll(filepath.Join(dir, "evil/objects"), 0o755)
			os.MkdirAll(filepath.Join(dir, "evil/refs"), 0o755)
			pol, err := policy.New(policy.Config{}, scope)
			if err != nil {
				t.Fatal(err)
			}
			tk, err := quiver.New(quiver.WithRoot(dir), builtin.Standard(), quiver.WithPolicy(pol))
			if err != nil {
				t.Fatal(err)
			}
			defer tk.Close()
			for _, line := range []string{
				`git grep "-Otouch ` + marker + `;" needle`,
				`git grep --open=touch\ ` + marker + ` needle`,
				`git grep -Orm change`,
				`git config --get --no-get core.fsmonitor 'touch ` + marker + `; echo'`,
				`git remote -v add evilremote https://example.invalid/x`,
				`git reflog -p --output=` + marker,
				`sort --outp=` + marker + ` f.txt`,
				`sort -S 100k --compress-prog=sh f.txt`,
				`read PATH <<< ` + filepath.Join(dir, "evilbin") + `; cat f.txt`,
				`git -C evil status`,
				`sh <<< 'touch ` + marker + `'`,
				`cd evil && git status`, // read-only, so it runs: but git ignores the bare repository's config
			} {
				_, err := tk.Invoke(context.Background(), "exec_command", map[string]any{"command": line})
				if code := tool.CodeOf(err); code != tool.CodeApprovalDenied && code != tool.CodeToolNotAllowed && !strings.HasPrefix(line, "cd evil") {
					t.Errorf("%s: code %q (%v), want it asked about (APPROVAL_DENIED) or refused", line, code, err)
				}
				if _, err := os.Stat(marker); err == nil {
					t.Fatalf("%s ran a command: the marker exists", line)
				}
			}
			if b, err := os.ReadFile(filepath.Join(dir, "f.txt")); err != nil || string(b) != "needle change\n" {
				t.Errorf("f.txt changed: %q %v", b, err)
			}
		})
	}
}

// TestRedTeamApprovedGit: even approved, a git run by exec_command in an
// embedded bare repository does not run the repository's fsmonitor
// (sandbox.GitEnv), and a PATH that leads into the workspace is refused at
// run time for a call let through as read-only.
func TestRedTeamApprovedGit(t *testing.T) {
	dir := redTeamRepo(t)
	marker := filepath.Join(dir, "PWN") // inside: a confined process may write here
	mustWrite(t, filepath.Join(dir, "evil/HEAD"), "ref: refs/heads/main\n", 0o644)
	mustWrite(t, filepath.Join(dir, "evil/config"), "[core]\n\tbare = false\n\tworktree = ..\n\tfsmonitor = \"touch "+marker+"; echo\"\n", 0o644)
	os.MkdirAll(filepath.Join(dir, "evil/objects"), 0o755)
	os.MkdirAll(filepath.Join(dir, "evil/refs"), 0o755)
	mustWrite(t, filepath.Join(dir, ".git/config"), "[core]\n\tfsmonitor = \"touch "+marker+"; echo\"\n", 0o644)
	tk, err := quiver.New(quiver.WithRoot(dir), builtin.Standard(), quiver.WithApprover(approve.Auto))
	if err != nil {
		t.Fatal(err)
	}
	defer tk.Close()
	for _, c := range []map[string]any{
		{"command": "git -C evil status"},
		{"command": "git --git-dir=evil status"},
		{"command": "git status", "workdir": "evil"},
		{"command": "git status"},
	} {
		tk.Invoke(context.Background(), "exec_command", c)
		if _, err := os.Stat(marker); err == nil {
			t.Fatalf("%v ran the repository's fsmonitor", c)
		}
	}

	// A PATH entry into the workspace, set by the host: a line that reads as
	// read-only still may not run the workspace's cat unapproved.
	mustWrite(t, filepath.Join(dir, "evilbin/cat"), "#!/bin/sh\ntouch "+marker+"\n", 0o755)
	t.Setenv("PATH", filepath.Join(dir, "evilbin")+string(os.PathListSeparator)+os.Getenv("PATH"))
	tk2, err := quiver.New(quiver.WithRoot(dir), builtin.Standard()) // no approver: only read-only lines run
	if err != nil {
		t.Fatal(err)
	}
	defer tk2.Close()
	out, err := tk2.Invoke(context.Background(), "exec_command", map[string]any{"command": "cat f.txt"})
	if _, serr := os.Stat(marker); serr == nil {
		t.Fatalf("the workspace's cat ran unapproved: %v %s", err, out.Content)
	}
	if !strings.Contains(out.Content.String(), "REFUSED") && err == nil {
		t.Errorf("cat f.txt with PATH into the workspace: %s, want it refused", out.Content)
	}
}

// TestRedTeamDenySeesStdinScripts: with rm denied and everything else
// approved, a shell reading its program from standard input cannot run rm
// (B9).
func TestRedTeamDenySeesStdinScripts(t *testing.T) {
	dir := t.TempDir()
	pol, err := policy.New(policy.Config{Default: policy.Allow, Deny: []string{"exec_command(rm *)"}}, sandbox.WorkspaceWrite)
	if err != nil {
		t.Fatal(err)
	}
	tk, err := quiver.New(quiver.WithRoot(dir), builtin.Standard(), quiver.WithPolicy(pol), quiver.WithApprover(approve.Auto))
	if err != nil {
		t.Fatal(err)
	}
	defer tk.Close()
	for _, line := range []string{"sh <<< 'rm v'", "printf 'rm v' | sh", "bash -s <<EOF\nrm v\nEOF", "echo 'rm v' | bash", "sh < script.sh", "python3 <<< 'import os; os.remove(\"v\")'"} {
		mustWrite(t, filepath.Join(dir, "v"), "victim\n", 0o644)
		mustWrite(t, filepath.Join(dir, "script.sh"), "rm v\n", 0o644)
		tk.Invoke(context.Background(), "exec_command", map[string]any{"command": line})
		if _, err := os.Stat(filepath.Join(dir, "v")); err != nil {
			t.Errorf("%q removed the victim despite deny exec_command(rm *)", line)
		}
	}
}
