package quiver_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/quiverkit/quiver"
	"github.com/quiverkit/quiver/policy"
	"github.com/quiverkit/quiver/policy/approve"
	"github.com/quiverkit/quiver/provider/builtin"
	"github.com/quiverkit/quiver/sandbox"
	"github.com/quiverkit/quiver/sandbox/sandboxtest"
	"github.com/quiverkit/quiver/tools"
)

// payloadMark is what the payload program prints, and the name of the file
// it creates, when any git runs it.
const payloadMark = "QUIVER-PAYLOAD-RAN"

// gitRepoWithPayload makes a workspace that is a git repository with one
// commit, and beside it (outside the workspace) a payload program and a
// hostile git directory whose config runs it from git status: what an
// attacker would point the workspace's git at. It returns the workspace,
// the payload's path and the file the payload creates when it runs.
func gitRepoWithPayload(t *testing.T) (ws, payload, marker string) {
	t.Helper()
	ws, outside := t.TempDir(), t.TempDir()
	marker = filepath.Join(outside, payloadMark)
	payload = filepath.Join(outside, "payload")
	mustWrite(t, payload, "#!/bin/sh\necho "+payloadMark+"\necho "+payloadMark+" >&2\ntouch "+marker+" 2>/dev/null\ncat \"$1\" 2>/dev/null\nexit 0\n", 0o755)
	sandboxtest.UserGit(t, ws, "init", "-q")
	sandboxtest.UserGit(t, ws, "config", "user.name", "u")
	sandboxtest.UserGit(t, ws, "config", "user.email", "u@example.com")
	mustWrite(t, filepath.Join(ws, "a.txt"), "a\n", 0o644)
	mustWrite(t, filepath.Join(ws, "src/b.txt"), "b\n", 0o644)
	sandboxtest.UserGit(t, ws, "add", ".")
	sandboxtest.UserGit(t, ws, "commit", "-qm", "first")
	// A hostile git directory in the workspace, as a model could have
	// written it under an earlier approved call: its config runs the
	// payload from every git status.
	evil := filepath.Join(ws, "evil.git")
	sandboxtest.UserGit(t, ws, "init", "-q", "--bare", evil)
	sandboxtest.UserGit(t, ws, "--git-dir", evil, "config", "core.fsmonitor", payload)
	sandboxtest.UserGit(t, ws, "--git-dir", evil, "config", "core.bare", "false")
	return ws, payload, marker
}

// userStatusIsSafe runs the user's next git status (unconfined, as the user
// would) and fails the test if the payload ran or the index holds a
// gitlink.
func userStatusIsSafe(t *testing.T, ws, marker string) {
	t.Helper()
	cmd := exec.Command("git", "status", "--porcelain")
	cmd.Dir = ws
	out, _ := cmd.CombinedOutput()
	if strings.Contains(string(out), payloadMark) {
		t.Errorf("the user's git status ran the payload:\n%s", out)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Errorf("the user's git status ran the payload (marker %s exists)", marker)
		os.Remove(marker)
	}
	for _, line := range strings.Split(sandboxtest.UserGit(t, ws, "ls-files", "-s"), "\n") {
		if strings.HasPrefix(line, "160000") {
			t.Errorf("the index holds a gitlink: %s", line)
		}
	}
	for _, p := range []string{"commondir", "objects/info/alternates", "info/attributes", "worktrees/wt", "modules/m"} {
		if _, err := os.Lstat(filepath.Join(ws, ".git", p)); err == nil {
			t.Errorf(".git/%s exists", p)
		}
	}
	if fi, err := os.Lstat(filepath.Join(ws, ".git")); err != nil || !fi.IsDir() {
		t.Errorf(".git is no longer the directory it was: %v", err)
	}
}

func gitToolkit(t *testing.T, ws string, scope sandbox.WriteScope, approver policy.Approver) *quiver.Toolkit {
	t.Helper()
	pol, err := policy.New(policy.Config{Default: policy.Allow}, scope)
	if err != nil {
		t.Fatal(err)
	}
	tk, err := quiver.New(quiver.WithRoot(ws), builtin.Standard(), quiver.WithPolicy(pol), quiver.WithApprover(approver))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tk.Close() })
	return tk
}

