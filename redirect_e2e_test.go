//go:build unix

package quiver_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/quiverkit/quiver"
	"github.com/quiverkit/quiver/policy"
	"github.com/quiverkit/quiver/policy/approve"
	"github.com/quiverkit/quiver/provider/builtin"
	"github.com/quiverkit/quiver/sandbox"
)

// TestApprovedRedirectionsCannotWriteProtectedPaths: the interpreter opens a
// line's redirections itself, outside the sandbox, so it refuses a
// protected path as the kernel refuses it to the line's processes: whoever
// approved the line (here --yes), in every spelling a redirection has.
func TestApprovedRedirectionsCannotWriteProtectedPaths(t *testing.T) {
	// The interpreter (mvdan.cc/sh) does not run some forms at all: they
	// fail before any file is opened, and must keep doing so or be refused.
	unsupported := map[string]bool{"clobber": true, "read-write": true, ">& a file": true,
		"a descriptor opened by exec": true, "a descriptor opened by exec, read-write": true}
	lines := []struct{ name, line string }{
		{"append", "echo pwned >> .git/config"},
		{"truncate", "echo pwned > .git/config"},
		{"clobber", "echo pwned >| .git/config"},
		{"read-write", "echo pwned 1<> .git/config"},
		{"both streams", "echo pwned &> .git/config"},
		{"both streams appended", "echo pwned &>> .git/config"},
		{">& a file", "echo pwned >& .git/config"},
		{"a descriptor opened by exec", "exec 3>> .git/config; echo pwned >&3"},
		{"a descriptor opened by exec, read-write", "exec 3<> .git/config; echo pwned >&3"},
		{"a redirection before the command", ">> .git/config echo pwned"},
		{"a block's redirection", "{ echo pwned; } >> .git/config"},
		{"a loop's redirection", "for x in 1; do echo pwned; done >> .git/config"},
		{"a subshell's redirection", "(echo pwned) >> .git/config"},
		{"through a symlinked directory", "echo pwned >> src/gitlink/config"},
		{"through a link to the hooks", "echo pwned > src/hooks/pre-commit"},
		{"after cd into .git", "cd .git && echo pwned >> config"},
		{"after cd through a link", "cd src/gitlink && echo pwned >> config"},
		{"a link made earlier in the line", "ln -s .git/config made && echo pwned >> made"},
		{"a link to a directory made earlier in the line", "ln -s .git made && echo pwned >> made/config"},
		{"a dangling link to a hook made earlier in the line", "ln -s .git/hooks/pre-commit made && echo pwned > made"},
		{"a link to a link", "ln -s src/gitlink made && echo pwned >> made/config"},
		{"a hook that does not exist yet", "echo pwned > .git/hooks/pre-commit"},
		{"quiver.toml that does not exist yet", "echo 'default = \"allow\"' > quiver.toml"},
		{"a script tool", "echo pwned > .quiver/tools/hello"},
		{"a new script tool", "echo pwned > .quiver/tools/new"},
		{"the operator's protected list", "echo pwned > deploy/prod.yml"},
		{"spelled with dots and slashes", "echo pwned >> ./src/../.git//config"},
		{"an absolute path", "echo pwned >> \"$PWD/.git/config\""},
		{"a path built by the line", "p=.git; echo pwned >> $p/config"},
		{"eval", "eval 'echo pwned >> .git/config'"},
	}
	watched := []string{".git/config", ".git/hooks/pre-commit", "quiver.toml", ".quiver/tools/hello", ".quiver/tools/new", "deploy/prod.yml"}
	for _, box := range []struct {
		name string
		cfg  sandbox.Config
	}{{"sandbox off", sandbox.Config{Disabled: true}}, {"sandbox on", sandbox.Config{}}} {
		for _, c := range lines {
			t.Run(box.name+"/"+c.name, func(t *testing.T) {
				dir := linkedProject(t)
				before := readAll(t, dir, watched)
				tk, err := quiver.New(quiver.WithRoot(dir), builtin.Standard(), quiver.WithSandbox(box.cfg),
					quiver.WithPolicy(mustPolicy(t, policy.Config{Default: policy.Ask, Protected: []string{"deploy/**"}}, sandbox.WorkspaceWrite)),
					quiver.WithApprover(approve.Auto))
				if err != nil {
					t.Fatal(err)
				}
				defer tk.Close()
				out, err := tk.Invoke(context.Background(), "exec_command", map[string]any{"command": c.line})
				if err != nil {
					t.Fatalf("invoke: %v", err)
				}
				text := out.Content.String()
				switch {
				case unsupported[c.name]:
					if !strings.Contains(text, "unhandled") && !strings.Contains(text, "unsupported") && !strings.Contains(text, "is a protected path") {
						t.Errorf("output %q: the interpreter ran a form it did not before, and did not refuse it", text)
					}
				case !strings.Contains(text, "is a protected path"):
					t.Errorf("output %q does not say the path is protected", text)
				}
				after := readAll(t, dir, watched)
				for _, name := range watched {
					if before[name] != after[name] {
						t.Errorf("%s changed: %q -> %q", name, before[name], after[name])
					}
				}
			})
		}
	}
}

// readAll returns the content of each named file, "<absent>" for one that
// does not exist.
func readAll(t *testing.T, dir string, names []string) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, n := range names {
		b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(n)))
		switch {
		case os.IsNotExist(err):
			out[n] = "<absent>"
		case err != nil:
			t.Fatal(err)
		default:
			out[n] = string(b)
		}
	}
	return out
}
