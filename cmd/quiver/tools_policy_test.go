package main

import (
	"encoding/json"
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
	for _, line := range []string{"POLICY", "deny (some calls allowed)", "deny, not offered", "writing a protected path always asks: quiver.toml, .quiver, .git/hooks, .git/config"} {
		if !strings.Contains(human.stdout, line) {
			t.Errorf("quiver tools lacks %q:\n%s", line, human.stdout)
		}
	}
	if !strings.Contains(human.stdout, "deploy") {
		t.Errorf("the operator's protected paths are not listed:\n%s", human.stdout)
	}
}
