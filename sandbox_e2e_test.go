package quiver_test

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/quiverkit/quiver"
	"github.com/quiverkit/quiver/internal/shell"
	"github.com/quiverkit/quiver/policy"
	"github.com/quiverkit/quiver/policy/approve"
	"github.com/quiverkit/quiver/provider/builtin"
	"github.com/quiverkit/quiver/provider/custom"
	"github.com/quiverkit/quiver/provider/script"
	"github.com/quiverkit/quiver/sandbox"
	"github.com/quiverkit/quiver/sandbox/sandboxtest"
	"github.com/quiverkit/quiver/tool"
	"github.com/quiverkit/quiver/tools"
	"github.com/quiverkit/quiver/workspace"
)

// escapeToolkit is a toolkit that approves everything, under scope, with
// a custom tool and a script tool that copy a file where they are told.
func escapeToolkit(t *testing.T, scope sandbox.WriteScope) (*quiver.Toolkit, string) {
	t.Helper()
	ws := t.TempDir()
	mustWrite(t, filepath.Join(ws, "a.txt"), "inside\n", 0o644)
	return escapeToolkitIn(t, ws, scope, policy.Allow, approve.Auto), ws
}

// escapeToolkitIn is escapeToolkit in the workspace ws, with the policy's
// default decision def and approver.
func escapeToolkitIn(t *testing.T, ws string, scope sandbox.WriteScope, def policy.Decision, approver policy.Approver) *quiver.Toolkit {
	t.Helper()
	mustWrite(t, filepath.Join(ws, ".quiver/tools/copy_to"), "#!/bin/sh\n# quiver: description Copy a.txt to a path.\n# quiver: param dest string required Where.\nexec cp a.txt \"$(sed 's/.*\"dest\": *\"\\([^\"]*\\)\".*/\\1/')\"\n", 0o755)
	pol, err := policy.New(policy.Config{Default: def}, scope)
	if err != nil {
		t.Fatal(err)
	}
	cust, err := custom.New([]custom.Spec{{Name: "copy_file", Description: "Copy a file.", Command: "cp {src} {dest}",
		Params: []custom.Param{{Name: "src", Type: "string", Required: true}, {Name: "dest", Type: "string", Required: true}}}}, custom.Options{})
	if err != nil {
		t.Fatal(err)
	}
	tk, err := quiver.New(quiver.WithRoot(ws), builtin.Standard(), quiver.WithPolicy(pol), quiver.WithApprover(approver),
		quiver.WithProvider(cust), quiver.WithProvider(script.New(script.Options{Dir: filepath.Join(ws, ".quiver/tools")})))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tk.Close() })
	return tk
}

func mustWrite(t *testing.T, path, content string, mode os.FileMode) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), mode); err != nil {
		t.Fatal(err)
	}
}

// TestSandboxEscapes runs every attempt of testdata/escapes.txt through
// exec_command, and some as background jobs, and attempts through a custom
// tool and a script tool, under workspace-write and read-only with every
// call approved: the host is left as it was (see sandboxtest.Watch), each
// attempt judged on its own. Attempts that change the workspace (classes 7
// and 10) each get a new one; the others aim at the host, and those of one
// class share a workspace and a toolkit. Class 8 runs with the policy's
// default at ask and approval refused, so that only what the classifier
// calls read-only runs. The descriptors an attempt may not use are
// inheritable by every process this test starts; exec_command gives no
// terminal, so class 3 is judged through `quiver sandbox` (cmd/quiver).
func TestSandboxEscapes(t *testing.T) {
	if err := sandbox.Check(); err != nil {
		t.Fatalf("this machine must support the sandbox: %v", err)
	}
	escapes := sandboxtest.LoadEscapes(t, "testdata/escapes.txt")
	for _, scope := range []sandbox.WriteScope{sandbox.WorkspaceWrite, sandbox.ReadOnly} {
		t.Run(string(scope), func(t *testing.T) {
			t.Parallel()
			w := sandboxtest.NewWatch(t)
			w.ShareHere(t)
			shared := map[int]escapeRunner{} // by class
			runnerFor := func(e sandboxtest.Escape) escapeRunner {
				if r, ok := shared[e.Class]; ok && !e.OwnWorkspace() {
					return r
				}
				r := newEscapeRunner(t, w, e, scope)
				shared[e.Class] = r
				return r
			}
			for _, e := range escapes {
				if what := runnerFor(e).run(t, w, e, false); what != "" {
					t.Errorf("class %d, %s: %s", e.Class, e.Name, what)
				}
			}
			for _, e := range escapes[:8] {
				if what := runnerFor(e).run(t, w, e, true); what != "" {
					t.Errorf("class %d, %s, as a background job: %s", e.Class, e.Name, what)
				}
			}
			tk := shared[0].tk
			ctx := context.Background()
			tk.Invoke(ctx, "copy_file", map[string]any{"src": "a.txt", "dest": filepath.Join(w.Out, "custom")})
			if what := w.Touched(t); what != "" {
				t.Errorf("custom tool %s", what)
			}
			tk.Invoke(ctx, "copy_to", map[string]any{"dest": filepath.Join(w.Out, "script")})
			if what := w.Touched(t); what != "" {
				t.Errorf("script tool %s", what)
			}
		})
	}
}

