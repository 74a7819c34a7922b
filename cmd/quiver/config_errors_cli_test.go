package main

import (
	"encoding/json"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/quiverkit/quiver/sandbox"
)

// goInternals are words of Go, not of the file, that a configuration
// error must not show.
var goInternals = []string{"struct field", "config.", "[]", "of type", "cannot decode", "lstat", "quiver: quiver:"}

// TestConfigErrorsReadAsSentences: every configuration error is a sentence
// about the file, with its file:line:col, on standard error and under the
// global --json (issue 33): a value of the wrong type in TOML's words, not
// Go's; a custom tool's or an MCP server's error at the entry that has it;
// and a workspace root that does not exist, named by where it was given.
func TestConfigErrorsReadAsSentences(t *testing.T) {
	t.Parallel()
	dir := workdir(t, map[string]string{
		"list.toml":    "[policy]\nallow = \"read_file\"\n",
		"int.toml":     "[output]\nmax_bytes = \"big\"\n",
		"custom.toml":  "[policy]\ndefault = \"ask\"\n\n[[tools.custom]]\nname = \"ok\"\ncommand = \"true\"\n\n[[tools.custom]]\nname = \"x\"\ncommand = \"echo {y}\"\n",
		"spec.toml":    "[tools.custom.x]\ndescription = \"X\"\ncommand = \"echo {y}\"\n",
		"server.toml":  "[tools.mcp]\n[[tools.mcp.servers]]\nname = \"m\"\n",
		"servers.toml": "[tools.mcp]\nservers = [{name = \"a\", command = \"x\"}, {name = \"a\", command = \"y\"}]\n",
		"root.toml":    "[workspace]\nroot = \"no/such/dir\"\n",
	})
	for _, tt := range []struct {
		file string
		want configErrorJSON
	}{
		{"list.toml", configErrorJSON{Message: "policy.allow: want a list of strings, not a string", Line: 2, Col: 9}},
		{"int.toml", configErrorJSON{Message: "output.max_bytes: want an integer, not a string", Line: 2, Col: 13}},
		{"custom.toml", configErrorJSON{Message: "tools.custom[1] (x): command uses {y}, which is not a declared parameter", Line: 8, Col: 9}},
		{"spec.toml", configErrorJSON{Message: "tools.custom[0] (x): command uses {y}, which is not a declared parameter", Line: 2, Col: 1}},
		{"server.toml", configErrorJSON{Message: "tools.mcp.servers[0] (m): set exactly one of command and url", Line: 2, Col: 13}},
		{"servers.toml", configErrorJSON{Message: `tools.mcp.servers[1]: duplicate name "a"`, Line: 2, Col: 1}},
		{"root.toml", configErrorJSON{Message: `[workspace] root "no/such/dir" (in root.toml): no/such/dir does not exist; the workspace root must be a directory`}},
	} {
		t.Run(tt.file, func(t *testing.T) {
			t.Parallel()
			r := runCLI(t, dir, "", "--config", tt.file, "config", "check")
			want := "quiver: " + tt.want.Message + "\n"
			if tt.want.Line > 0 {
				want = "quiver: " + tt.file + ":" + strconv.Itoa(tt.want.Line) + ":" + strconv.Itoa(tt.want.Col) + ": " + tt.want.Message + "\n"
			}
			if r.code != exitUsage || !strings.HasSuffix(r.stderr, want) {
				t.Errorf("exit %d, stderr %q; want 2 and %q", r.code, r.stderr, want)
			}
			for _, w := range goInternals {
				if strings.Contains(r.stderr, w) {
					t.Errorf("stderr shows Go's %q: %q", w, r.stderr)
				}
			}
			j := runCLI(t, dir, "", "--json", "--config", tt.file, "config", "check")
			var got configErrorJSON
			if err := json.Unmarshal([]byte(j.stdout), &got); err != nil || j.code != exitUsage {
				t.Fatalf("--json: exit %d, %v, stdout %q", j.code, err, j.stdout)
			}
			if d := cmp.Diff(tt.want, got, cmpopts.IgnoreFields(configErrorJSON{}, "Code", "File")); d != "" {
				t.Errorf("--json (-want +got)\n%s", d)
			}
			if tt.want.Line > 0 && filepath.Base(got.File) != tt.file {
				t.Errorf("--json file %q, want %s", got.File, tt.file)
			}
		})
	}
}

// TestMissingRootSaysSo: a --root that does not exist is one sentence,
// said once, naming the flag: not "quiver: quiver: workspace: ..." or a
// system call.
func TestMissingRootSaysSo(t *testing.T) {
	t.Parallel()
	dir := workdir(t, map[string]string{"file.txt": "x\n"})
	for root, want := range map[string]string{
		filepath.Join(dir, "nope", "x"): "quiver: --root: " + filepath.Join(dir, "nope", "x") + " does not exist; the workspace root must be a directory\n",
		filepath.Join(dir, "file.txt"):  "quiver: --root: " + filepath.Join(dir, "file.txt") + " is not a directory; the workspace root must be one\n",
	} {
		r := runCLI(t, dir, "", "--root", root, "call", "read_file", `{"path":"a"}`)
		if r.code != exitUsage || r.stderr != want {
			t.Errorf("--root %s: exit %d, stderr %q; want 2 and %q", root, r.code, r.stderr, want)
		}
	}
}

// TestGlobalJSONEverywhere: the global --json, given before the command,
// is honoured by version, config check (its errors too, above) and
// sandbox check.
func TestGlobalJSONEverywhere(t *testing.T) {
	t.Parallel()
	dir := workdir(t, map[string]string{"bad.toml": "[policy]\nallow = 3\n"})
	var v versionJSON
	if r := runCLI(t, dir, "", "--json", "version"); json.Unmarshal([]byte(r.stdout), &v) != nil || v.Go == "" {
		t.Errorf("--json version: %+v", r)
	}
	var c configJSON
	if r := runCLI(t, dir, "", "--json", "config", "check"); r.code != 0 || json.Unmarshal([]byte(r.stdout), &c) != nil {
		t.Errorf("--json config check: %+v", r)
	}
	var e configErrorJSON
	if r := runCLI(t, dir, "", "--json", "--config", "bad.toml", "config", "check"); json.Unmarshal([]byte(r.stdout), &e) != nil || e.Line != 2 {
		t.Errorf("--json config check of a bad file: %+v", r)
	}
	var s sandbox.Report
	if r := runCLI(t, dir, "", "--json", "sandbox", "check"); json.Unmarshal([]byte(r.stdout), &s) != nil || len(s.Profiles) == 0 {
		t.Errorf("--json sandbox check: %+v", r)
	}
}
