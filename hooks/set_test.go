package hooks_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/quiverkit/quiver/hooks"
	"github.com/quiverkit/quiver/sandbox"
)

// script is the command line that runs testdata/scripts/name.
func script(t *testing.T, name string, args ...string) string {
	t.Helper()
	p, err := filepath.Abs(filepath.Join("testdata", "scripts", name))
	if err != nil {
		t.Fatal(err)
	}
	return strings.Join(append([]string{"'" + p + "'"}, args...), " ")
}

// testMappings maps exec_command as Claude Code's Bash, as package tools
// does, for the tests of this package.
func testMappings(t *testing.T) *hooks.Mappings {
	t.Helper()
	m, err := hooks.NewMappings(hooks.Mapping{Tool: "exec_command", Claude: "Bash",
		Fields:  []hooks.Field{{Quiver: "timeout_secs", Claude: "timeout", Scale: 1000}, {Quiver: "background", Claude: "run_in_background"}},
		Dropped: []string{"description"}})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

type fixture struct {
	set     *hooks.Set
	root    string
	profile *sandbox.Profile
}

func newFixture(t *testing.T, cfg hooks.Config) fixture {
	t.Helper()
	root := t.TempDir()
	set, err := hooks.New(cfg, hooks.Options{Root: root, Mappings: testMappings(t), SessionID: "s1"})
	if err != nil {
		t.Fatal(err)
	}
	profile, err := sandbox.Default(root)
	if err != nil {
		t.Fatal(err)
	}
	if err := profile.Check(); err != nil {
		t.Skipf("no sandbox on this machine: %v", err)
	}
	return fixture{set: set, root: root, profile: profile}
}

// with is the fixture's workspace with other hooks.
func (f fixture) with(t *testing.T, cfg hooks.Config) fixture {
	t.Helper()
	set, err := hooks.New(cfg, hooks.Options{Root: f.root, Mappings: testMappings(t), SessionID: "s1"})
	if err != nil {
		t.Fatal(err)
	}
	f.set = set
	return f
}

func (f fixture) call(command string) hooks.Call {
	return hooks.Call{ID: "call_1", Tool: "exec_command", Input: map[string]any{"command": command}, Profile: f.profile}
}

func matcher(t *testing.T, s string) hooks.Matcher {
	t.Helper()
	m, err := hooks.ParseMatcher(s)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestPreScripts runs real shell and Python hooks, each in Quiver's form
// and in Claude Code's, and checks what they decide.
func TestPreScripts(t *testing.T) {
	block := hooks.OnError{Value: hooks.OnErrorBlock}
	cases := []struct {
		name     string
		hook     hooks.Hook
		command  string
		decision hooks.Decision
		reason   string // a substring of the reason
		failed   string // a substring of the hook's error, when it failed
		skipped  bool   // the matcher leaves the tool out: the hook does not run
	}{
		{name: "exit 2 denies", hook: hooks.Hook{Command: script(t, "deny_rm.sh")}, command: "rm -rf /", decision: hooks.Deny, reason: "rm -rf is not allowed here"},
		{name: "exit 2 guard passes others", hook: hooks.Hook{Command: script(t, "deny_rm.sh")}, command: "ls"},
		{name: "JSON deny", hook: hooks.Hook{Command: script(t, "deny_rm.py")}, command: "rm -rf x", decision: hooks.Deny, reason: "guard.py: rm -rf is not allowed (exec_command)"},
		{name: "JSON deny, Claude Code's names", hook: hooks.Hook{Command: script(t, "deny_rm.py"), Claude: true}, command: "rm -rf x", decision: hooks.Deny, reason: "(Bash)"},
		{name: "matcher misses", hook: hooks.Hook{Command: script(t, "deny_rm.sh"), Matcher: matcher(t, "read_file")}, command: "rm -rf /", skipped: true},
		{name: "Claude matcher on Claude name", hook: hooks.Hook{Command: script(t, "deny_rm.sh"), Matcher: matcher(t, "Bash"), Claude: true}, command: "rm -rf /", decision: hooks.Deny},
		{name: "Quiver matcher does not know Bash", hook: hooks.Hook{Command: script(t, "deny_rm.sh"), Matcher: matcher(t, "Bash")}, command: "rm -rf /", skipped: true},
		{name: "continue false", hook: hooks.Hook{Name: "stopper", Command: `cat >/dev/null; echo '{"continue": false}'`}, command: "ls", decision: hooks.Deny, reason: "refused by hook stopper"},
		{name: "deprecated approve", hook: hooks.Hook{Command: `echo '{"decision": "approve", "reason": "old style"}'`}, command: "ls", decision: hooks.Allow, reason: "old style"},
		{name: "allow", hook: hooks.Hook{Command: script(t, "allow.sh")}, command: "ls", decision: hooks.Allow, reason: "allow.sh trusts everyone"},
		{name: "exit 1 continues", hook: hooks.Hook{Command: script(t, "exit1.sh")}, command: "ls", failed: "exited with status 1: exit1.sh: something broke"},
		{name: "exit 1 blocks", hook: hooks.Hook{Command: script(t, "exit1.sh"), OnError: block}, command: "ls", decision: hooks.Deny, reason: `on_error = "block"`, failed: "status 1"},
		{name: "invalid JSON", hook: hooks.Hook{Command: script(t, "badjson.sh"), OnError: block}, command: "ls", decision: hooks.Deny, failed: "not the JSON Claude Code hooks print"},
		{name: "10 MB", hook: hooks.Hook{Command: script(t, "flood.sh"), OnError: block}, command: "ls", decision: hooks.Deny, failed: "printed more than 1048576 bytes"},
		{name: "hang", hook: hooks.Hook{Command: script(t, "hang.sh"), Timeout: 0.5}, command: "ls", failed: "did not finish within its timeout of 500ms"},
		{name: "missing program", hook: hooks.Hook{Command: "/nonexistent/hook"}, command: "ls", failed: "exited with status 127"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t, hooks.Config{PreToolUse: []hooks.Hook{tc.hook}})
			pre := f.set.Pre(context.Background(), f.call(tc.command))
			if pre.Decision != tc.decision || !strings.Contains(pre.Reason, tc.reason) {
				t.Errorf("decision %q (%q), want %q (with %q)", pre.Decision, pre.Reason, tc.decision, tc.reason)
			}
			if want := 1 - btoi(tc.skipped); len(pre.Ran) != want {
				t.Fatalf("ran %d hooks, want %d", len(pre.Ran), want)
			}
			var failed string
			if len(pre.Ran) == 1 {
				failed = pre.Ran[0].Error
			}
			if (tc.failed == "") != (failed == "") || !strings.Contains(failed, tc.failed) {
				t.Errorf("hook error %q, want one with %q", failed, tc.failed)
			}
		})
	}
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// TestPreRewrite: updatedInput replaces the input, mapped back from Claude
// Code's names, and its context is kept for the model.
func TestPreRewrite(t *testing.T) {
	for _, claude := range []bool{false, true} {
		f := newFixture(t, hooks.Config{PreToolUse: []hooks.Hook{{Command: script(t, "rewrite.py"), Claude: claude}}})
		pre := f.set.Pre(context.Background(), f.call("echo hello"))
		want := map[string]any{"command": "echo rewritten", "timeout_secs": float64(5)}
		if diff := cmp.Diff(want, pre.Input); diff != "" {
			t.Errorf("claude %v: input (-want +got):\n%s", claude, diff)
		}
		if diff := cmp.Diff([]string{"rewrite.py: commands run with a 5 s timeout"}, pre.Context); diff != "" {
			t.Errorf("claude %v: context (-want +got):\n%s", claude, diff)
		}
	}
}

// TestPreChain: hooks run in order, each seeing the input the ones before
// rewrote; a deny stops the rest.
func TestPreChain(t *testing.T) {
	f := newFixture(t, hooks.Config{})
	out := filepath.Join(f.root, "seen.json")
	f = f.with(t, hooks.Config{PreToolUse: []hooks.Hook{
		{Command: script(t, "rewrite.py")},
		{Command: script(t, "record.sh", out), Claude: true},
		{Command: script(t, "deny_rm.sh")},
		{Command: script(t, "hang.sh")}, // never reached
	}})
	pre := f.set.Pre(context.Background(), f.call("echo hello; rm -rf x"))
	if pre.Decision != hooks.Deny || len(pre.Ran) != 3 {
		t.Fatalf("decision %q after %d hooks, want deny after 3", pre.Decision, len(pre.Ran))
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	var seen map[string]any
	if err := json.Unmarshal(data, &seen); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"session_id": "s1", "transcript_path": "", "cwd": f.root, "permission_mode": "default",
		"hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_use_id": "call_1",
		"tool_input": map[string]any{"command": "echo rewritten; rm -rf x", "timeout": float64(5000)}}
	if diff := cmp.Diff(want, seen); diff != "" {
		t.Errorf("the second hook's input (-want +got):\n%s", diff)
	}
}

// TestPost: a PostToolUse hook sees the response and adds context; exit 2
// marks the result an error; PostToolUseFailure sees the error.
func TestPost(t *testing.T) {
	f := newFixture(t, hooks.Config{})
	out := filepath.Join(f.root, "seen.json")
	f = f.with(t, hooks.Config{
		PostToolUse:        []hooks.Hook{{Command: script(t, "gofmt.sh")}, {Command: script(t, "deny_rm.sh")}},
		PostToolUseFailure: []hooks.Hook{{Command: script(t, "record.sh", out)}},
	})
	if err := os.WriteFile(filepath.Join(f.root, "a.go"), []byte("package a\nvar  x=1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	c := hooks.Call{ID: "call_2", Tool: "edit", Input: map[string]any{"path": "a.go", "old_string": "rm -rf"}, Profile: f.profile}
	post := f.set.Post(context.Background(), c, map[string]any{"path": "a.go"})
	if diff := cmp.Diff([]string{"gofmt changed a.go"}, post.Context); diff != "" {
		t.Errorf("context (-want +got):\n%s", diff)
	}
	if !post.Block || !strings.Contains(post.Reason, "rm -rf is not allowed") {
		t.Errorf("block %v (%q), want the exit 2 hook's block", post.Block, post.Reason)
	}
	if got, _ := os.ReadFile(filepath.Join(f.root, "a.go")); string(got) != "package a\n\nvar x = 1\n" {
		t.Errorf("a.go after gofmt: %q", got)
	}
	fail := f.set.Failure(context.Background(), c, "EXECUTION_FAILED: boom", false)
	if len(fail.Ran) != 1 || fail.Ran[0].Error != "" {
		t.Fatalf("failure hooks ran %+v", fail.Ran)
	}
	data, _ := os.ReadFile(out)
	var seen map[string]any
	if err := json.Unmarshal(data, &seen); err != nil {
		t.Fatal(err)
	}
	if seen["error"] != "EXECUTION_FAILED: boom" || seen["is_interrupt"] != false || seen["hook_event_name"] != "PostToolUseFailure" {
		t.Errorf("PostToolUseFailure input: %v", seen)
	}
}

// TestMatching lists the hooks of a tool, under the name each hook knows it by.
func TestMatching(t *testing.T) {
	f := newFixture(t, hooks.Config{
		PreToolUse:  []hooks.Hook{{Name: "guard", Command: "g", Matcher: matcher(t, "Bash"), Claude: true}, {Command: "x", Matcher: matcher(t, "read_file")}},
		PostToolUse: []hooks.Hook{{Name: "log", Command: "l"}},
	})
	got := f.set.Matching("exec_command")
	want := []hooks.Matched{{Event: hooks.PreToolUse, Hook: "guard", Matcher: "Bash"}, {Event: hooks.PostToolUse, Hook: "log"}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// TestMCPToolNames: an MCP server's tool (fs__write_file, as package
// provider/mcp names it) is mcp__fs__write_file to a Claude Code hook, in
// the tool_name it reads and for its matcher, and Claude Code's name maps
// back; Quiver's own hooks, and tools of no server, keep their names.
func TestMCPToolNames(t *testing.T) {
	m := testMappings(t)
	m.AddMCP("fs__", "gh__")
	for _, tt := range []struct{ quiver, claude string }{
		{"fs__write_file", "mcp__fs__write_file"},
		{"gh__create_issue", "mcp__gh__create_issue"},
		{"exec_command", "Bash"},
		{"read_file", "read_file"}, // not mapped here: its own name
		{"other__x", "other__x"},   // no server of that name
	} {
		if got := m.ClaudeName(tt.quiver); got != tt.claude {
			t.Errorf("ClaudeName(%q) = %q, want %q", tt.quiver, got, tt.claude)
		}
		if got := m.ToolName(tt.claude); got != tt.quiver {
			t.Errorf("ToolName(%q) = %q, want %q", tt.claude, got, tt.quiver)
		}
	}
	if got := m.ToolName("mcp__other__x"); got != "mcp__other__x" {
		t.Errorf("a name of no server maps to %q", got)
	}

	root := t.TempDir()
	seen := filepath.Join(root, "seen.json")
	cfg := hooks.Config{PreToolUse: []hooks.Hook{
		{Name: "claude", Command: script(t, "record.sh", seen), Matcher: matcher(t, "mcp__fs__.*"), Claude: true},
		{Name: "quiver", Command: "exit 0", Matcher: matcher(t, "fs__write_file")},
		{Name: "claude-by-quiver-name", Command: "exit 0", Matcher: matcher(t, "fs__write_file"), Claude: true},
	}}
	set, err := hooks.New(cfg, hooks.Options{Root: root, Mappings: m, SessionID: "s1"})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, h := range set.Matching("fs__write_file") {
		names = append(names, h.Hook)
	}
	if d := cmp.Diff([]string{"claude", "quiver"}, names); d != "" {
		t.Errorf("hooks matching fs__write_file (-want +got):\n%s", d)
	}
	profile, err := sandbox.Default(root)
	if err != nil {
		t.Fatal(err)
	}
	if err := profile.Check(); err != nil {
		t.Skipf("no sandbox on this machine: %v", err)
	}
	set.Pre(context.Background(), hooks.Call{ID: "c1", Tool: "fs__write_file", Input: map[string]any{"path": "a"}, Profile: profile})
	var in struct {
		ToolName string `json:"tool_name"`
	}
	b, err := os.ReadFile(seen)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &in); err != nil || in.ToolName != "mcp__fs__write_file" {
		t.Errorf("the hook read tool_name %q (%v)", in.ToolName, err)
	}
}
