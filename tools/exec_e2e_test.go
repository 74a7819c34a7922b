package tools_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/quiverkit/quiver"
	"github.com/quiverkit/quiver/audit"
	"github.com/quiverkit/quiver/internal/shell"
	"github.com/quiverkit/quiver/policy"
	"github.com/quiverkit/quiver/policy/approve"
	"github.com/quiverkit/quiver/provider/builtin"
	"github.com/quiverkit/quiver/sandbox"
	"github.com/quiverkit/quiver/tool"
	"github.com/quiverkit/quiver/tools"
)

// execToolkit is a toolkit on a fresh git repository holding x/keep.
func execToolkit(t *testing.T, cfg policy.Config, opts ...quiver.Option) (*quiver.Toolkit, string) {
	t.Helper()
	return execToolkitScope(t, cfg, sandbox.WorkspaceWrite, opts...)
}

// execToolkitScope is execToolkit under the write scope scope.
func execToolkitScope(t *testing.T, cfg policy.Config, scope sandbox.WriteScope, opts ...quiver.Option) (*quiver.Toolkit, string) {
	t.Helper()
	dir := t.TempDir()
	cmd := exec.Command("git", "init", "-q", "-b", "main")
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git init: %v\n%s", err, out)
	}
	if err := os.MkdirAll(filepath.Join(dir, "x"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "x", "keep"), []byte("precious\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	p, err := policy.New(cfg, scope)
	if err != nil {
		t.Fatal(err)
	}
	tk, err := quiver.New(append([]quiver.Option{quiver.WithRoot(dir), builtin.Standard(), quiver.WithPolicy(p)}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tk.Close() })
	return tk, dir
}

func wantKept(t *testing.T, dir, line string) {
	t.Helper()
	if _, err := os.Stat(filepath.Join(dir, "x", "keep")); err != nil {
		t.Fatalf("%q removed x: %v", line, err)
	}
}

// TestExecCommandAcceptanceThroughToolkit is the acceptance test:
// with allow = ["exec_command(git status)"], git status runs and none of the
// lines that smuggle rm past the rule runs it — whether the policy refuses
// the line before it runs or the gate refuses rm when it is about to run.
func TestExecCommandAcceptanceThroughToolkit(t *testing.T) {
	tk, dir := execToolkit(t, policy.Config{Allow: []string{"exec_command(git status)"}})
	ctx := context.Background()
	out, err := quiver.Call(ctx, tk, tools.ExecCommand, tools.ExecCommandInput{Command: "git status"})
	if err != nil || out.ExitCode != 0 || !strings.Contains(out.Output, "On branch main") {
		t.Fatalf("git status: %+v, %v", out, err)
	}
	for _, line := range []string{"git status && rm -rf x", "git status; $(echo rm) -rf x", `eval "rm -rf x"`, "X=rm; $X -rf x", "git status | sh"} {
		t.Run(line, func(t *testing.T) {
			res, err := tk.Invoke(ctx, "exec_command", map[string]any{"command": line})
			wantKept(t, dir, line)
			if err == nil {
				if o, _ := res.Content.Output.(*tools.ExecCommandOutput); o == nil || len(o.Refused) == 0 {
					t.Errorf("%q ran without a refusal: %s", line, res.Content.String())
				}
				return
			}
			if c := tool.CodeOf(err); c != tool.CodeToolNotAllowed && c != tool.CodeApprovalDenied {
				t.Errorf("%q: %v", line, err)
			}
		})
	}
}

// TestExecCommandGateRefusesAtRunTime shows the exec-time half alone: lines
// the policy lets through by their text, whose commands are refused when
// they are about to run.
func TestExecCommandGateRefusesAtRunTime(t *testing.T) {
	t.Run("a script the rules allow runs a command they do not", func(t *testing.T) {
		tk, dir := execToolkit(t, policy.Config{Allow: []string{"exec_command(./build)"}})
		if err := os.WriteFile(filepath.Join(dir, "build"), []byte("echo building\nrm -rf x\necho done\n"), 0o755); err != nil {
			t.Fatal(err)
		}
		out, err := quiver.Call(context.Background(), tk, tools.ExecCommand, tools.ExecCommandInput{Command: "./build"})
		if err != nil {
			t.Fatal(err)
		}
		if out.ExitCode != 126 || len(out.Refused) != 1 || out.Refused[0].Command != "rm -rf x" ||
			!strings.HasPrefix(out.Output, "building\n") || strings.Contains(out.Output, "done") {
			t.Errorf("%+v", out)
		}
		wantKept(t, dir, "./build")
	})
	t.Run("an approved line still obeys deny rules when it runs", func(t *testing.T) {
		tk, dir := execToolkit(t, policy.Config{Deny: []string{"exec_command(rm *)"}}, quiver.WithApprover(approve.Auto))
		out, err := quiver.Call(context.Background(), tk, tools.ExecCommand, tools.ExecCommandInput{Command: "X=rm; $X -rf x"})
		if err != nil {
			t.Fatal(err)
		}
		if len(out.Refused) != 1 || !strings.Contains(out.Refused[0].Reason, "deny") {
			t.Errorf("%+v", out)
		}
		wantKept(t, dir, "X=rm; $X -rf x")
	})
}

func TestExecCommandLowRiskRunsWithoutApproval(t *testing.T) {
	tk, _ := execToolkit(t, policy.Config{}) // default: ask for high risk, and nobody approves
	ctx := context.Background()
	if _, err := tk.Invoke(ctx, "exec_command", map[string]any{"command": "git status --short && ls | wc -l"}); err != nil {
		t.Errorf("a read-only line needed approval: %v", err)
	}
	_, err := tk.Invoke(ctx, "exec_command", map[string]any{"command": "touch y"})
	if tool.CodeOf(err) != tool.CodeApprovalDenied {
		t.Errorf("a writing line ran without approval: %v", err)
	}
	// run_command, with its own argument name, is the same tool.
	out, err := tk.Invoke(ctx, "run_command", map[string]any{"command": "pwd", "working_dir": "x"})
	if err != nil || !strings.HasSuffix(strings.TrimSpace(out.Content.String()), "/x") {
		t.Errorf("run_command: %s, %v", out.Content.String(), err)
	}
}

func TestExecJobsEndWithTheToolkit(t *testing.T) {
	tk, _ := execToolkit(t, policy.Config{Allow: []string{"exec_command(sleep *)", "exec_command(echo *)"}})
	ctx := context.Background()
	start, err := quiver.Call(ctx, tk, tools.ExecCommand, tools.ExecCommandInput{Command: "echo up; sleep 1000.601", Background: true})
	if err != nil {
		t.Fatal(err)
	}
	var got *tools.ExecJobOutput
	for deadline := time.Now().Add(time.Minute); got == nil || got.Output == ""; { // a hang guard
		if time.Now().After(deadline) {
			t.Fatalf("no output from %s", start.JobID)
		}
		if got, err = quiver.Call(ctx, tk, tools.ExecOutput, tools.ExecOutputInput{JobID: start.JobID}); err != nil {
			t.Fatal(err)
		}
	}
	if got.Status != "running" || got.Output != "up\n" {
		t.Errorf("%+v", got)
	}
	if err := tk.Close(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(time.Minute) // a hang guard: the kill is not timed
	for {
		out, _ := exec.Command("pgrep", "-f", "sleep 1000.601").Output()
		if len(strings.TrimSpace(string(out))) == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the job outlived the toolkit: %s", out)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestLowRiskCommandsDecideCalls: an operator's entry ([exec]
// low_risk_commands = ["make"], through the toolkit's one classifier) lets
// make run unapproved under the default policy, recorded as allowed by that
// entry; the line's other spellings are still asked about (and refused
// here, where nobody approves); and a make that writes cannot, because a
// call let through as low-risk runs confined read-only, in either scope.
func TestLowRiskCommandsDecideCalls(t *testing.T) {
	makefile := "all:\n\t@echo made\nwrite:\n\ttouch built\n"
	for _, scope := range []sandbox.WriteScope{sandbox.WorkspaceWrite, sandbox.ReadOnly} {
		t.Run(string(scope), func(t *testing.T) {
			var rec audit.Memory
			tk, dir := execToolkitScope(t, policy.Config{}, scope,
				quiver.WithCommandClassifier(shell.Classifier([]string{"make -s all", "make"})), quiver.WithAudit(&rec))
			if err := os.WriteFile(filepath.Join(dir, "Makefile"), []byte(makefile), 0o644); err != nil {
				t.Fatal(err)
			}
			ctx := context.Background()
			// The audit names the entry that let each line run, and the
			// default where the built-in list rates the line low itself.
			for _, c := range []struct{ line, rule, prints string }{
				{"make", `low_risk_commands entry "make"`, "made"},
				{"make -s all", `low_risk_commands entry "make -s all"`, "made"},
				{"ls Makefile", "default for low-risk tools", "Makefile"},
			} {
				line, rule := c.line, c.rule
				out, err := tk.Invoke(ctx, "exec_command", map[string]any{"command": line})
				if err != nil || !strings.Contains(out.Content.String(), c.prints) {
					t.Fatalf("%s: %v\n%s", line, err, out.Content.String())
				}
				records := rec.Records()
				last := records[len(records)-1]
				if last.Decision != "allow" || last.Rule != rule || !slices.Contains(last.Commands, line) {
					t.Errorf("audit of %s: decision %q rule %q commands %q, want rule %q", line, last.Decision, last.Rule, last.Commands, rule)
				}
			}
			out, err := tk.Invoke(ctx, "exec_command", map[string]any{"command": "make write"})
			if err != nil {
				t.Errorf("make write was not let run as low-risk: %v", err)
			}
			if _, err := os.Stat(filepath.Join(dir, "built")); err == nil {
				t.Errorf("a low-risk make wrote the workspace:\n%s", out.Content.String())
			}
			for _, line := range []string{"make; rm -rf x", "make $(rm -rf x)", "FOO=1 make", "make > .git/config",
				"command make", "/usr/bin/make", "env make", "./make", "make && rm -rf x", "make | rm -rf x"} {
				_, err := tk.Invoke(ctx, "exec_command", map[string]any{"command": line})
				if code := tool.CodeOf(err); code != tool.CodeApprovalDenied && code != tool.CodeToolNotAllowed {
					t.Errorf("%q ran without approval: %v", line, err)
				}
				wantKept(t, dir, line)
			}
		})
	}
}