// escapeRunner is a workspace made for an attempt and a toolkit in it:
// every call approved, but for class 8, whose calls are asked about and
// refused.
type escapeRunner struct {
	ws string
	tk *quiver.Toolkit
}

func newEscapeRunner(t *testing.T, w *sandboxtest.Watch, e sandboxtest.Escape, scope sandbox.WriteScope) escapeRunner {
	t.Helper()
	ws := w.Workspace(t, e)
	def, approver := policy.Allow, approve.Auto
	if e.Class == sandboxtest.ClassClassifier {
		def, approver = policy.Ask, approve.Deny
	}
	return escapeRunner{ws, escapeToolkitIn(t, ws, scope, def, approver)}
}

// run runs one attempt through exec_command, in the foreground or as a
// background job waited for to its end, and returns what it touched.
func (r escapeRunner) run(t *testing.T, w *sandboxtest.Watch, e sandboxtest.Escape, background bool) string {
	t.Helper()
	ctx := context.Background()
	timeout := 30
	in := tools.ExecCommandInput{Command: w.Expand(e.Command), Env: w.ExpandEnv(e.Env), TimeoutSecs: &timeout, Background: background}
	out, err := quiver.Call(ctx, r.tk, tools.ExecCommand, in)
	var output string
	switch {
	case err != nil && e.Class == sandboxtest.ClassClassifier && shell.ReadOnlyCommand(in.Command, nil):
		// Class 8 is about what runs unasked: refused, it proves nothing.
		t.Errorf("class 8, %s: called read-only, yet not run (%v)", e.Name, err)
	case err != nil:
		t.Logf("class %d, %s: %v", e.Class, e.Name, err) // a refusal is fine; only the effect matters
	case background:
		res, _ := r.tk.Invoke(ctx, "exec_output", map[string]any{"job_id": out.JobID, "wait_secs": 30})
		output = res.Content.String()
	default:
		output = out.Output
	}
	return w.TouchedIn(t, e, r.ws, output)
}

