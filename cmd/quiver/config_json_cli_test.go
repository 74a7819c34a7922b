package main

import (
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// quiver --json config check reports a wrong configuration as one JSON
// object on standard output, with the file, line and column where they are
// known, and exits 2.
func TestConfigCheckJSONErrors(t *testing.T) {
	t.Parallel()
	dir := workdir(t, map[string]string{
		"bad.toml":     "[policy]\ndefault = \"sometimes\"\n",
		"unknown.toml": "[workspace]\nroots = \".\"\n",
		"server.toml":  "[[tools.mcp.servers]]\ncommand = \"x\"\n",
		"typo.toml":    "[policy]\nallow = [\"wirte_file\"]\n",
		"syntax.toml":  "[policy\n",
		"run.toml":     "[run]\nprovider = \"opena\"\n",
	})
	tests := []struct {
		name, file string
		want       configErrorJSON
	}{
		{"a value the decoder refuses", "bad.toml", configErrorJSON{File: "bad.toml", Line: 2, Col: 11}},
		{"an unknown key", "unknown.toml", configErrorJSON{Message: `unknown key "workspace.roots"`, File: "unknown.toml", Line: 2, Col: 1}},
		{"a check of an MCP server, at its entry", "server.toml", configErrorJSON{Message: "tools.mcp.servers[0]: name is required", File: "server.toml", Line: 1, Col: 13}},
		{"a rule naming no tool", "typo.toml", configErrorJSON{Message: `policy.allow names no tool: "wirte_file" (did you mean "write_file"?)`, File: "typo.toml", Line: 2, Col: 10}},
		{"broken TOML", "syntax.toml", configErrorJSON{File: "syntax.toml", Line: 1, Col: 8}},
		{"a [run] value quiver run could not use", "run.toml", configErrorJSON{Message: `run.provider: "opena": want openai, anthropic or gemini`, File: "run.toml", Line: 2, Col: 1}},
		{"no such file", "absent.toml", configErrorJSON{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := runCLI(t, dir, "", "--json", "--config", tt.file, "config", "check")
			var got configErrorJSON
			if err := json.Unmarshal([]byte(r.stdout), &got); err != nil || r.code != exitUsage || r.stderr != "" {
				t.Fatalf("exit %d, %v, stdout %q, stderr %q; want %d and one JSON object", r.code, err, r.stdout, r.stderr, exitUsage)
			}
			if got.Code != "CONFIG_INVALID" || got.Message == "" {
				t.Errorf("code %q, message %q", got.Code, got.Message)
			}
			if filepath.Base(got.File) != filepath.Base(tt.want.File) && !(got.File == "" && tt.want.File == "") {
				t.Errorf("file %q, want %q", got.File, tt.want.File)
			}
			ignore := cmpopts.IgnoreFields(configErrorJSON{}, "Code", "File")
			if tt.want.Message == "" {
				ignore = cmpopts.IgnoreFields(configErrorJSON{}, "Code", "File", "Message")
			}
			if d := cmp.Diff(tt.want, got, ignore); d != "" {
				t.Errorf("(-want +got)\n%s", d)
			}
		})
	}
}
