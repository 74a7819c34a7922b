package quiver_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/quiverkit/quiver"
	"github.com/quiverkit/quiver/policy"
	"github.com/quiverkit/quiver/provider/builtin"
	"github.com/quiverkit/quiver/sandbox"
	"github.com/quiverkit/quiver/sandbox/sandboxtest"
	"github.com/quiverkit/quiver/tool"
)

// linkedProject is a workspace laid out as the red-team report's: secrets,
// git's files, script tools, and symbolic links inside the workspace that
// lead away from where they sit (a cloned repository can ship all of them).
func linkedProject(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	files := map[string]string{
		".env":                         "SECRET=1\n",
		"notes.txt":                    "notes\n",
		"src/a.go":                     "package a\n",
		".git/config":                  "[core]\n\tbare = false\n",
		".git/hooks/pre-commit.sample": "#!/bin/sh\nexit 0\n",
		".quiver/tools/hello":          "#!/bin/sh\necho hello\n",
		"deploy/prod.yml":              "replicas: 3\n",
	}
	for name, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, exe := range []string{".git/hooks/pre-commit.sample", ".quiver/tools/hello"} {
		if err := os.Chmod(filepath.Join(dir, exe), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for name, target := range map[string]string{
		"src/up": "..", "src/envlink": "../.env", "src/gitlink": "../.git", "src/hooks": "../.git/hooks",
	} {
		if err := os.Symlink(target, filepath.Join(dir, filepath.FromSlash(name))); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// recorder is an approver that answers yes or no and remembers what it was
// asked.
type recorder struct {
	yes   bool
	mu    sync.Mutex
	asked []policy.Request
}

func (r *recorder) Approve(_ context.Context, req policy.Request) (policy.Approval, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.asked = append(r.asked, req)
	return policy.Approval{Approved: r.yes, By: "recorder", Reason: "the test said no"}, nil
}

func patchOf(lines ...string) map[string]any {
	return map[string]any{"patch": "*** Begin Patch\n" + strings.Join(lines, "\n") + "\n*** End Patch"}
}

func writeOf(path string) map[string]any { return map[string]any{"path": path, "content": "planted\n"} }

func readOf(path string) map[string]any { return map[string]any{"path": path} }

// Policies of the table below.
var (
	// redTeam is the configuration of the report's path breach (B10).
	redTeam = policy.Config{Default: policy.Deny,
		Allow: []string{"edit(src/**)", "multi_edit(src/**)", "write_file(src/**)", "apply_patch(src/**)", "read_file"},
		Deny:  []string{"read_file(.env)"}}
	// openHouse allows every call, so that only protection can stop one.
	openHouse = policy.Config{Default: policy.Allow, Protected: []string{"deploy/**"}}
)

type policyCase struct {
	name    string
	cfg     policy.Config
	tool    string
	args    map[string]any
	approve bool      // the approver's answer, when it is asked
	want    tool.Code // "" for success
	asked   string    // "" when the approver must not be asked; else a part of the rule it was shown
	// refusal, when set, is a part of the output of a call that ran but had
	// a part refused (a command's redirection); the tree must be unchanged.
	refusal string
}

// TestPolicyThroughTheToolkit runs each case through Invoke with the real
// built-in tools on a real tree. A call that is refused must leave the tree
// exactly as it was.
func TestPolicyThroughTheToolkit(t *testing.T) {
	var cases []policyCase
	cases = append(cases, resolvedPathCases()...)
	cases = append(cases, protectedPathCases()...)
	cases = append(cases, orderCases()...)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { runPolicyCase(t, c) })
	}
}

func runPolicyCase(t *testing.T, c policyCase) {
	dir := linkedProject(t)
	before := sandboxtest.Snapshot(t, dir)
	rec := &recorder{yes: c.approve}
	tk, err := quiver.New(quiver.WithRoot(dir), builtin.Standard(), quiver.WithPolicy(mustPolicy(t, c.cfg, sandbox.WorkspaceWrite)), quiver.WithApprover(rec))
	if err != nil {
		t.Fatal(err)
	}
	defer tk.Close()
	out, err := tk.Invoke(context.Background(), c.tool, c.args)
	if got := tool.CodeOf(err); got != c.want {
		t.Errorf("%s: code %q (%v), want %q", c.tool, got, err, c.want)
	}
	if c.refusal != "" && !strings.Contains(out.Content.String(), c.refusal) {
		t.Errorf("%s: output %q, want it to say %q", c.tool, out.Content.String(), c.refusal)
	}
	switch {
	case c.asked == "" && len(rec.asked) > 0:
		t.Errorf("the approver was asked (%s), want no question", rec.asked[0].Rule)
	case c.asked != "" && len(rec.asked) == 0:
		t.Errorf("the approver was not asked, want a question naming %q", c.asked)
	case c.asked != "" && !strings.Contains(rec.asked[0].Rule, c.asked):
		t.Errorf("the approver was shown rule %q, want one naming %q", rec.asked[0].Rule, c.asked)
	}
	if c.want != "" || c.refusal != "" {
		if diff := cmp.Diff(before, sandboxtest.Snapshot(t, dir)); diff != "" {
			t.Errorf("a refused call changed the tree (-before +after):\n%s", diff)
		}
	}
}

// resolvedPathCases: path rules match the file a tool opens (18.4).
func resolvedPathCases() []policyCase {
	notAllowed := tool.CodeToolNotAllowed
	return []policyCase{
		{name: "read_file(.env) is denied by name", cfg: redTeam, tool: "read_file", args: readOf(".env"), want: notAllowed},
		{name: "read_file(.env) holds through a link to it (src/envlink)", cfg: redTeam, tool: "read_file", args: readOf("src/envlink"), want: notAllowed},
		{name: "read_file(.env) holds through a link to its directory (src/up/.env)", cfg: redTeam, tool: "read_file", args: readOf("src/up/.env"), want: notAllowed},
		{name: "read_file(.env) holds through links in links", cfg: redTeam, tool: "read_file", args: readOf("src/up/src/up/src/envlink"), want: notAllowed},
		{name: "read_file(.env) holds for ./.env", cfg: redTeam, tool: "read_file", args: readOf("./.env"), want: notAllowed},
		{name: "read_file(.env) holds for src/../.env", cfg: redTeam, tool: "read_file", args: readOf("src/../.env"), want: notAllowed},
		{name: "read_file(.env) holds for .//.env", cfg: redTeam, tool: "read_file", args: readOf(".//.env"), want: notAllowed},
		{name: "a link to an ordinary file reads it", cfg: redTeam, tool: "read_file", args: readOf("src/up/notes.txt")},
		{name: "write_file(src/**) writes below src", cfg: redTeam, tool: "write_file", args: writeOf("src/b.go")},
		{name: "write_file(src/**) does not reach src/up/notes.txt", cfg: redTeam, tool: "write_file", args: writeOf("src/up/notes.txt"), want: notAllowed},
		{name: "write_file(src/**) does not create src/up/planted.txt", cfg: redTeam, tool: "write_file", args: writeOf("src/up/planted.txt"), want: notAllowed},
		{name: "write_file(src/**) does not take src\\x (a file in the root on Linux) for src/x", cfg: redTeam, tool: "write_file", args: writeOf(`src\x`), want: notAllowed},
		{name: "write_file(src/**) does not reach .git/config through src/gitlink", cfg: redTeam, tool: "write_file", args: writeOf("src/gitlink/config"), want: notAllowed},
		{name: "edit(src/**) does not reach src/up/notes.txt", cfg: redTeam, tool: "edit",
			args: map[string]any{"path": "src/up/notes.txt", "old_string": "notes", "new_string": "x"}, want: notAllowed},
		{name: "multi_edit(src/**) does not reach src/up/notes.txt", cfg: redTeam, tool: "multi_edit",
			args: map[string]any{"path": "src/up/notes.txt", "edits": []any{map[string]any{"old_string": "notes", "new_string": "x"}}}, want: notAllowed},
		{name: "apply_patch(src/**) does not add src/up/planted.txt", cfg: redTeam, tool: "apply_patch",
			args: patchOf("*** Add File: src/up/planted.txt", "+x"), want: notAllowed},
		{name: "apply_patch(src/**) does not move to src/up/moved.go", cfg: redTeam, tool: "apply_patch",
			args: patchOf("*** Update File: src/a.go", "*** Move to: src/up/moved.go"), want: notAllowed},
		{name: "apply_patch(src/**) moves within src", cfg: redTeam, tool: "apply_patch",
			args: patchOf("*** Update File: src/a.go", "*** Move to: src/b.go")},
	}
}

// protectedPathCases: writing Quiver's and git's governing files always
// asks (12.2), and the hook-planting move is one such write (18.8).
func protectedPathCases() []policyCase {
	refused, notAllowed := tool.CodeApprovalDenied, tool.CodeToolNotAllowed
	cases := []policyCase{
		{name: "an approved write of a hook runs", cfg: openHouse, tool: "write_file", args: writeOf(".git/hooks/pre-push"), approve: true, asked: ".git"},
		{name: "an allow rule does not skip the question", cfg: policy.Config{Allow: []string{"write_file"}}, tool: "write_file", args: writeOf(".git/config"), want: refused, asked: ".git"},
		{name: "a deny rule still wins over an approver's yes", cfg: policy.Config{Default: policy.Allow, Deny: []string{"write_file(.git/**)"}},
			tool: "write_file", args: writeOf(".git/config"), approve: true, want: notAllowed},
		{name: "a deny default stays a deny", cfg: policy.Config{Default: policy.Deny, Allow: []string{"read_file"}}, tool: "write_file", args: writeOf(".git/config"), want: notAllowed},
		{name: "reading a protected path is not asked about", cfg: openHouse, tool: "read_file", args: readOf(".git/config")},
		{name: "an ordinary write is not asked about", cfg: openHouse, tool: "write_file", args: writeOf("src/new.txt")},
		{name: "edit of .git/config asks", cfg: openHouse, tool: "edit",
			args: map[string]any{"path": ".git/config", "old_string": "bare = false", "new_string": "fsmonitor = touch x"}, want: refused, asked: ".git"},
		{name: "multi_edit of .git/config asks", cfg: openHouse, tool: "multi_edit",
			args: map[string]any{"path": ".git/config", "edits": []any{map[string]any{"old_string": "bare = false", "new_string": "fsmonitor = x"}}}, want: refused, asked: ".git"},
		{name: "apply_patch adding a hook asks", cfg: openHouse, tool: "apply_patch",
			args: patchOf("*** Add File: .git/hooks/pre-commit", "+#!/bin/sh"), want: refused, asked: ".git"},
		{name: "apply_patch deleting from .git/hooks asks", cfg: openHouse, tool: "apply_patch",
			args: patchOf("*** Delete File: .git/hooks/pre-commit.sample"), want: refused, asked: ".git"},
		{name: "apply_patch moving a file away from .quiver asks", cfg: openHouse, tool: "apply_patch",
			args: patchOf("*** Update File: .quiver/tools/hello", "*** Move to: src/hello"), want: refused, asked: ".quiver"},
		{name: "apply_patch moving a file into .quiver asks", cfg: openHouse, tool: "apply_patch",
			args: patchOf("*** Update File: src/a.go", "*** Move to: .quiver/tools/a"), want: refused, asked: ".quiver"},
		{name: "18.8: moving pre-commit.sample to pre-commit asks, and no answer refuses", cfg: openHouse, tool: "apply_patch",
			args: patchOf("*** Update File: .git/hooks/pre-commit.sample", "*** Move to: .git/hooks/pre-commit"), want: refused, asked: ".git"},
		{name: "18.8: moving pre-commit.sample to pre-commit runs when a person approves", cfg: openHouse, tool: "apply_patch",
			args: patchOf("*** Update File: .git/hooks/pre-commit.sample", "*** Move to: .git/hooks/pre-commit"), approve: true, asked: ".git"},
		{name: "exec_command may not redirect into .git/config", cfg: openHouse, tool: "exec_command",
			args: map[string]any{"command": "echo '[core] fsmonitor = touch pwned' >> .git/config"}, refusal: ".git is a protected path"},
		{name: "exec_command may not redirect into .git/config through a link", cfg: openHouse, tool: "exec_command",
			args: map[string]any{"command": "echo x > src/gitlink/config"}, refusal: ".git is a protected path"},
		{name: "exec_command redirects into an ordinary file", cfg: openHouse, tool: "exec_command",
			args: map[string]any{"command": "echo x >> notes.txt"}},
	}
	for _, p := range []struct{ path, entry string }{
		{".git/config", ".git"}, {"./.git/config", ".git"}, {".git//config", ".git"},
		{"src/../.git/config", ".git"}, {"src/gitlink/config", ".git"}, {"src/up/.git/config", ".git"},
		{".git/hooks/pre-commit", ".git"}, {"src/hooks/pre-commit", ".git"}, {"src/gitlink/hooks/post-merge", ".git"},
		{".git/config.worktree", ".git"}, {".git/commondir", ".git"}, {".git/objects/info/alternates", ".git"},
		{"src/gitlink/commondir", ".git"}, {"sub/.git/config", ".git"}, {".quiver/tools/evil", ".quiver"}, {".quiver/settings.toml", ".quiver"},
		{"quiver.toml", "quiver.toml"}, {"src/up/quiver.toml", "quiver.toml"}, {"quorum.toml", "quorum.toml"}, {"./quorum.toml", "quorum.toml"},
		{"deploy/prod.yml", "deploy"}, {"deploy/new/x.yml", "deploy"},
	} {
		cases = append(cases, policyCase{name: "write_file " + p.path + " asks", cfg: openHouse, tool: "write_file", args: writeOf(p.path), want: refused, asked: p.entry})
	}
	return cases
}

// orderCases: a deny anywhere is final, an ask anywhere beats an allow
// (18.5).
func orderCases() []policyCase {
	notAllowed := tool.CodeToolNotAllowed
	return []policyCase{
		{name: "allow read_file with [policy.tools] read_file = deny refuses", tool: "read_file", args: readOf("notes.txt"), want: notAllowed,
			cfg: policy.Config{Allow: []string{"read_file"}, Tools: map[string]policy.Decision{"read_file": policy.Deny}}},
		{name: "allow read_file with [policy.tools] read_file = ask asks", tool: "read_file", args: readOf("notes.txt"), want: tool.CodeApprovalDenied, asked: "tools.read_file",
			cfg: policy.Config{Allow: []string{"read_file"}, Tools: map[string]policy.Decision{"read_file": policy.Ask}}},
		{name: "[policy.tools] write_file = allow yields to deny write_file(src/**)", tool: "write_file", args: writeOf("src/a.go"), want: notAllowed,
			cfg: policy.Config{Deny: []string{"write_file(src/**)"}, Tools: map[string]policy.Decision{"write_file": policy.Allow}}},
		{name: "a bare allow yields to an ask rule", tool: "write_file", args: writeOf("src/a.go"), want: tool.CodeApprovalDenied, asked: "ask: write_file(src/**)",
			cfg: policy.Config{Allow: []string{"write_file"}, Ask: []string{"write_file(src/**)"}}},
		{name: "an allowed command yields to [policy.tools] exec_command = deny", tool: "exec_command", args: map[string]any{"command": "git status"}, want: notAllowed,
			cfg: policy.Config{Allow: []string{"exec_command(git status)"}, Tools: map[string]policy.Decision{"exec_command": policy.Deny}}},
	}
}

// TestOfferedTools: a tool every call of which would be refused is not
// offered (18.6); AllowedTools is what models and MCP clients are offered.
func TestOfferedTools(t *testing.T) {
	cases := []struct {
		name            string
		cfg             policy.Config
		scope           sandbox.WriteScope
		offered, hidden []string
	}{
		{"a bare deny and a tools deny hide the tool", policy.Config{Deny: []string{"write_file"}, Tools: map[string]policy.Decision{"list_files": policy.Deny}},
			sandbox.WorkspaceWrite, []string{"read_file", "edit"}, []string{"write_file", "list_files"}},
		{"allow with tools deny hides the tool", policy.Config{Allow: []string{"read_file"}, Tools: map[string]policy.Decision{"read_file": policy.Deny}},
			sandbox.WorkspaceWrite, []string{"edit"}, []string{"read_file"}},
		{"a specifier deny keeps the tool", policy.Config{Deny: []string{"read_file(.env)"}},
			sandbox.WorkspaceWrite, []string{"read_file"}, nil},
		{"default deny hides what no rule names and keeps what one does", policy.Config{Default: policy.Deny, Allow: []string{"edit(src/**)"}, Ask: []string{"read_file"}},
			sandbox.WorkspaceWrite, []string{"edit", "read_file"}, []string{"write_file", "glob_search", "exec_command"}},
		{"read-only hides writers and keeps exec, whose low-risk calls run", policy.Config{},
			sandbox.ReadOnly, []string{"read_file", "exec_command"}, []string{"write_file", "edit", "apply_patch"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tk, err := quiver.New(quiver.WithRoot(t.TempDir()), builtin.Standard(), quiver.WithPolicy(mustPolicy(t, c.cfg, c.scope)))
			if err != nil {
				t.Fatal(err)
			}
			defer tk.Close()
			tools, err := tk.AllowedTools(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, tl := range tools {
				names = append(names, tl.Name)
			}
			for _, n := range c.offered {
				if !slices.Contains(names, n) {
					t.Errorf("%s is not offered: %v", n, names)
				}
			}
			for _, n := range c.hidden {
				if slices.Contains(names, n) {
					t.Errorf("%s is offered, but every call would be refused", n)
				}
				if _, err := tk.Invoke(context.Background(), n, map[string]any{}); tool.CodeOf(err) != tool.CodeToolNotAllowed {
					t.Errorf("%s hidden but its call is %v, want TOOL_NOT_ALLOWED", n, err)
				}
			}
		})
	}
}

// TestProtectedRefusalSuggestsNoRule: no allow rule passes a write to a
// protected path, so the refusal names the path and suggests none.
func TestProtectedRefusalSuggestsNoRule(t *testing.T) {
	dir := linkedProject(t)
	tk, err := quiver.New(quiver.WithRoot(dir), builtin.Standard(), quiver.WithPolicy(mustPolicy(t, policy.Config{Allow: []string{"write_file"}}, sandbox.WorkspaceWrite)))
	if err != nil {
		t.Fatal(err)
	}
	defer tk.Close()
	_, err = tk.Invoke(context.Background(), "write_file", writeOf("src/gitlink/hooks/pre-commit"))
	if tool.CodeOf(err) != tool.CodeApprovalDenied || !strings.Contains(err.Error(), "protected path .git ") || strings.Contains(err.Error(), "allow it with the rule") {
		t.Errorf("refusal = %v, want APPROVAL_DENIED naming .git and no rule", err)
	}
}

// TestAbsoluteConfigFileIsProtected: a configuration file named by an
// absolute path (as cmd/quiver names the one in use) is protected under
// the relative spelling a model sends, and through a link to it.
func TestAbsoluteConfigFileIsProtected(t *testing.T) {
	dir := linkedProject(t)
	if err := os.WriteFile(filepath.Join(dir, "team.toml"), []byte("[policy]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("../team.toml", filepath.Join(dir, "src", "team")); err != nil {
		t.Fatal(err)
	}
	cfg := policy.Config{Default: policy.Allow, ConfigFiles: []string{filepath.Join(dir, "team.toml")}}
	for _, path := range []string{"team.toml", "./team.toml", "src/team", filepath.Join(dir, "team.toml")} {
		rec := &recorder{}
		tk, err := quiver.New(quiver.WithRoot(dir), builtin.Standard(), quiver.WithPolicy(mustPolicy(t, cfg, sandbox.WorkspaceWrite)), quiver.WithApprover(rec))
		if err != nil {
			t.Fatal(err)
		}
		_, err = tk.Invoke(context.Background(), "write_file", writeOf(path))
		tk.Close()
		if tool.CodeOf(err) != tool.CodeApprovalDenied || len(rec.asked) != 1 || !strings.Contains(rec.asked[0].Rule, "team.toml") {
			t.Errorf("write_file %s: %v (asked %d times), want a question naming team.toml", path, err, len(rec.asked))
		}
	}
}
