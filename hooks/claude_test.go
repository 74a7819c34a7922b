package hooks_test

import (
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/quiverkit/quiver/hooks"
)

func TestParseClaudeSettings(t *testing.T) {
	data, err := os.ReadFile("testdata/settings.json")
	if err != nil {
		t.Fatal(err)
	}
	cfg, skipped, err := hooks.ParseClaudeSettings("settings.json", data)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"SessionStart", "Stop"}, skipped); diff != "" {
		t.Errorf("skipped (-want +got):\n%s", diff)
	}
	type row struct {
		Event   hooks.Event
		Matcher string
		Command string
		Timeout float64
		Source  string
		Claude  bool
	}
	var got []row
	for _, e := range hooks.Events {
		for _, h := range cfg.For(e) {
			got = append(got, row{e, h.Matcher.String(), h.Command, h.Timeout, h.Source, h.Claude})
		}
	}
	want := []row{
		{hooks.PreToolUse, "Bash", `"$CLAUDE_PROJECT_DIR"/.claude/hooks/guard.sh`, 30, "settings.json: hooks.PreToolUse[0].hooks[0]", true},
		{hooks.PreToolUse, "Edit|Write", "python3 .claude/hooks/protect.py", 0, "settings.json: hooks.PreToolUse[1].hooks[0]", true},
		{hooks.PreToolUse, "Edit|Write", "echo second", 0, "settings.json: hooks.PreToolUse[1].hooks[1]", true},
		{hooks.PostToolUse, "", "jq -r .tool_input.file_path | xargs gofmt -w", 0, "settings.json: hooks.PostToolUse[0].hooks[0]", true},
		{hooks.PostToolUseFailure, "*", "cat >> failures.log", 0, "settings.json: hooks.PostToolUseFailure[0].hooks[0]", true},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestParseClaudeSettingsErrors(t *testing.T) {
	cases := map[string]string{
		`[]`: "not a Claude Code settings file",
		`{"hooks": {"PreToolUse": {"matcher": "Bash"}}}`:                                                "hooks.PreToolUse: want a list of {matcher, hooks}",
		`{"hooks": {"PreToolUse": [{"matcher": "(", "hooks": []}]}}`:                                    "hooks.PreToolUse[0]: matcher",
		`{"hooks": {"PreToolUse": [{"hooks": [{"type": "prompt", "prompt": "is it safe?"}]}]}}`:         `hooks.PreToolUse[0].hooks[0]: type "prompt" cannot run`,
		`{"hooks": {"PostToolUse": [{"hooks": [{"type": "command"}]}]}}`:                                "hooks.PostToolUse[0].hooks[0]: command is required",
		`{"hooks": {"PostToolUse": [{"hooks": [{"type": "command", "command": "x", "timeout": -1}]}]}}`: "timeout",
	}
	for in, want := range cases {
		_, _, err := hooks.ParseClaudeSettings("s.json", []byte(in))
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want an error with %q", in, err, want)
		}
	}
	cfg, _, err := hooks.ParseClaudeSettings("s.json", []byte(`{"disableAllHooks": true, "hooks": {"PreToolUse": [{"hooks": [{"type": "command", "command": "x"}]}]}}`))
	if err != nil || !cfg.Empty() {
		t.Errorf("disableAllHooks: %+v, %v", cfg, err)
	}
}

// TestMappingRules holds the generic conversions to their rules: paths
// made absolute and back (only inside the root), units scaled and rounded
// up, values renamed, Claude Code's extra fields dropped, the rest kept.
func TestMappingRules(t *testing.T) {
	m, err := hooks.NewMappings(hooks.Mapping{Tool: "t", Claude: "T",
		Fields: []hooks.Field{
			{Quiver: "path", Claude: "file_path", Path: true},
			{Quiver: "secs", Claude: "ms", Scale: 1000},
			{Quiver: "mode", Claude: "output_mode", Values: [][2]string{{"files", "files_with_matches"}}},
		},
		Dropped: []string{"description"}})
	if err != nil {
		t.Fatal(err)
	}
	root := "/w/root"
	out := m.ToClaude("t", map[string]any{"path": "a/b.go", "secs": float64(2), "mode": "files", "keep": true}, root)
	if diff := cmp.Diff(map[string]any{"file_path": "/w/root/a/b.go", "ms": float64(2000), "output_mode": "files_with_matches", "keep": true}, out); diff != "" {
		t.Errorf("to Claude Code (-want +got):\n%s", diff)
	}
	back := m.FromClaude("t", map[string]any{"file_path": "/elsewhere/x", "ms": float64(1500), "output_mode": "count", "description": "d", "keep": true}, root)
	if diff := cmp.Diff(map[string]any{"path": "/elsewhere/x", "secs": float64(2), "mode": "count", "keep": true}, back); diff != "" {
		t.Errorf("from Claude Code (-want +got):\n%s", diff)
	}
	if got := m.FromClaude("t", map[string]any{"file_path": "/w/root"}, root)["path"]; got != "." {
		t.Errorf("the root itself comes back as %q", got)
	}
	if m.ClaudeName("t") != "T" || m.ClaudeName("u") != "u" || m.ToolName("T") != "t" || m.ToolName("U") != "U" {
		t.Error("names are not mapped both ways")
	}
	if _, err := hooks.NewMappings(hooks.Mapping{Tool: "a", Claude: "A"}, hooks.Mapping{Tool: "b", Claude: "A"}); err == nil {
		t.Error("a Claude Code name mapped twice is accepted")
	}
}
