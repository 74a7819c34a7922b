package custom_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/quiverkit/quiver"
	"github.com/quiverkit/quiver/policy"
	"github.com/quiverkit/quiver/policy/approve"
	"github.com/quiverkit/quiver/provider/custom"
	"github.com/quiverkit/quiver/sandbox"
	"github.com/quiverkit/quiver/sandbox/sandboxtest"
	"github.com/quiverkit/quiver/tool"
)

// gitTools are custom tools that run git, and one that runs a shell, each
// rated low-risk so that it also runs under the read-only scope.
var gitTools = []custom.Spec{
	// A git alias runs with the profile of the git it belongs to: the one
	// the start path gives an approved git, .git writable but for what
	// redirects git.
	{Name: "git_alias", Command: "git -c {alias} attack", Risk: "low",
		Params: []custom.Param{{Name: "alias", Type: "string", Required: true}}},
	{Name: "git_add", Command: "git add {path}", Risk: "low",
		Params: []custom.Param{{Name: "path", Type: "string", Required: true}}},
	{Name: "git_commit", Command: "git -c user.name=a -c user.email=b@c commit -qam {message}", Risk: "low",
		Params: []custom.Param{{Name: "message", Type: "string", Required: true}}},
	// The line the second probe of issue 26 ran: n8's config names an
	// external diff.
	{Name: "git_diff", Command: "git diff --no-index x.t y.t", Workdir: "n8", Risk: "low"},
	{Name: "shell", Command: "sh -c {line}", Risk: "low",
		Params: []custom.Param{{Name: "line", Type: "string", Required: true}}},
}

// gitToolkit serves gitTools in ws under scope, every call allowed.
func gitToolkit(t *testing.T, ws string, scope sandbox.WriteScope) *quiver.Toolkit {
	t.Helper()
	p, err := custom.New(gitTools, custom.Options{})
	if err != nil {
		t.Fatal(err)
	}
	pol, err := policy.New(policy.Config{Default: policy.Allow}, scope)
	if err != nil {
		t.Fatal(err)
	}
	tk, err := quiver.New(quiver.WithRoot(ws), quiver.WithPolicy(pol), quiver.WithApprover(approve.Auto), quiver.WithProvider(p))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tk.Close() })
	return tk
}

// invoke calls a tool and returns its text, or its error's.
func invoke(t *testing.T, tk *quiver.Toolkit, name string, args map[string]any) (string, error) {
	t.Helper()
	out, err := tk.Invoke(context.Background(), name, args)
	if err != nil {
		return err.Error(), err
	}
	return out.Content.String(), nil
}

// TestGitMetadataHoldsForCustomTools runs the class 7 lines of the escape
// table (testdata/escapes.txt) through a custom tool whose program is git
// (each line as a git alias), under workspace-write and read-only, and one
// whose program is sh, under workspace-write: the user's next git status
// runs nothing they planted, whether the mounts refused the write or the
// start path's guard undid it once the git had exited.
func TestGitMetadataHoldsForCustomTools(t *testing.T) {
	if err := sandbox.Check(); err != nil {
		t.Fatalf("this machine must support the sandbox: %v", err)
	}
	escapes := sandboxtest.LoadEscapes(t, "../../testdata/escapes.txt")
	for _, scope := range []sandbox.WriteScope{sandbox.WorkspaceWrite, sandbox.ReadOnly} {
		t.Run(string(scope), func(t *testing.T) {
			t.Parallel()
			w := sandboxtest.NewWatch(t)
			for _, e := range escapes {
				if e.Class != sandboxtest.ClassGitMetadata {
					continue
				}
				line := w.Expand(e.Command)
				calls := []struct {
					tool string
					args map[string]any
				}{{"git_alias", map[string]any{"alias": "alias.attack=!" + line}}}
				if scope == sandbox.WorkspaceWrite { // read-only, it writes nothing
					calls = append(calls, calls[0])
					calls[1].tool, calls[1].args = "shell", map[string]any{"line": line}
				}
				for _, call := range calls {
					ws := w.Workspace(t, e)
					out, _ := invoke(t, gitToolkit(t, ws, scope), call.tool, call.args)
					if what := w.TouchedIn(t, e, ws, out); what != "" {
						t.Errorf("%s, %s: %s\n%s", call.tool, e.Name, what, out)
					}
				}
			}
		})
	}
}

