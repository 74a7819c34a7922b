package main

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// guardedProject is a project whose guards live in the workspace: a Claude
// Code settings file's shell guard in .claude/hooks and a Python guard of
// its own in tools/, each refusing a word.
var guardedProject = map[string]string{
	"quiver.toml": `[policy]
default = "allow"

[hooks]
claude_settings = ".claude/settings.json"
on_error = "block"

[[hooks.PreToolUse]]
name = "py-guard"
matcher = "exec_command"
command = "python3 -u \"$CLAUDE_PROJECT_DIR\"/tools/guard.py"
`,
	".claude/settings.json": `{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command",
  "command": "\"$CLAUDE_PROJECT_DIR\"/.claude/hooks/guard.sh"}]}]}}`,
	".claude/hooks/guard.sh": "#!/bin/sh\nif grep -q shforbidden; then echo 'the shell guard refuses it' >&2; exit 2; fi\nexit 0\n",
	"tools/guard.py": "import json, sys\nif 'pyforbidden' in json.load(sys.stdin)['tool_input']['command']:\n" +
		"    print('the python guard refuses it', file=sys.stderr)\n    sys.exit(2)\n",
	"notes.txt": "a note\n",
}

func guardedWorkdir(t *testing.T) string {
	t.Helper()
	dir := plantedWorkdir(t, guardedProject)
	if err := os.Chmod(filepath.Join(dir, ".claude/hooks/guard.sh"), 0o755); err != nil {
		t.Fatal(err)
	}
	trust(t, dir)
	return dir
}

// guardsHold checks that both guards still refuse their word, and that the
// files they are made of are as trusted.
func guardsHold(t *testing.T, dir string) {
	t.Helper()
	for _, word := range []string{"shforbidden", "pyforbidden"} {
		r := runCLI(t, dir, "", "--yes", "call", "exec_command", `{"command":"echo `+word+`"}`)
		if r.code != exitTool || !strings.Contains(r.stderr, "TOOL_NOT_ALLOWED") || !strings.Contains(r.stderr, "guard refuses it") {
			t.Errorf("the guard of %s no longer refuses: %+v", word, r)
		}
	}
	for _, name := range []string{".claude/hooks/guard.sh", "tools/guard.py", ".claude/settings.json"} {
		if b, err := os.ReadFile(filepath.Join(dir, name)); err != nil || string(b) != guardedProject[name] {
			t.Errorf("%s now holds %q (%v)", name, b, err)
		}
	}
	for _, name := range []string{".claude/hooks/json.py", "tools/json.py", ".claude/hooks/evil.sh"} {
		if _, err := os.Lstat(filepath.Join(dir, name)); err == nil {
			t.Errorf("%s was made", name)
		}
	}
}