// TestSandboxProtectedPaths: no confined process may write the protected
// paths of the workspace, by any program or spelling, even with the call
// approved; nor replace the directories that hold them.
func TestSandboxProtectedPaths(t *testing.T) {
	tk, ws := escapeToolkit(t, sandbox.WorkspaceWrite)
	mustWrite(t, filepath.Join(ws, "quiver.toml"), "[policy]\ndefault = \"ask\"\n", 0o644)
	mustWrite(t, filepath.Join(ws, ".git/config"), "[core]\n\tbare = false\n", 0o644)
	mustWrite(t, filepath.Join(ws, ".git/HEAD"), "ref: refs/heads/main\n", 0o644)
	mustWrite(t, filepath.Join(ws, ".git/hooks/pre-commit.sample"), "#!/bin/sh\n", 0o755)
	before := sandboxtest.Snapshot(t, ws)
	for _, line := range []string{
		"echo x >> .git/config",
		"sh -c 'echo x >> .git/config'",
		"git config core.fsmonitor 'touch pwned'",
		"python3 -c \"open('.git/config','a').write('x')\"",
		"cp a.txt .git/hooks/pre-commit",
		"sh -c 'cp a.txt .git/hooks/pre-commit && chmod +x .git/hooks/pre-commit'",
		"rm -rf .git/hooks",
		"mv .git .git-old && mkdir .git",
		"mv .git/config .git/config.old",
		"sh -c 'echo \"[policy]\" > quiver.toml'",
		"sh -c 'printf x > q.new && mv q.new quiver.toml'",
		"rm -f quiver.toml",
		"sh -c 'echo x > .quiver/tools/evil && chmod +x .quiver/tools/evil'",
		"chmod +x .quiver/tools/copy_to; rm -f .quiver/tools/copy_to",
		"ln -s .git/config cfg; sh -c 'echo x >> cfg'",
		"ln .git/config hard; sh -c 'echo x >> hard'",
		"touch -d 2001-01-01 .git/config",
	} {
		out, err := tk.Invoke(context.Background(), "exec_command", map[string]any{"command": line})
		t.Logf("%s: %v %s", line, err, out.Content)
		after := sandboxtest.Snapshot(t, ws)
		// .git itself is not compared: an approved git creates and removes
		// its lock files there.
		for _, path := range []string{"quiver.toml", ".git/config", ".git/HEAD", ".git/hooks", ".git/hooks/pre-commit.sample", ".quiver/tools", ".quiver/tools/copy_to"} {
			if before[path] != after[path] {
				t.Errorf("%q changed %s: %q -> %q", line, path, before[path], after[path])
			}
		}
		for path := range after {
			// An approved git finds the directories it may not write made,
			// empty, so that they can be pinned.
			madeToPin := strings.HasPrefix(after[path], "d") && slices.Contains([]string{".git/info", ".git/objects/info", ".git/worktrees", ".git/modules"}, path)
			if (strings.HasPrefix(path, ".git/") || strings.HasPrefix(path, ".quiver/")) && before[path] == "" && !madeToPin {
				t.Errorf("%q created %s", line, path)
			}
		}
	}
}

// TestSandboxNormalWork: inside the workspace, the work a coding agent does
// still works under the sandbox: go build (with a build cache of the
// workspace's own, as docs/sandbox.md advises: the user's shared cache stays
// read-only; go test with a cold cache compiles the standard library,
// minutes on a busy machine), git init, add and commit with
// .git/config and .git/hooks read-only, npm test, temporary files.
func TestSandboxNormalWork(t *testing.T) {
	ws := t.TempDir()
	mustWrite(t, filepath.Join(ws, "go.mod"), "module example.com/w\n\ngo 1.22\n", 0o644)
	mustWrite(t, filepath.Join(ws, "w.go"), "package w\n\nfunc Two() int { return 2 }\n", 0o644)
	mustWrite(t, filepath.Join(ws, "w_test.go"), "package w\n\nimport \"testing\"\n\nfunc TestTwo(t *testing.T) {\n\tif Two() != 2 {\n\t\tt.Fatal(Two())\n\t}\n}\n", 0o644)
	mustWrite(t, filepath.Join(ws, "package.json"), `{"name":"w","version":"1.0.0","scripts":{"test":"node -e \"require('fs').writeFileSync('npm-ran.txt','ok')\""}}`, 0o644)
	pol, err := policy.New(policy.Config{Default: policy.Allow}, sandbox.WorkspaceWrite)
	if err != nil {
		t.Fatal(err)
	}
	tk, err := quiver.New(quiver.WithRoot(ws), builtin.Standard(), quiver.WithPolicy(pol), quiver.WithApprover(approve.Auto),
		quiver.Override(tools.ExecConfigKey, func(context.Context) (tools.ExecConfig, error) {
			return tools.ExecConfig{EnvAllow: []string{"GOROOT", "GOTOOLCHAIN", "GOFLAGS", "GOMODCACHE"}}, nil
		}))
	if err != nil {
		t.Fatal(err)
	}
	defer tk.Close()
	git := "git -c user.name=Q -c user.email=q@example.invalid"
	for _, line := range []string{
		"GOCACHE=\"$PWD/.cache/go-build\" GOTOOLCHAIN=local GOFLAGS=-mod=mod go build ./...",
		"git init -q -b main .",
		git + " add -A",
		git + " commit -q -m first",
		"echo more >> w.go && " + git + " commit -q -am second",
		"git log --oneline | wc -l | grep -qx 2",
		"npm test --silent --cache \"$TMPDIR/npm\" --logs-dir \"$TMPDIR/npm-logs\" && test -s npm-ran.txt",
		"f=$(mktemp) && echo temp > \"$f\" && cat \"$f\"",
	} {
		out, err := tk.Invoke(context.Background(), "exec_command", map[string]any{"command": line, "timeout_secs": 300})
		if err != nil || !strings.HasPrefix(out.Content.String(), "exit code 0") {
			t.Errorf("%s: %v\n%s", line, err, out.Content)
		}
	}
	// The user's shared build cache stays out of reach: a confined command
	// cannot plant an entry that a later unconfined build would run.
	poison := filepath.Join(goEnv(t, "GOCACHE"), "quiver-test-poison-"+filepath.Base(ws))
	t.Cleanup(func() { os.Remove(poison) })
	out, err := tk.Invoke(context.Background(), "exec_command", map[string]any{"command": "touch " + poison})
	if _, serr := os.Stat(poison); err != nil || strings.HasPrefix(out.Content.String(), "exit code 0") || serr == nil {
		t.Errorf("a confined write to the shared GOCACHE: %v, stat %v\n%s", err, serr, out.Content)
	}
}