// TestCustomToolGitGetsGitsProfile: a custom tool's git gets, from the
// start path, what exec_command's git gets. Under workspace-write it may
// commit; what it did to .git that would send the user's git elsewhere — a
// commondir, a gitlink to a nested repository — is undone once it has
// exited, and the call fails saying so. Under read-only it runs no program
// a repository's config names. (Before the start path did this for every
// caller, a custom tool's git found all of .git read-only: it could not
// commit, and the read-only one ran a nested repository's external diff.)
func TestCustomToolGitGetsGitsProfile(t *testing.T) {
	if err := sandbox.Check(); err != nil {
		t.Fatalf("this machine must support the sandbox: %v", err)
	}
	w := sandboxtest.NewWatch(t)
	refused := func(t *testing.T, out string, err error) {
		t.Helper()
		if !errors.Is(err, sandbox.ErrGitRefused) || tool.CodeOf(err) != tool.CodeExecutionFailed {
			t.Errorf("%v, want EXECUTION_FAILED wrapping sandbox.ErrGitRefused\n%s", err, out)
		}
	}
	t.Run("commit", func(t *testing.T) {
		ws := w.Workspace(t, sandboxtest.Escape{})
		if err := os.WriteFile(filepath.Join(ws, "a.txt"), []byte("changed\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		if out, err := invoke(t, gitToolkit(t, ws, sandbox.WorkspaceWrite), "git_commit", map[string]any{"message": "by a tool"}); err != nil || !strings.HasPrefix(out, "exit_code: 0\n") {
			t.Fatalf("git commit: %v\n%s", err, out)
		}
		if got := sandboxtest.UserGit(t, ws, "log", "-1", "--format=%s"); got != "by a tool\n" {
			t.Errorf("the last commit is %q, want the tool's", got)
		}
	})
	t.Run("commondir", func(t *testing.T) {
		ws := w.Workspace(t, sandboxtest.Escape{Class: sandboxtest.ClassGitMetadata})
		out, err := invoke(t, gitToolkit(t, ws, sandbox.WorkspaceWrite), "git_alias", map[string]any{"alias": "alias.attack=!echo ../evil.git > .git/commondir"})
		refused(t, out, err)
		if _, err := os.Lstat(filepath.Join(ws, ".git/commondir")); err == nil {
			t.Error(".git/commondir is left")
		}
	})
	t.Run("gitlink", func(t *testing.T) {
		ws := w.Workspace(t, sandboxtest.Escape{Class: sandboxtest.ClassGitMetadata})
		sandboxtest.UserGit(t, ws, "init", "-q", "nest")
		sandboxtest.UserGit(t, ws, "-C", "nest", "-c", "user.name=a", "-c", "user.email=b@c", "commit", "-q", "--allow-empty", "-m", "x")
		out, err := invoke(t, gitToolkit(t, ws, sandbox.WorkspaceWrite), "git_add", map[string]any{"path": "nest"})
		refused(t, out, err)
		if staged := sandboxtest.UserGit(t, ws, "ls-files", "-s", "nest"); staged != "" {
			t.Errorf("the index holds %q", staged)
		}
	})
	t.Run("read-only git diff", func(t *testing.T) {
		ws := w.Workspace(t, sandboxtest.Escape{Class: sandboxtest.ClassGitMetadata})
		out, err := invoke(t, gitToolkit(t, ws, sandbox.ReadOnly), "git_diff", map[string]any{})
		if err != nil {
			t.Fatal(err)
		}
		if what := w.TouchedIn(t, sandboxtest.Escape{}, ws, out); what != "" {
			t.Errorf("git diff in a nested repository: %s\n%s", what, out)
		}
	})
}
