package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const customTOML = `
[policy]
default = "deny"
allow = ["say(echo *)", "greet"]

[[tools.custom]]
name = "say"
description = "Echo text back"
command = "echo {text}"
params = [{ name = "text", type = "string", required = true, description = "What to say" }]
`

func TestCLICallsACustomTool(t *testing.T) {
	t.Parallel()
	// Without the script greet, a rule naming it names no tool.
	dir := workdir(t, map[string]string{"quiver.toml": strings.Replace(customTOML, `, "greet"`, "", 1)})
	// The subject is the quoted argv, so the policy sees one echo, not an rm.
	r := runCLI(t, dir, "", "call", "say", `{"text":"; rm -rf x && cat /etc/passwd"}`)
	if r.code != 0 || strings.TrimSpace(r.stdout) != "exit_code: 0\n; rm -rf x && cat /etc/passwd" {
		t.Fatalf("call say: %+v", r)
	}
	r = runCLI(t, dir, "", "call", "say", `{"text":"--help"}`)
	if r.code == 0 || !strings.Contains(r.stdout+r.stderr, "INVALID_ARGUMENTS") || !strings.Contains(r.stdout+r.stderr, `"text"`) {
		t.Fatalf("option value: %+v", r)
	}
	r = runCLI(t, dir, "", "tools")
	if r.code != 0 || !strings.Contains(r.stdout, "say") || !strings.Contains(r.stdout, "custom") {
		t.Fatalf("tools: %+v", r)
	}
}

func TestConfigCheckFailsOnABadTemplate(t *testing.T) {
	t.Parallel()
	bad := strings.Replace(customTOML, "echo {text}", "echo {text} | sh", 1)
	dir := workdir(t, map[string]string{"quiver.toml": bad})
	r := runCLI(t, dir, "", "config", "check")
	if r.code == 0 || !strings.Contains(r.stderr, "(say): command template") {
		t.Fatalf("config check: %+v", r)
	}
	unused := strings.Replace(customTOML, "echo {text}", "echo hi", 1)
	dir = workdir(t, map[string]string{"quiver.toml": unused})
	if r := runCLI(t, dir, "", "config", "check"); r.code == 0 || !strings.Contains(r.stderr, `parameter "text" is never used`) {
		t.Fatalf("config check, unused parameter: %+v", r)
	}
}

func TestCLICallsAScript(t *testing.T) {
	t.Parallel()
	dir := workdir(t, map[string]string{"quiver.toml": customTOML, ".quiver/tools/notes.txt": "not a tool"})
	script := "#!/bin/sh\n# quiver: description Greets.\n# quiver: param who string required Whom.\n# quiver: risk low\ncat\n"
	if err := os.WriteFile(filepath.Join(dir, ".quiver/tools/greet.sh"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	trust(t, dir)
	r := runCLI(t, dir, "", "call", "greet", `{"who":"world"}`)
	if r.code != 0 || strings.TrimSpace(r.stdout) != `{"who":"world"}` {
		t.Fatalf("call greet: %+v", r)
	}
	r = runCLI(t, dir, "", "tools")
	if r.code != 0 || !strings.Contains(r.stdout, "greet") || !strings.Contains(r.stdout, "provider script skipped notes.txt: not executable") {
		t.Fatalf("tools: %+v", r)
	}
}
