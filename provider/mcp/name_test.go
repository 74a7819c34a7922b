package mcp

import (
	"strings"
	"testing"

	"github.com/quiverkit/quiver/tools"
)

// FuzzToolNameNeverABuiltin: an MCP server's tool never takes the name of a
// built-in tool, whatever the server and tool are called. The MCP provider
// is the one whose catalogue changes while quiver runs (list_changed), so
// this is what keeps a name that resolved to a built-in (an InProcess one,
// for `quiver call`'s Ctrl-C) from resolving to a server's tool a moment
// later: every name it makes holds "__" or is cut to 64 characters.
func FuzzToolNameNeverABuiltin(f *testing.F) {
	builtin := map[string]bool{}
	for _, t := range tools.All() {
		builtin[t.Name] = true
	}
	f.Add("read", "file")
	f.Add("", "read_file")
	f.Add("read_file", "")
	f.Add("a", "b")
	f.Add("read/", "_file")
	f.Add(strings.Repeat("s", 70), "read_file")
	f.Fuzz(func(t *testing.T, server, tool string) {
		name := ToolName(server, tool)
		if builtin[name] {
			t.Fatalf("ToolName(%q, %q) = %q, a built-in tool's name", server, tool, name)
		}
		if !strings.Contains(name, "__") && len(name) != maxName {
			t.Fatalf("ToolName(%q, %q) = %q: neither SERVER__TOOL nor cut to %d", server, tool, name, maxName)
		}
	})
}