func goEnv(t *testing.T, name string) string {
	t.Helper()
	out, err := exec.Command("go", "env", name).Output()
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(out))
}

// TestSandboxWrongGuess: a call its tool rates low-risk (exec_command's
// read-only classifier) runs under the read-only profile whatever the
// scope, so a wrong guess still cannot write or reach the network. The
// tool here guesses wrong on purpose: it rates every call low-risk and
// runs whatever it is given.
func TestSandboxWrongGuess(t *testing.T) {
	type in struct {
		Argv []string `json:"argv"`
	}
	run := tool.Func("run_guessed", "Runs argv.", func(ctx context.Context, tc tool.Context, in in) (string, error) {
		ws, err := workspace.From(ctx, tc)
		if err != nil {
			return "", err
		}
		box, err := sandbox.For(ctx, tc, ws.Dir())
		if err != nil {
			return "", err
		}
		path, err := exec.LookPath(in.Argv[0])
		if err != nil {
			return "", err
		}
		cmd := &exec.Cmd{Path: path, Args: in.Argv, Dir: ws.Dir()}
		if err := box.Wrap(cmd); err != nil {
			return "", err
		}
		out, err := cmd.CombinedOutput()
		return string(out), err
	}, tool.WithRisk(tool.RiskHigh), tool.WithCallRisk(func(context.Context, tool.Context, in) tool.Rating { return tool.Rating{Risk: tool.RiskLow} }))
	for _, scope := range []sandbox.WriteScope{sandbox.WorkspaceWrite, sandbox.Unrestricted} {
		t.Run(string(scope), func(t *testing.T) {
			ws := t.TempDir()
			pol, err := policy.New(policy.Config{}, scope)
			if err != nil {
				t.Fatal(err)
			}
			tk, err := quiver.New(quiver.WithRoot(ws), builtin.Standard(), quiver.WithPolicy(pol), quiver.WithTools(run)) // no approver
			if err != nil {
				t.Fatal(err)
			}
			defer tk.Close()
			w := sandboxtest.NewWatch(t)
			for _, argv := range [][]string{{"touch", "inside.txt"}, {"cp", "/etc/hostname", w.Out + "/x"},
				{"curl", "-s", "-m", "5", w.Expand("http://{HOST}:{TCPPORT}/")}} {
				_, err := tk.Invoke(context.Background(), "run_guessed", map[string]any{"argv": argv})
				if code := tool.CodeOf(err); code != tool.CodeExecutionFailed {
					t.Errorf("%v: %v, want it run unapproved and fail in the kernel", argv, err)
				}
			}
			if _, err := os.Stat(filepath.Join(ws, "inside.txt")); err == nil {
				t.Error("a call run as read-only wrote in the workspace")
			}
			if what := w.Touched(t); what != "" {
				t.Errorf("a call run as read-only %s", what)
			}
		})
	}
}