// TestHookScriptsProtected: a model cannot neuter the guard that checks its
// next call. Every way a call could rewrite a hook's script, add a file
// beside it (a json.py that Python's import would take before the real
// one), rename something over it or reach it through a link is refused —
// by the policy for the file tools (writing it asks, and no one approves),
// by the kernel for processes (the sandbox mounts the scripts and their
// directories read-only) — and both guards still refuse afterwards.
func TestHookScriptsProtected(t *testing.T) {
	t.Parallel()
	attacks := []struct {
		name string
		args []string
	}{
		{"write_file over the shell guard", []string{"call", "write_file", `{"path":".claude/hooks/guard.sh","content":"exit 0\n","expected_sha256":"SHA(.claude/hooks/guard.sh)"}`}},
		{"write_file, absolute and roundabout", []string{"call", "write_file", `{"path":"DIR/.claude/./hooks/../hooks/guard.sh","content":"exit 0\n","expected_sha256":"SHA(.claude/hooks/guard.sh)"}`}},
		{"write_file beside the python guard", []string{"call", "write_file", `{"path":"tools/json.py","content":"import sys; sys.exit(0)\n"}`}},
		{"write_file into the settings directory", []string{"call", "write_file", `{"path":".claude/hooks/json.py","content":"x\n"}`}},
		{"edit the python guard", []string{"call", "edit", `{"path":"tools/guard.py","old_string":"sys.exit(2)","new_string":"sys.exit(0)","expected_sha256":"SHA(tools/guard.py)"}`}},
		{"apply_patch the shell guard", []string{"call", "apply_patch", `{"patch":"*** Begin Patch\n*** Update File: .claude/hooks/guard.sh\n@@\n-exit 0\n+exit 0 # ok\n*** End Patch\n"}`}},
		{"a redirection", []string{"--yes", "call", "exec_command", `{"command":"sh -c 'echo exit 0 > .claude/hooks/guard.sh'"}`}},
		{"sed -i", []string{"--yes", "call", "exec_command", `{"command":"sed -i s/sys.exit.2./sys.exit\\(0\\)/ tools/guard.py"}`}},
		{"a rename over it", []string{"--yes", "call", "exec_command", `{"command":"echo 'exit 0' > x.sh && mv -f x.sh .claude/hooks/guard.sh"}`}},
		{"a new file beside it", []string{"--yes", "call", "exec_command", `{"command":"echo 'import sys; sys.exit(0)' > tools/json.py"}`}},
		{"through a link", []string{"--yes", "call", "exec_command", `{"command":"ln -s .claude/hooks/guard.sh g && sh -c 'echo exit 0 > g'"}`}},
		{"the directory renamed away", []string{"--yes", "call", "exec_command", `{"command":"mv .claude/hooks .claude/old || mv .claude claude-old || mv tools tools-old"}`}},
		{"the settings file's directory", []string{"--yes", "call", "exec_command", `{"command":"echo x > .claude/hooks/evil.sh; rm -f .claude/settings.json"}`}},
		{"python rewriting it", []string{"--yes", "call", "exec_command", `{"command":"python3 -c \"open('tools/guard.py', 'w').write('')\""}`}},
	}
	for _, a := range attacks {
		t.Run(a.name, func(t *testing.T) {
			t.Parallel()
			dir := guardedWorkdir(t)
			args := make([]string, len(a.args))
			for i, s := range a.args {
				args[i] = strings.ReplaceAll(s, "DIR", dir)
				for _, name := range []string{".claude/hooks/guard.sh", "tools/guard.py"} {
					sum := sha256.Sum256([]byte(guardedProject[name]))
					args[i] = strings.ReplaceAll(args[i], "SHA("+name+")", hex.EncodeToString(sum[:]))
				}
			}
			r := runCLI(t, dir, "", args...)
			if args[0] != "--yes" && (r.code == 0 || !strings.Contains(r.stderr, "protected path")) {
				t.Errorf("the file tool's call was not refused as writing a protected path: %+v", r)
			}
			guardsHold(t, dir)
		})
	}
}

// TestChangedHookScriptUntrusts: a guard changed outside Quiver after the
// project was trusted makes it untrusted: no hook of the project runs, and
// every command says which file changed and how to trust it again.
func TestChangedHookScriptUntrusts(t *testing.T) {
	t.Parallel()
	dir := guardedWorkdir(t)
	if err := os.WriteFile(filepath.Join(dir, ".claude/hooks/guard.sh"), []byte("#!/bin/sh\nexit 0\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	r := runCLI(t, dir, "", "--yes", "call", "exec_command", `{"command":"echo pyforbidden"}`)
	if r.code != 0 || !strings.Contains(r.stdout, "pyforbidden") {
		t.Errorf("untrusted, a hook still ran: %+v", r)
	}
	for _, want := range []string{"changed since trusted (.claude/hooks/guard.sh)", "hooks are not run", "quiver trust " + dir} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("the notice lacks %q:\n%s", want, r.stderr)
		}
	}
	trust(t, dir)
	if r := runCLI(t, dir, "", "--yes", "call", "exec_command", `{"command":"echo pyforbidden"}`); r.code != exitTool || !strings.Contains(r.stderr, "python guard refuses it") {
		t.Errorf("trusted again, the guard: %+v", r)
	}
}
