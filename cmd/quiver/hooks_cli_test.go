package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/quiverkit/quiver/internal/mcppeers"
)

const hookedProjectToml = `[hooks]
claude_settings = ".claude/settings.json"

[[hooks.PreToolUse]]
name = "project-guard"
matcher = "read_file"
command = "grep -q secret && { echo 'the project guards its secrets' >&2; exit 2; }; exit 0"
`

// A Claude Code settings file's hook, matching Claude Code's name for
// read_file and reading Claude Code's field for its path.
const hookedProjectSettings = `{"hooks": {"PostToolUse": [{"matcher": "Read", "hooks": [{"type": "command",
  "command": "python3 -c 'import json,sys; p=json.load(sys.stdin)[\"tool_input\"][\"file_path\"]; print(json.dumps({\"hookSpecificOutput\": {\"hookEventName\": \"PostToolUse\", \"additionalContext\": \"claude saw \" + p.rsplit(\"/\", 1)[-1]}}))'"}]}]}}`

// TestProjectHooksRunOnlyWhenTrusted: a project's hooks, its own and its
// Claude Code settings file's, do not run until the operator trusts the
// project; then they do, and `quiver tools` shows which match each tool.
func TestProjectHooksRunOnlyWhenTrusted(t *testing.T) {
	t.Parallel()
	dir := plantedWorkdir(t, map[string]string{"quiver.toml": hookedProjectToml, ".claude/settings.json": hookedProjectSettings,
		"notes.txt": "notes\n", "secret.txt": "s\n"})
	if r := runCLI(t, dir, "", "call", "read_file", `{"path":"secret.txt"}`); r.code != 0 || strings.Contains(r.stdout, "claude saw") {
		t.Errorf("untrusted, a project hook ran: %+v", r)
	}
	if r := runCLI(t, dir, "", "--json", "tools"); r.code != 0 || strings.Contains(r.stdout, `"hooks"`) {
		t.Errorf("untrusted, quiver tools lists hooks: %+v", r.code)
	}
	trust(t, dir)
	r := runCLI(t, dir, "", "call", "read_file", `{"path":"secret.txt"}`)
	if r.code != exitTool || !strings.Contains(r.stderr, "TOOL_NOT_ALLOWED") || !strings.Contains(r.stderr, "the project guards its secrets") {
		t.Errorf("trusted, the guard: %+v", r)
	}
	if r := runCLI(t, dir, "", "call", "read_file", `{"path":"notes.txt"}`); r.code != 0 || !strings.Contains(r.stdout, "Note from a PostToolUse hook: claude saw notes.txt") {
		t.Errorf("trusted, the Claude Code hook: %+v", r)
	}
	r = runCLI(t, dir, "", "--json", "tools")
	var out struct {
		Tools []toolJSON `json:"tools"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &out); err != nil {
		t.Fatal(err, r.stderr)
	}
	for _, tl := range out.Tools {
		if tl.Name != "read_file" {
			continue
		}
		if len(tl.Hooks) != 2 || tl.Hooks[0].Hook != "project-guard" || tl.Hooks[1].Matcher != "Read" || tl.Hooks[1].Event != "PostToolUse" {
			t.Errorf("read_file's hooks: %+v", tl.Hooks)
		}
	}
	if r := runCLI(t, dir, "", "tools"); !strings.Contains(r.stdout, "hooks of read_file: PreToolUse project-guard; PostToolUse python3") {
		t.Errorf("quiver tools:\n%s", r.stdout)
	}
}

// TestClaudeHookSeesMCPNames: a Claude Code settings file's guard written
// for an MCP tool (matcher mcp__fs__write_file, Claude Code's name for the
// fs server's write_file) refuses Quiver's fs__write_file, reading the
// same name as tool_name; the fs server's other tools pass.
func TestClaudeHookSeesMCPNames(t *testing.T) {
	t.Parallel()
	fs := mcppeers.Server(t, "server-filesystem")
	dir := plantedWorkdir(t, map[string]string{
		"quiver.toml": "[policy]\ndefault = \"allow\"\n\n[hooks]\nclaude_settings = \".claude/settings.json\"\n\n" +
			"[[tools.mcp.servers]]\nname = \"fs\"\ncommand = \"node\"\nargs = [" + quote(fs) + ", \".\"]\n",
		".claude/settings.json": `{"hooks": {"PreToolUse": [{"matcher": "mcp__fs__write_file", "hooks": [{"type": "command",
  "command": "python3 -c 'import json,sys; n=json.load(sys.stdin)[\"tool_name\"]; print(\"no writes through \" + n, file=sys.stderr); sys.exit(2)'"}]}]}}`,
		"notes.txt": "a note\n",
	})
	trust(t, dir)
	r := runCLI(t, dir, "", "call", "fs__write_file", `{"path":"x.txt","content":"x"}`)
	if r.code != exitTool || !strings.Contains(r.stderr, "no writes through mcp__fs__write_file") {
		t.Errorf("the guard of mcp__fs__write_file: %+v", r)
	}
	if _, err := os.Stat(filepath.Join(dir, "x.txt")); err == nil {
		t.Error("the refused write happened")
	}
	if r := runCLI(t, dir, "", "call", "fs__read_text_file", `{"path":"notes.txt"}`); r.code != 0 || !strings.Contains(r.stdout, "a note") {
		t.Errorf("another tool of the server: %+v", r)
	}
}