// TestGitMetadataCannotBeRedirectedByAProcess: under every write scope
// that confines processes, with every command approved, no command can
// send the user's next git status to another repository, plant a program
// in its config, or stage a gitlink to a nested repository.
func TestGitMetadataCannotBeRedirectedByAProcess(t *testing.T) {
	if err := sandbox.Check(); err != nil {
		t.Fatalf("this machine must support the sandbox: %v", err)
	}
	nested := "git init -q nested && git -C nested config core.fsmonitor {PAYLOAD} && echo x > nested/f && " +
		"git -C nested add f && git -C nested -c user.name=a -c user.email=b commit -qm n && "
	attempts := []struct{ name, command string }{
		{"commondir", "echo ../evil.git > .git/commondir"},
		{"commondir, absolute", "echo {WS}/evil.git > .git/commondir"},
		{"commondir through ./", "printf '%s\\n' ../evil.git > .git/./commondir"},
		{"commondir through ..", "echo ../evil.git > src/../.git/commondir"},
		{"commondir through a link", "ln -s .git gl && echo ../evil.git > gl/commondir"},
		{"commondir by python", "python3 -c 'open(\".git/commondir\",\"w\").write(\"../evil.git\\n\")'"},
		{"commondir by an approved git's alias", "git -c alias.x='!echo ../evil.git > .git/commondir' x"},
		{"config", "git config core.fsmonitor {PAYLOAD}"},
		{"config by hand", "printf '[core]\\n\\tfsmonitor = {PAYLOAD}\\n' >> .git/config"},
		{"hooks", "printf '#!/bin/sh\\n{PAYLOAD}\\n' > .git/hooks/post-index-change && chmod +x .git/hooks/post-index-change"},
		{"alternates", "echo {WS}/evil.git/objects > .git/objects/info/alternates"},
		{"info/attributes", "echo '* filter=x' > .git/info/attributes"},
		{".git replaced by a file", "mv .git .git.old && echo 'gitdir: evil.git' > .git"},
		{".git moved and remade", "mv .git .git.old && mkdir .git && cp -r evil.git/. .git/"},
		{".git removed", "rm -rf .git && git init -q && git config core.fsmonitor {PAYLOAD}"},
		{"HEAD made a symref elsewhere", "echo 'ref: refs/../../evil' > .git/HEAD"},
		{"gitlink by git add", nested + "git add nested"},
		{"gitlink by git add .", nested + "git add ."},
		{"gitlink by update-index", nested + "git update-index --add --cacheinfo 160000,$(git -C nested rev-parse HEAD),nested"},
		{"gitlink by submodule add", nested + "git submodule add ./nested sub"},
		{"worktree add", "git worktree add -q wt && echo ../../../evil.git > .git/worktrees/wt/commondir"},
		{"modules", "mkdir -p .git/modules/m && cp -r evil.git/. .git/modules/m/"},
	}
	for _, scope := range []sandbox.WriteScope{sandbox.WorkspaceWrite, sandbox.ReadOnly} {
		t.Run(string(scope), func(t *testing.T) {
			t.Parallel()
			for _, a := range attempts {
				t.Run(a.name, func(t *testing.T) {
					ws, payload, marker := gitRepoWithPayload(t)
					tk := gitToolkit(t, ws, scope, approve.Auto)
					line := strings.NewReplacer("{PAYLOAD}", payload, "{WS}", ws).Replace(a.command)
					res, err := tk.Invoke(context.Background(), "exec_command", map[string]any{"command": line, "timeout_secs": 60})
					t.Logf("%s: %v %v", line, res, err)
					userStatusIsSafe(t, ws, marker)
				})
			}
		})
	}
}

