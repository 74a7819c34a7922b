package config

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// hookProject is a project whose hooks name their scripts in the spellings
// hooks are written in: its own quiver.toml's and a Claude Code settings
// file's.
func hookProject(settingsCommand string) map[string]string {
	return map[string]string{
		"quiver.toml": `[hooks]
claude_settings = ".claude/settings.json"

[[hooks.PreToolUse]]
command = "python3 -u tools/guard.py"

[[hooks.PreToolUse]]
command = "./guard-root.sh"

[[hooks.PostToolUse]]
command = "sh -c 'cat < checks/list.txt | \"$CLAUDE_PROJECT_DIR\"/checks/run.sh' > out.log"
`,
		".claude/settings.json": `{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": ` +
			strconv.Quote(settingsCommand) + `}]}]}}`,
		".claude/hooks/guard.sh":  "#!/bin/sh\n. \"$CLAUDE_PROJECT_DIR/lib/common.sh\"\nexit 0\n",
		".claude/hooks/helper.py": "X = 1\n",
		"lib/common.sh":           "true\n",
		"lib/unrelated.txt":       "not sourced\n",
		"tools/guard.py":          "import json\n",
		"tools/json.py":           "# beside the guard: what import json finds first\n",
		"checks/list.txt":         "vet\n",
		"checks/run.sh":           "#!/bin/sh\ncat\n",
		"guard-root.sh":           "true\n",
		"notes.txt":               "a note\n",
		"out.log":                 "",
	}
}

// TestHookScriptsPinnedByTrust: a byte changed in any file a project's
// hook runs, sources or finds beside it untrusts the project and names the
// file; a file the hooks do not run (a note, the log they write, a sibling
// of a file at the root) does not.
func TestHookScriptsPinnedByTrust(t *testing.T) {
	tests := []struct {
		name    string
		change  string // the file changed after trust
		changed bool
	}{
		{"the settings file's script", ".claude/hooks/guard.sh", true},
		{"a file beside it", ".claude/hooks/helper.py", true},
		{"what it sources", "lib/common.sh", true},
		{"the project's script, through python3 -u", "tools/guard.py", true},
		{"a module beside it", "tools/json.py", true},
		{"read by a redirection inside sh -c", "checks/list.txt", true},
		{"run inside sh -c", "checks/run.sh", true},
		{"a new file beside a script", ".claude/hooks/json.py", true},
		{"a file beside what is sourced: not code", "lib/unrelated.txt", false},
		{"the log the hook writes", "out.log", false},
		{"a script at the root", "guard-root.sh", true},
		{"a file beside a script at the root", "notes.txt", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t, hookProject(`"$CLAUDE_PROJECT_DIR"/.claude/hooks/guard.sh`))
			e.trust()
			if c := e.mustLoad(); c.ProjectState != Trusted {
				t.Fatalf("just trusted: %s (%v)", c.ProjectState, c.ProjectChanged)
			}
			writeFiles(t, e.project, map[string]string{tt.change: "exit 0 # rewritten\n"})
			c := e.mustLoad()
			if got := c.ProjectState == Changed; got != tt.changed {
				t.Fatalf("%s changed: project %s, want changed %v (files %v)", tt.change, c.ProjectState, tt.changed, c.ProjectChanged)
			}
			if tt.changed {
				if !slices.Contains(c.ProjectChanged, tt.change) {
					t.Errorf("the files named: %v, want %s among them", c.ProjectChanged, tt.change)
				}
				if hc, _, err := c.HookConfig(); err != nil || !hc.Empty() {
					t.Errorf("changed, hooks still in force: %v %v", commandsOf(hc), err)
				}
			}
		})
	}
}

// TestHookScriptLinks: a link a hook runs is pinned with what it points
// to, both protected; a link leading out of the workspace cannot be
// trusted at all.
func TestHookScriptLinks(t *testing.T) {
	e := newEnv(t, hookProject(".claude/hooks/link.sh"))
	writeFiles(t, e.project, map[string]string{"shared/real.sh": "true\n"})
	if err := os.Symlink("../../shared/real.sh", filepath.Join(e.project, ".claude/hooks/link.sh")); err != nil {
		t.Fatal(err)
	}
	e.trust()
	writeFiles(t, e.project, map[string]string{"shared/real.sh": "exit 0\n"})
	c := e.mustLoad()
	if c.ProjectState != Changed || !slices.Contains(c.ProjectChanged, ".claude/hooks/link.sh") || !slices.Contains(c.ProjectChanged, "shared/real.sh") {
		t.Errorf("the link's target changed: %s %v", c.ProjectState, c.ProjectChanged)
	}
	e.trust()
	got, err := e.mustLoad().HookProtected(e.project)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{".claude", ".claude/hooks/link.sh", "shared/real.sh", "shared", "tools", "checks", "lib/common.sh", "guard-root.sh"} {
		if !slices.Contains(got, filepath.Join(RealPath(e.project), want)) {
			t.Errorf("%s not protected: %v", want, got)
		}
	}
	for _, not := range []string{"notes.txt", "out.log", "lib/unrelated.txt"} {
		if slices.Contains(got, filepath.Join(RealPath(e.project), not)) {
			t.Errorf("%s protected: %v", not, got)
		}
	}

	out := t.TempDir()
	writeFiles(t, out, map[string]string{"evil.sh": "true\n"})
	if err := os.Symlink(filepath.Join(out, "evil.sh"), filepath.Join(e.project, "tools/out.sh")); err != nil {
		t.Fatal(err)
	}
	p, err := ReadProject(e.project)
	if err != nil {
		t.Fatal(err)
	}
	tr, err := ReadTrust(e.userDir)
	if err != nil {
		t.Fatal(err)
	}
	if err := tr.Add(p, time.Now()); err == nil || !strings.Contains(err.Error(), "tools/out.sh") {
		t.Errorf("a link out beside a hook script: trusted (%v)", err)
	}
}
