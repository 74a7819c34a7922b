package config

import (
	"strings"
	"testing"
)

// TestTypeErrorsInTOMLWords: a value of the wrong type is reported at its
// place in TOML's words, never Go's (issue 33: "cannot decode TOML string
// into struct field config.Policy.Allow of type []config.Rule").
func TestTypeErrorsInTOMLWords(t *testing.T) {
	for _, c := range []struct{ doc, want string }{
		{"[policy]\nallow = \"x\"\n", "q.toml:2:9: policy.allow: want a list of strings, not a string"},
		{"[[tools.custom]]\nname = \"x\"\ncommand = 5\n", "q.toml:3:11: tools.custom.command: want a string, not an integer"},
		{"[tools.custom.x]\ncommand = 5\n", "q.toml:2:11: tools.custom.x.command: want a string, not an integer"},
		{"[output]\nmax_bytes = \"big\"\n", "q.toml:2:13: output.max_bytes: want an integer, not a string"},
		{"[run]\nquiet_thinking = \"yes\"\n", "q.toml:2:18: run.quiet_thinking: want true or false, not a string"},
		{"policy = 3\n", "q.toml:1:10: policy: want a table, not an integer"},
		{"[exec]\ndefault_timeout_secs = 1.5\n", "q.toml:2:24: exec.default_timeout_secs: want an integer, not a float"},
		{"[[tools.mcp.servers]]\nname = \"m\"\nargs = \"a\"\n", "q.toml:3:8: tools.mcp.servers.args: want a list of strings, not a string"},
		{"[tools]\ncustom = 3\n", "q.toml:2:10: tools.custom: want an array of tables ([[...]]), not an integer"},
		{"[policy]\ntools = [\"a\"]\n", "q.toml:2:9: policy.tools: want a table, not an array"},
	} {
		_, err := Parse("q.toml", []byte(c.doc))
		if err == nil || err.Error() != c.want {
			t.Errorf("%q: %v, want %q", c.doc, err, c.want)
		}
		if err != nil && (strings.Contains(err.Error(), "config.") || strings.Contains(err.Error(), "struct field")) {
			t.Errorf("%q: Go's words in %q", c.doc, err)
		}
	}
}

// TestEntriesArePlaced: each custom tool and MCP server knows where it is
// written, in every form a file may write it, so that an error about it
// reads file:line:col.
func TestEntriesArePlaced(t *testing.T) {
	for _, c := range []struct {
		doc              string
		customs, servers []string
	}{
		{doc: "[[tools.custom]]\nname = \"a\"\ncommand = \"x\"\n\n[[tools.custom]]\nname = \"b\"\ncommand = \"y\"\n", customs: []string{"q.toml:1:9", "q.toml:5:9"}},
		{doc: "[tools.custom.b]\ncommand = \"y\"\n\n[tools.custom.a]\ncommand = \"x\"\n", customs: []string{"q.toml:5:1", "q.toml:2:1"}},
		{doc: "[[tools.mcp.servers]]\nname = \"a\"\ncommand = \"x\"\n[[tools.mcp.servers]]\nname = \"b\"\ncommand = \"y\"\n", servers: []string{"q.toml:1:13", "q.toml:4:13"}},
		{doc: "[tools.mcp]\nservers = [{name = \"a\", command = \"x\"}, {name = \"b\", command = \"y\"}]\n", servers: []string{"q.toml:2:1", "q.toml:2:1"}},
	} {
		cfg, err := Parse("q.toml", []byte(c.doc))
		if err != nil {
			t.Fatalf("%q: %v", c.doc, err)
		}
		var customs, servers []string
		for _, x := range cfg.Tools.Custom {
			customs = append(customs, x.At.String())
		}
		for _, x := range cfg.Tools.MCP.Servers {
			servers = append(servers, x.At.String())
		}
		if strings.Join(customs, " ") != strings.Join(c.customs, " ") || strings.Join(servers, " ") != strings.Join(c.servers, " ") {
			t.Errorf("%q: placed at %q and %q, want %q and %q", c.doc, customs, servers, c.customs, c.servers)
		}
	}
}