// TestGitMetadataCannotBeWrittenByAFileTool: the file tools ask before
// writing anything under .git, at any depth, by any spelling; with no one
// to approve, nothing is written, under every write scope.
func TestGitMetadataCannotBeWrittenByAFileTool(t *testing.T) {
	type attempt struct {
		name, tool string
		args       map[string]any
	}
	write := func(path string) map[string]any { return map[string]any{"path": path, "content": "../evil.git\n"} }
	attempts := []attempt{
		{"commondir", "write_file", write(".git/commondir")},
		{"commondir through ./", "write_file", write(".git/./commondir")},
		{"commondir through ..", "write_file", write("src/../.git/commondir")},
		{"commondir through a link to .git", "write_file", write("gl/commondir")},
		{"commondir through a link in src", "write_file", write("src/gitlink/commondir")},
		{"alternates", "write_file", write(".git/objects/info/alternates")},
		{"config", "write_file", write(".git/config")},
		{"HEAD", "edit", map[string]any{"path": ".git/HEAD", "old_string": "ref:", "new_string": "ref: x"}},
		{"nested repository's config", "write_file", write("nested/.git/config")},
		{"nested .git file", "write_file", write("deep/er/.git")},
		{"apply_patch Add", "apply_patch", patchOf("*** Add File: .git/commondir", "+../evil.git")},
		{"apply_patch Move", "apply_patch", patchOf("*** Update File: a.txt", "*** Move to: .git/commondir", "@@", "-a", "+../evil.git")},
		{"apply_patch Add through a link", "apply_patch", patchOf("*** Add File: gl/info/attributes", "+* filter=x")},
	}
	for _, scope := range []sandbox.WriteScope{sandbox.WorkspaceWrite, sandbox.ReadOnly, sandbox.Unrestricted} {
		t.Run(string(scope), func(t *testing.T) {
			t.Parallel()
			for _, a := range attempts {
				t.Run(a.name, func(t *testing.T) {
					ws, _, marker := gitRepoWithPayload(t)
					if err := os.Symlink(".git", filepath.Join(ws, "gl")); err != nil {
						t.Fatal(err)
					}
					if err := os.Symlink("../.git", filepath.Join(ws, "src/gitlink")); err != nil {
						t.Fatal(err)
					}
					sandboxtest.UserGit(t, ws, "init", "-q", "nested")
					tk := gitToolkit(t, ws, scope, approve.Deny)
					before := sandboxtest.UserGit(t, ws, "status", "--porcelain")
					_, err := tk.Invoke(context.Background(), a.tool, a.args)
					if err == nil {
						t.Errorf("%s %v: no error, want a refusal", a.tool, a.args)
					}
					if after := sandboxtest.UserGit(t, ws, "status", "--porcelain"); after != before {
						t.Errorf("the workspace changed:\n%s\nwas:\n%s", after, before)
					}
					if p, ok := a.args["path"].(string); ok {
						if b, err := os.ReadFile(filepath.Join(ws, p)); err == nil && strings.Contains(string(b), "evil") {
							t.Errorf("%s was written", p)
						}
					}
					for _, p := range []string{"nested/.git/config.lock", "deep"} {
						if _, err := os.Lstat(filepath.Join(ws, p)); err == nil {
							t.Errorf("%s was written", p)
						}
					}
					userStatusIsSafe(t, ws, marker)
				})
			}
		})
	}
}

// TestApprovedGitStillCommits: an approved git add and commit work under
// workspace-write, and git status and git log work under read-only.
func TestApprovedGitStillCommits(t *testing.T) {
	if err := sandbox.Check(); err != nil {
		t.Fatalf("this machine must support the sandbox: %v", err)
	}
	ws, _, marker := gitRepoWithPayload(t)
	tk := gitToolkit(t, ws, sandbox.WorkspaceWrite, approve.Auto)
	ctx := context.Background()
	mustWrite(t, filepath.Join(ws, "x.txt"), "x\n", 0o644)
	res, err := tk.Invoke(ctx, "exec_command", map[string]any{"command": "git add x.txt && git commit -qm m && git status --porcelain && git log --oneline"})
	if err != nil {
		t.Fatal(err)
	}
	if out := resultText(t, res); !strings.Contains(out, " m\n") || strings.Contains(out, "x.txt") {
		t.Errorf("git add and commit did not commit x.txt:\n%s", out)
	}
	if got := sandboxtest.UserGit(t, ws, "log", "-1", "--format=%s"); got != "m\n" {
		t.Errorf("last commit %q, want m", got)
	}
	ro := gitToolkit(t, ws, sandbox.ReadOnly, approve.Deny)
	for _, line := range []string{"git status", "git log --oneline", "git diff HEAD~1", "git show --stat"} {
		res, err := ro.Invoke(ctx, "exec_command", map[string]any{"command": line})
		if err != nil {
			t.Errorf("%s under read-only: %v", line, err)
			continue
		}
		if out := resultText(t, res); strings.Contains(out, "fatal") || strings.Contains(out, "error") {
			t.Errorf("%s under read-only:\n%s", line, out)
		}
	}
	userStatusIsSafe(t, ws, marker)
}

// resultText is exec_command's output and exit status, as text.
func resultText(t *testing.T, res quiver.Output) string {
	t.Helper()
	o, ok := res.Content.Output.(*tools.ExecCommandOutput)
	if !ok {
		t.Fatalf("exec_command returned %T", res.Content.Output)
	}
	return o.Output + "\nexit " + strconv.Itoa(o.ExitCode)
}

