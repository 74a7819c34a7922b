package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/quiverkit/quiver/hooks"
)

const claudeSettings = `{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "guard.sh"}]}]}}`

const hookedProject = `[hooks]
claude_settings = ".claude/settings.json"
on_error = "block"

[[hooks.PreToolUse]]
name = "guard"
matcher = "exec_command|write_file"
command = "python3 .quiver/hooks/guard.py"
timeout = 10
on_error = "continue"

[[hooks.PostToolUse]]
matcher = "edit"
command = "gofmt -w ."
network = true
`

// hookRows are the hooks of a configuration, as rows that compare.
func hookRows(cfg hooks.Config) []string {
	var out []string
	for _, e := range hooks.Events {
		for _, h := range cfg.For(e) {
			out = append(out, strings.Join([]string{string(e), h.Name, h.Matcher.String(), h.Command,
				strings.TrimSpace(strings.Repeat("claude ", btoi(h.Claude))), h.OnError.Value}, "|"))
		}
	}
	return out
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// A trusted project's hooks run, its Claude Code settings file's after its
// own; untrusted, none does; the settings file is one of the project's
// files, so changing it untrusts the project.
func TestProjectHooksFollowTrust(t *testing.T) {
	e := newEnv(t, map[string]string{"quiver.toml": hookedProject, ".claude/settings.json": claudeSettings})
	c := e.mustLoad()
	if got, _, err := c.HookConfig(); err != nil || !got.Empty() {
		t.Fatalf("untrusted: hooks %v, %v", hookRows(got), err)
	}
	if c.Project.Files[".claude/settings.json"] == "" {
		t.Errorf("the settings file is not among the project's files: %v", c.Project.Files)
	}
	e.trust()
	c = e.mustLoad()
	got, _, err := c.HookConfig()
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"PreToolUse|guard|exec_command|write_file|python3 .quiver/hooks/guard.py||continue",
		"PreToolUse||Bash|guard.sh|claude|",
		"PostToolUse||edit|gofmt -w .||",
	}
	if d := cmp.Diff(want, hookRows(got)); d != "" {
		t.Errorf("trusted (-want +got):\n%s", d)
	}
	if got.OnError.Value != "block" || got.PreToolUse[0].Timeout != 10 || !got.PostToolUse[0].Network {
		t.Errorf("settings: %+v", got)
	}
	if src := got.PreToolUse[0].Source; !strings.HasSuffix(src, "quiver.toml: hooks.PreToolUse[0]") {
		t.Errorf("source %q", src)
	}
	settings := filepath.Join(e.project, ".claude", "settings.json")
	if !strings.Contains(strings.Join(c.Files, " "), settings) {
		t.Errorf("the settings file is not protected: %v", c.Files)
	}
	if err := os.WriteFile(settings, []byte(strings.Replace(claudeSettings, "guard.sh", "evil.sh", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	c = e.mustLoad()
	if got, _, _ := c.HookConfig(); c.ProjectState != Changed || !got.Empty() {
		t.Errorf("settings changed: state %q, hooks %v", c.ProjectState, hookRows(got))
	}
}

// The operator's file may name a Claude Code settings file anywhere, ~
// being the home directory.
func TestUserClaudeSettings(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	writeFiles(t, home, map[string]string{".claude/settings.json": claudeSettings})
	e := newEnv(t, nil)
	e.operator("[hooks]\nclaude_settings = \"~/.claude/settings.json\"\n")
	got, _, err := e.mustLoad().HookConfig()
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff([]string{"PreToolUse||Bash|guard.sh|claude|"}, hookRows(got)); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
}

func TestHookConfigErrors(t *testing.T) {
	for toml, want := range map[string]string{
		"[[hooks.PreToolUse]]\nmatcher = \"(\"\n":                       "x.toml:2:11",
		"[[hooks.PreToolUse]]\ncommand = \"x\"\non_error = \"maybe\"\n": `on_error: "maybe", want "block" or "continue"`,
		"[[hooks.PostToolUse]]\nmatcher = \"edit\"\n":                   "hooks.PostToolUse[0]: command is required",
		"[[hooks.Stop]]\ncommand = \"x\"\n":                             "unknown key",
	} {
		_, err := Parse("x.toml", []byte(toml))
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v, want an error with %q", toml, err, want)
		}
	}
	c, err := Parse(filepath.Join(t.TempDir(), "x.toml"), []byte("[hooks]\nclaude_settings = \"missing.json\"\n"))
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := c.HookConfig(); err == nil || !strings.Contains(err.Error(), "hooks.claude_settings") {
		t.Errorf("a missing settings file: %v", err)
	}
}
