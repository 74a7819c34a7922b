package quiver_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/quiverkit/quiver"
	"github.com/quiverkit/quiver/audit"
	"github.com/quiverkit/quiver/hooks"
	"github.com/quiverkit/quiver/policy"
	"github.com/quiverkit/quiver/policy/approve"
	"github.com/quiverkit/quiver/provider/builtin"
	"github.com/quiverkit/quiver/sandbox"
	"github.com/quiverkit/quiver/tool"
	"github.com/quiverkit/quiver/tools"
)

// hookScript is the command line running hooks/testdata/scripts/name.
func hookScript(t *testing.T, name string) string {
	t.Helper()
	p, err := filepath.Abs(filepath.Join("hooks", "testdata", "scripts", name))
	if err != nil {
		t.Fatal(err)
	}
	return "'" + p + "'"
}

func hookMatcher(t *testing.T, s string) hooks.Matcher {
	t.Helper()
	m, err := hooks.ParseMatcher(s)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func claudeMappings(t *testing.T) *hooks.Mappings {
	t.Helper()
	m, err := hooks.NewMappings(tools.ClaudeCode()...)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// hooked is a toolkit with the built-in tools, a policy, hooks and an
// audit record kept in memory, in a workspace of its own.
type hooked struct {
	tk  *quiver.Toolkit
	dir string
	log *audit.Memory
}

func newHooked(t *testing.T, pol policy.Config, cfg hooks.Config, opts ...quiver.Option) hooked {
	t.Helper()
	if err := sandbox.Check(); err != nil {
		t.Skipf("no sandbox on this machine: %v", err)
	}
	dir := t.TempDir()
	log := &audit.Memory{}
	tk, err := quiver.New(append([]quiver.Option{quiver.WithRoot(dir), builtin.Standard(),
		quiver.WithPolicy(mustPolicy(t, pol, sandbox.WorkspaceWrite)), quiver.WithAudit(log),
		quiver.WithHooks(cfg, claudeMappings(t))}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tk.Close() })
	return hooked{tk: tk, dir: dir, log: log}
}

func (h hooked) last(t *testing.T) audit.Record {
	t.Helper()
	rs := h.log.Records()
	if len(rs) == 0 {
		t.Fatal("no audit record")
	}
	return rs[len(rs)-1]
}

var allowExec = policy.Config{Allow: []string{"exec_command", "edit", "write_file"}}

// TestHookDeniesRmRf: a guard refuses rm -rf, by exit 2 (a shell script in
// Quiver's form) and by JSON (a Python script in Claude Code's, matching
// Bash), before anything runs; the model reads the hook's reason and the
// audit record names the hook.
func TestHookDeniesRmRf(t *testing.T) {
	for _, tc := range []struct {
		name   string
		hook   hooks.Hook
		reason string
	}{
		{"exit 2", hooks.Hook{Command: hookScript(t, "deny_rm.sh"), Matcher: hookMatcher(t, "exec_command")}, "rm -rf is not allowed here"},
		{"JSON", hooks.Hook{Command: hookScript(t, "deny_rm.py"), Matcher: hookMatcher(t, "Bash"), Claude: true}, "guard.py: rm -rf is not allowed (Bash)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHooked(t, allowExec, hooks.Config{PreToolUse: []hooks.Hook{tc.hook}})
			if err := os.Mkdir(filepath.Join(h.dir, "keep"), 0o755); err != nil {
				t.Fatal(err)
			}
			out, err := h.tk.Invoke(context.Background(), "exec_command", `{"command": "rm -rf keep"}`)
			var te *tool.Error
			if !errors.As(err, &te) || te.Code != tool.CodeToolNotAllowed || !strings.Contains(out.Content.Text(), tc.reason) {
				t.Fatalf("err %v, result %q: want TOOL_NOT_ALLOWED with %q", err, out.Content.Text(), tc.reason)
			}
			if _, err := os.Stat(filepath.Join(h.dir, "keep")); err != nil {
				t.Errorf("the refused command ran: %v", err)
			}
			r := h.last(t)
			if r.Decision != "deny" || !strings.HasPrefix(r.Rule, "hook: ") || len(r.Hooks) != 1 || r.Hooks[0].Decision != "deny" {
				t.Errorf("audit record: %+v", r)
			}
			if _, err := h.tk.Invoke(context.Background(), "exec_command", `{"command": "ls"}`); err != nil {
				t.Errorf("the guard refused ls: %v", err)
			}
		})
	}
}

// TestHookRewrites: a PreToolUse hook's updatedInput is what runs, what
// the policy decides on and what the audit record quotes; its context
// reaches the model.
func TestHookRewrites(t *testing.T) {
	for _, claude := range []bool{false, true} {
		h := newHooked(t, allowExec, hooks.Config{PreToolUse: []hooks.Hook{{Command: hookScript(t, "rewrite.py"), Claude: claude}}})
		out, err := h.tk.Invoke(context.Background(), "exec_command", `{"command": "echo hello"}`)
		if err != nil {
			t.Fatal(err)
		}
		text := out.Content.Text()
		if !strings.Contains(text, "rewritten") || strings.Contains(text, "hello") || !strings.Contains(text, "Note from a PreToolUse hook: rewrite.py") {
			t.Errorf("claude %v: result %q", claude, text)
		}
		r := h.last(t)
		if !strings.Contains(string(r.Arguments), `"echo rewritten"`) || !strings.Contains(string(r.Arguments), `"timeout_secs":5`) || !r.Hooks[0].Rewrote {
			t.Errorf("claude %v: audit record %s %+v", claude, r.Arguments, r.Hooks)
		}
	}
	// A rewrite the tool's schema refuses is refused as the model's would be.
	h := newHooked(t, allowExec, hooks.Config{PreToolUse: []hooks.Hook{{Command: `printf '{"hookSpecificOutput":{"updatedInput":{"command":"ls","bogus":1}}}'`}}})
	_, err := h.tk.Invoke(context.Background(), "exec_command", `{"command": "echo hello"}`)
	if tool.CodeOf(err) != tool.CodeInvalidArguments || !strings.Contains(err.Error(), "a PreToolUse hook rewrote") {
		t.Errorf("bad rewrite: %v", err)
	}
}

// TestHookPostGofmt: a PostToolUse hook runs gofmt -w on the file an edit
// changed, and its note reaches the model's result.
func TestHookPostGofmt(t *testing.T) {
	for _, claude := range []bool{false, true} {
		m := "edit|write_file"
		if claude {
			m = "Edit|Write"
		}
		h := newHooked(t, allowExec, hooks.Config{PostToolUse: []hooks.Hook{{Command: hookScript(t, "gofmt.sh"), Matcher: hookMatcher(t, m), Claude: claude}}})
		if err := os.WriteFile(filepath.Join(h.dir, "a.go"), []byte("package a\n\nvar x = 1\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		out, err := h.tk.Invoke(context.Background(), "edit", `{"path": "a.go", "old_string": "var x = 1", "new_string": "var  x=2"}`)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(out.Content.Text(), "Note from a PostToolUse hook: gofmt changed a.go") {
			t.Errorf("claude %v: result %q", claude, out.Content.Text())
		}
		if got, _ := os.ReadFile(filepath.Join(h.dir, "a.go")); string(got) != "package a\n\nvar x = 2\n" {
			t.Errorf("claude %v: a.go is %q", claude, got)
		}
		if r := h.last(t); len(r.Hooks) != 1 || r.Hooks[0].Event != "PostToolUse" || r.Hooks[0].Error != "" {
			t.Errorf("claude %v: audit %+v", claude, r.Hooks)
		}
	}
}

// TestHookFailures: a hook that hangs, prints 10 MB, exits 1 or prints
// invalid JSON is a clear, audited failure; on_error decides whether the
// call goes on.
func TestHookFailures(t *testing.T) {
	cases := []struct {
		script  string
		timeout float64
		failure string
	}{
		{"hang.sh", 1, "did not finish within its timeout of 1s"},
		{"flood.sh", 0, "printed more than 1048576 bytes"},
		{"exit1.sh", 0, "exited with status 1: exit1.sh: something broke"},
		{"badjson.sh", 0, "not the JSON Claude Code hooks print"},
	}
	for _, tc := range cases {
		for _, onError := range []string{hooks.OnErrorContinue, hooks.OnErrorBlock} {
			t.Run(tc.script+" "+onError, func(t *testing.T) {
				hook := hooks.Hook{Command: hookScript(t, tc.script), Timeout: tc.timeout, OnError: hooks.OnError{Value: onError}}
				h := newHooked(t, allowExec, hooks.Config{PreToolUse: []hooks.Hook{hook}})
				out, err := h.tk.Invoke(context.Background(), "exec_command", `{"command": "echo ran"}`)
				r := h.last(t)
				if len(r.Hooks) != 1 || !strings.Contains(r.Hooks[0].Error, tc.failure) {
					t.Fatalf("audit %+v, want the failure %q", r.Hooks, tc.failure)
				}
				if onError == hooks.OnErrorContinue {
					if err != nil || !strings.Contains(out.Content.Text(), "ran") {
						t.Errorf("on_error = continue: %v %q", err, out.Content.Text())
					}
					return
				}
				if tool.CodeOf(err) != tool.CodeToolNotAllowed || !strings.Contains(err.Error(), tc.failure) {
					t.Errorf("on_error = block: %v", err)
				}
			})
		}
	}
}

// TestHookAllowNeverBeatsPolicy: a hook's allow does not pass a call the
// policy denies, nor, by default, one it asks about; only the operator's
// hook_allow lets it answer the default's ask, and never an ask rule's.
func TestHookAllowNeverBeatsPolicy(t *testing.T) {
	allow := hooks.Hook{Command: hookScript(t, "allow.sh")}
	ctx := context.Background()

	h := newHooked(t, policy.Config{Allow: []string{"exec_command"}, Deny: []string{"exec_command(rm *)"}},
		hooks.Config{PreToolUse: []hooks.Hook{allow}, HookAllow: true})
	_, err := h.tk.Invoke(ctx, "exec_command", `{"command": "rm -f x"}`)
	if tool.CodeOf(err) != tool.CodeToolNotAllowed || !strings.Contains(err.Error(), "deny: exec_command(rm *)") {
		t.Errorf("hook allow against a deny rule: %v", err)
	}

	write := `{"path": "a.txt", "content": "x"}`
	h = newHooked(t, policy.Config{}, hooks.Config{PreToolUse: []hooks.Hook{allow}}, quiver.WithApprover(approve.Deny))
	if _, err := h.tk.Invoke(ctx, "write_file", write); tool.CodeOf(err) != tool.CodeApprovalDenied {
		t.Errorf("hook allow without hook_allow: %v, want the approver asked", err)
	}

	h = newHooked(t, policy.Config{}, hooks.Config{PreToolUse: []hooks.Hook{allow}, HookAllow: true}, quiver.WithApprover(approve.Deny))
	if _, err := h.tk.Invoke(ctx, "write_file", write); err != nil {
		t.Errorf("hook allow with hook_allow, default ask: %v", err)
	}
	if r := h.last(t); r.Approver != "hook: "+hookScript(t, "allow.sh") {
		t.Errorf("approver %q", r.Approver)
	}

	h = newHooked(t, policy.Config{Ask: []string{"write_file"}}, hooks.Config{PreToolUse: []hooks.Hook{allow}, HookAllow: true}, quiver.WithApprover(approve.Deny))
	if _, err := h.tk.Invoke(ctx, "write_file", write); tool.CodeOf(err) != tool.CodeApprovalDenied {
		t.Errorf("hook allow against an ask rule: %v", err)
	}
}

// TestHookAskTightens: a hook's ask sends a call the policy allows to the
// approver.
func TestHookAskTightens(t *testing.T) {
	ask := hooks.Hook{Name: "asker", Command: `cat >/dev/null; printf '{"hookSpecificOutput":{"permissionDecision":"ask","permissionDecisionReason":"a person should see this"}}'`}
	h := newHooked(t, allowExec, hooks.Config{PreToolUse: []hooks.Hook{ask}}, quiver.WithApprover(approve.Deny))
	_, err := h.tk.Invoke(context.Background(), "exec_command", `{"command": "echo hi"}`)
	if tool.CodeOf(err) != tool.CodeApprovalDenied {
		t.Fatalf("%v, want the approver asked", err)
	}
	if r := h.last(t); r.Decision != "ask" || r.Rule != "hook: asker" {
		t.Errorf("audit %+v", r)
	}
}

// TestHookClaudeSettings: a Claude Code settings file, written for Claude
// Code (its tool names and fields), works unchanged.
func TestHookClaudeSettings(t *testing.T) {
	settings := `{"hooks": {
  "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "python3 ` + strings.Trim(hookScript(t, "deny_rm.py"), "'") + `"}]}],
  "PostToolUse": [{"matcher": "Edit|MultiEdit|Write", "hooks": [{"type": "command", "command": "` + strings.Trim(hookScript(t, "gofmt.sh"), "'") + `", "timeout": 30}]}],
  "PostToolUseFailure": [{"hooks": [{"type": "command", "command": "echo failed >&2; exit 2"}]}],
  "Stop": [{"hooks": [{"type": "command", "command": "true"}]}]}}`
	cfg, skipped, err := hooks.ParseClaudeSettings("settings.json", []byte(settings))
	if err != nil || len(skipped) != 1 {
		t.Fatal(err, skipped)
	}
	h := newHooked(t, allowExec, cfg)
	ctx := context.Background()
	if _, err := h.tk.Invoke(ctx, "exec_command", `{"command": "rm -rf /"}`); tool.CodeOf(err) != tool.CodeToolNotAllowed {
		t.Errorf("Bash guard: %v", err)
	}
	out, err := h.tk.Invoke(ctx, "write_file", `{"path": "b.go", "content": "package  b\n"}`)
	if err != nil || !strings.Contains(out.Content.Text(), "gofmt changed b.go") {
		t.Errorf("Write formatter: %v %q", err, out.Content.Text())
	}
	out, err = h.tk.Invoke(ctx, "read_file", `{"path": "missing.txt"}`)
	if err == nil || !strings.Contains(out.Content.Text(), "Note from a PostToolUseFailure hook: failed") {
		t.Errorf("failure hook: %v %q", err, out.Content.Text())
	}
}

// TestHookWithoutSandbox: where the kernel cannot confine a hook, the call
// is refused SANDBOX_UNAVAILABLE whatever on_error says — a guard that
// cannot run is not a guard that passed.
func TestHookWithoutSandbox(t *testing.T) {
	h := newHooked(t, allowExec, hooks.Config{PreToolUse: []hooks.Hook{{Name: "guard", Command: "true"}}})
	t.Setenv("QUIVER_SANDBOX_UNSUPPORTED", "a kernel this test imagines")
	_, err := h.tk.Invoke(context.Background(), "exec_command", `{"command": "echo hi"}`)
	if tool.CodeOf(err) != tool.CodeSandboxUnavailable || !strings.Contains(err.Error(), "hook guard cannot run") {
		t.Errorf("%v, want SANDBOX_UNAVAILABLE naming the hook", err)
	}
}