// TestSandboxSpecFromTheCallIsIgnored: a call cannot hand the launcher a
// looser profile through its own environment: the launch spec a command
// carries is replaced by the toolkit's, and an approved call that tries
// still cannot write outside or reach the host.
func TestSandboxSpecFromTheCallIsIgnored(t *testing.T) {
	tk, ws := escapeToolkit(t, sandbox.WorkspaceWrite)
	w := sandboxtest.NewWatch(t)
	loose := `{"workspace":"/","network":true,"path":"/bin/sh","args":["sh"]}`
	for _, env := range [][]string{{"QUIVER_SANDBOX_SPEC=" + loose}, {"QUIVER_SANDBOX_LAUNCHER=/bin/sh"}} {
		out, err := tk.Invoke(context.Background(), "exec_command", map[string]any{"env": env,
			"command": w.Expand("cp a.txt {OUT}/x; curl -s -m 5 http://{HOST}:{TCPPORT}/")})
		if err != nil || !strings.Contains(out.Content.String(), "exit code") {
			t.Fatalf("env %v: the command did not run: %v %s", env, err, out.Content)
		}
		if what := w.Touched(t); what != "" {
			t.Errorf("env %v: the command %s", env, what)
		}
	}
	if _, err := os.Stat(filepath.Join(ws, "a.txt")); err != nil {
		t.Fatal(err)
	}
}

// TestSandboxInProcessToolStartsNothing: a tool that declares it starts no
// process (tool.InProcess), and then tries, through the profile the pipeline
// gives it or one it derives from that, fails its call with nothing started;
// the same tool without the declaration runs its process.
func TestSandboxInProcessToolStartsNothing(t *testing.T) {
	ws := t.TempDir()
	starter := func(derive func(*sandbox.Profile) *sandbox.Profile) func(context.Context, tool.Context, struct{ File string }) (string, error) {
		return func(ctx context.Context, tc tool.Context, in struct{ File string }) (string, error) {
			box, err := sandbox.For(ctx, tc, ws)
			if err != nil {
				return "", err
			}
			cmd := exec.Command("sh", "-c", "echo > "+in.File)
			cmd.Dir = ws
			if err := derive(box).Wrap(cmd); err != nil {
				return "", sandbox.ToolError(err)
			}
			return "", cmd.Run()
		}
	}
	given := func(p *sandbox.Profile) *sandbox.Profile { return p }
	unconfined := func(p *sandbox.Profile) *sandbox.Profile { return p.With(sandbox.Unrestricted).WithNetwork() }
	pol, err := policy.New(policy.Config{Default: policy.Allow}, sandbox.WorkspaceWrite)
	if err != nil {
		t.Fatal(err)
	}
	tk, err := quiver.New(quiver.WithRoot(ws), quiver.WithPolicy(pol), quiver.WithApprover(approve.Auto), quiver.WithTools(
		tool.Func("claims_none", "d", starter(given), tool.InProcess()),
		tool.Func("claims_none_derives", "d", starter(unconfined), tool.InProcess()),
		tool.Func("honest", "d", starter(given)),
	))
	if err != nil {
		t.Fatal(err)
	}
	defer tk.Close()
	for name, wantStarted := range map[string]bool{"claims_none": false, "claims_none_derives": false, "honest": true} {
		_, err := tk.Invoke(context.Background(), name, map[string]any{"File": name})
		_, statErr := os.Stat(filepath.Join(ws, name))
		if started := statErr == nil; started != wantStarted {
			t.Errorf("%s: started a process: %v, want %v (call error %v)", name, started, wantStarted, err)
		}
		if wantStarted != (err == nil) || !wantStarted && !errors.Is(err, sandbox.ErrNoProcess) {
			t.Errorf("%s: call error %v, want ErrNoProcess: %v", name, err, !wantStarted)
		}
	}
}