// TestReadOnlyGitRunsNoProgram: a nested repository whose config names the
// payload for every program git can be told to run, with attributes that
// pick its drivers for every file: each git command the classifier calls
// read-only, run through exec_command with no one to approve anything,
// under every write scope, never runs it.
func TestReadOnlyGitRunsNoProgram(t *testing.T) {
	if err := sandbox.Check(); err != nil {
		t.Fatalf("this machine must support the sandbox: %v", err)
	}
	commands := []string{
		"cd nested && git diff",
		"cd nested && git diff HEAD",
		"cd nested && git diff --stat",
		"cd nested && git diff --no-index a b",
		"cd nested && git --no-pager diff --no-index -- a b",
		"git diff --no-index nested/a nested/b",
		"cd nested && git log -p",
		"cd nested && git log",
		"cd nested && git show",
		"cd nested && git show HEAD:a",
		"cd nested && git whatchanged -p",
		"cd nested && git grep -e a",
		"cd nested && git blame a",
		"cd nested && git annotate a",
		"cd nested && git status",
		"cd nested && git status --porcelain",
		"cd nested && git ls-files -m",
		"cd nested && git cat-file -p HEAD:a",
		"cd nested/sub && git diff",
		"git -C nested diff",
		"cd nested && git log --show-signature",
		"cd nested && git diff --ext-diff",
	}
	for _, scope := range []sandbox.WriteScope{sandbox.WorkspaceWrite, sandbox.ReadOnly, sandbox.Unrestricted} {
		t.Run(string(scope), func(t *testing.T) {
			t.Parallel()
			ws, payload, marker := gitRepoWithPayload(t)
			hostileNestedRepo(t, filepath.Join(ws, "nested"), payload, marker)
			pol, err := policy.New(policy.Config{Default: policy.Ask}, scope)
			if err != nil {
				t.Fatal(err)
			}
			tk, err := quiver.New(quiver.WithRoot(ws), builtin.Standard(), quiver.WithPolicy(pol), quiver.WithApprover(approve.Deny))
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { tk.Close() })
			for _, line := range commands {
				res, err := tk.Invoke(context.Background(), "exec_command", map[string]any{"command": line, "timeout_secs": 60})
				if err != nil {
					t.Logf("%s: %v", line, err) // asked about, and refused: it did not run
					continue
				}
				if out := resultText(t, res); strings.Contains(out, payloadMark) {
					t.Errorf("%s ran the payload:\n%s", line, out)
				} else {
					t.Logf("%s:\n%s", line, out)
				}
				if _, err := os.Stat(marker); err == nil {
					t.Errorf("%s ran the payload (marker exists)", line)
					os.Remove(marker)
				}
			}
		})
	}
}

// hostileNestedRepo makes dir a repository with two committed files, a and
// b (and sub/c), each changed since, whose config names payload as every
// program git can be told to run and whose attributes pick its diff and
// filter drivers for every file.
func hostileNestedRepo(t *testing.T, dir, payload, marker string) {
	t.Helper()
	sandboxtest.UserGit(t, filepath.Dir(dir), "init", "-q", dir)
	for _, f := range []string{"a", "b", "sub/c"} {
		mustWrite(t, filepath.Join(dir, f), "one "+f+"\n", 0o644)
	}
	mustWrite(t, filepath.Join(dir, ".gitattributes"), "* diff=x filter=x\n", 0o644)
	sandboxtest.UserGit(t, dir, "add", ".")
	sandboxtest.UserGit(t, dir, "-c", "user.name=a", "-c", "user.email=b", "commit", "-qm", "n")
	for _, kv := range [][2]string{
		{"diff.external", payload}, {"diff.x.textconv", payload}, {"diff.x.command", payload},
		{"filter.x.clean", payload}, {"filter.x.smudge", payload}, {"core.fsmonitor", payload},
		{"gpg.program", payload}, {"log.showSignature", "true"}, {"core.pager", payload},
		{"pager.diff", payload}, {"core.alternateRefsCommand", payload}, {"grep.fallbackToNoIndex", "true"},
	} {
		sandboxtest.UserGit(t, dir, "config", kv[0], kv[1])
	}
	for _, f := range []string{"a", "b", "sub/c"} {
		mustWrite(t, filepath.Join(dir, f), "two "+f+"\n", 0o644)
	}
	os.Remove(marker)
}
