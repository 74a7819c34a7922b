package main

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestToolsShowsThePolicy: `quiver tools` says per tool what its calls get,
// and hides nothing it would refuse behind "allowed" (18.6).
func TestToolsShowsThePolicy(t *testing.T) {
	dir := workdir(t, map[string]string{"quiver.toml": `[policy]
default = "deny"
allow = ["read_file", "edit(src/**)", "exec_command(git status)"]
ask = ["grep_search(secret/**)"]
deny = ["write_file", "read_file(.env)"]
protected = ["deploy/**"]
[policy.tools]
list_files = "deny"
`})
	r := runCLI(t, dir, "", "tools", "--json")
	var out struct {
		Tools []toolJSON `json:"tools"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &out); err != nil || r.code != 0 {
		t.Fatalf("exit %d %v: %s", r.code, err, r.stderr)
	}
	got := map[string]string{}
	for _, tl := range out.Tools {
		got[tl.Name] = tl.Policy
		if tl.Allowed != (tl.Policy != "deny") {
			t.Errorf("%s: allowed = %v with policy %q", tl.Name, tl.Allowed, tl.Policy)
		}
	}
	want := map[string]string{
		"read_file":    "allow (some calls denied)",
		"edit":         "deny (some calls allowed)",
		"exec_command": "deny (some calls allowed)",
		"grep_search":  "deny (some calls asked)",
		"write_file":   "deny",
		"list_files":   "deny",
		"glob_search":  "deny",
	}
	for name, w := range want {
		if diff := cmp.Diff(w, got[name]); diff != "" {
			t.Errorf("%s (-want +got):\n%s", name, diff)
		}
	}
	human := runCLI(t, dir, "", "tools")
	for _, line := range []string{"POLICY", "deny (some calls allowed)", "deny, not offered", "writing a protected path always asks: quiver.toml, quorum.toml, .quiver, .git,"} {
		if !strings.Contains(human.stdout, line) {
			t.Errorf("quiver tools lacks %q:\n%s", line, human.stdout)
		}
	}
	if !strings.Contains(human.stdout, "deploy") {
		t.Errorf("the operator's protected paths are not listed:\n%s", human.stdout)
	}
}

// TestConfigInUseIsProtected: the configuration file in use, wherever it
// is, is asked about before any tool writes it, even under default =
// "allow"; without a person to ask (no terminal, no --yes) the write is
// refused and the file is unchanged (issue 12, item 2).
func TestConfigInUseIsProtected(t *testing.T) {
	const open = "[policy]\ndefault = \"allow\"\n"
	dir := workdir(t, map[string]string{"quiver.toml": open, "team.toml": open})
	outside := workdir(t, map[string]string{"q.toml": open})
	outsideCfg := filepath.Join(outside, "q.toml")
	write := func(path string) string { return `{"path":` + strconv.Quote(path) + `,"content":"[policy]\n"}` }
	cases := []struct {
		name string
		args []string
		file string
	}{
		{"the quiver.toml found in the workspace", []string{"call", "write_file", write("quiver.toml")}, filepath.Join(dir, "quiver.toml")},
		{"a file named by --config", []string{"--config", "team.toml", "call", "write_file", write("team.toml")}, filepath.Join(dir, "team.toml")},
		{"a --config outside the workspace, by absolute path", []string{"--config", outsideCfg, "--write-scope", "unrestricted", "call", "write_file", write(outsideCfg)}, outsideCfg},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := runCLI(t, dir, "", c.args...)
			if r.code != 1 || !strings.Contains(r.stderr, "APPROVAL_DENIED") || !strings.Contains(r.stderr, "protected path") {
				t.Errorf("exit %d, stderr %q; want APPROVAL_DENIED naming a protected path", r.code, r.stderr)
			}
			if b, err := os.ReadFile(c.file); err != nil || string(b) != open {
				t.Errorf("%s = %q, %v; want it unchanged", c.file, b, err)
			}
		})
	}
	t.Run("--yes is a person's yes", func(t *testing.T) {
		sum := sha256.Sum256([]byte(open))
		args := `{"path":"quiver.toml","content":"[policy]\n","expected_sha256":"` + hex.EncodeToString(sum[:]) + `"}`
		if r := runCLI(t, dir, "", "--yes", "call", "write_file", args); r.code != 0 {
			t.Fatalf("exit %d: %s", r.code, r.stderr)
		}
	})
}
