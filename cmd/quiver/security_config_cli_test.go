package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCLIScriptRiskIsTheOperators: a script's "# quiver: risk low" does not
// make it run unapproved (issue 18 item 7); [tools.scripts] low_risk in
// quiver.toml does.
func TestCLIScriptRiskIsTheOperators(t *testing.T) {
	script := "#!/bin/sh\n# quiver: description Says hi.\n# quiver: risk low\necho hi\n"
	for _, tt := range []struct {
		name, toml string
		runs       bool
	}{
		{"the script's own word is not enough", "", false},
		{"the operator's is", "[tools.scripts]\nlow_risk = [\"hi\"]\n", true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := workdir(t, map[string]string{"quiver.toml": tt.toml})
			if err := os.MkdirAll(filepath.Join(dir, ".quiver/tools"), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, ".quiver/tools/hi.sh"), []byte(script), 0o755); err != nil {
				t.Fatal(err)
			}
			trust(t, dir)
			r := runCLI(t, dir, "", "call", "hi", "{}")
			if ran := r.code == 0 && strings.TrimSpace(r.stdout) == "hi"; ran != tt.runs {
				t.Fatalf("ran: %v, want %v: %+v", ran, tt.runs, r)
			}
			if !tt.runs && !strings.Contains(r.stdout+r.stderr, "APPROVAL_DENIED") {
				t.Errorf("refused without APPROVAL_DENIED: %+v", r)
			}
		})
	}
}

// TestCLIAuditRedactsConfiguredNames: --audit records the command that ran,
// with [audit] redact's names hidden beside the defaults (issue 18 item 14).
func TestCLIAuditRedactsConfiguredNames(t *testing.T) {
	dir := workdir(t, map[string]string{"quiver.toml": "[audit]\nredact = [\"pin\"]\n"})
	log := filepath.Join(dir, "audit.jsonl")
	r := runCLI(t, dir, "", "--yes", "--audit", log, "call", "exec_command",
		`{"command":"/bin/echo --pin 4242 --token t0k3n; /bin/echo visible"}`)
	if r.code != 0 {
		t.Fatalf("call: %+v", r)
	}
	data, err := os.ReadFile(log)
	if err != nil {
		t.Fatal(err)
	}
	record := string(data)
	for _, secret := range []string{"4242", "t0k3n"} {
		if strings.Contains(record, secret) {
			t.Errorf("%q reached the audit log: %s", secret, record)
		}
	}
	if !strings.Contains(record, `"commands":["/bin/echo --pin '[REDACTED]' --token '[REDACTED]'","/bin/echo visible"]`) {
		t.Errorf("the audit log does not list the commands that ran: %s", record)
	}
}

// TestCLILowRiskCommandsDecideCalls: [exec] low_risk_commands in a trusted
// quiver.toml makes make low-risk for the rating as well as for the check at
// run time, so it runs unasked and the audit names the entry that allowed
// it; without the entry, or spelled with an assignment, it is asked
// about (and refused: there is no terminal to ask on).
func TestCLILowRiskCommandsDecideCalls(t *testing.T) {
	for _, tt := range []struct {
		name, toml, line string
		runs             bool
	}{
		{"no entry", "", "make", false},
		{"the entry", "[exec]\nlow_risk_commands = [\"make\"]\n", "make", true},
		{"the entry, with an assignment", "[exec]\nlow_risk_commands = [\"make\"]\n", "FOO=1 make", false},
		{"the entry, redirected", "[exec]\nlow_risk_commands = [\"make\"]\n", "make > out", false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := workdir(t, map[string]string{"quiver.toml": tt.toml, "Makefile": "all:\n\t@echo made\n"})
			log := filepath.Join(t.TempDir(), "audit.jsonl")
			r := runCLI(t, dir, "", "--audit", log, "call", "exec_command", `{"command":"`+tt.line+`"}`)
			if ran := r.code == 0 && strings.Contains(r.stdout, "made"); ran != tt.runs {
				t.Fatalf("ran: %v, want %v: %+v", ran, tt.runs, r)
			}
			b, err := os.ReadFile(log)
			if err != nil {
				t.Fatal(err)
			}
			want := `"decision":"ask"`
			if tt.runs {
				want = `"decision":"allow","rule":"low_risk_commands entry \"make\""`
			}
			if !strings.Contains(string(b), want) {
				t.Errorf("audit %s, want %s", b, want)
			}
		})
	}
}
