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

// FuzzToolNameBeginsWithTheServersPrefix: every name the provider gives a
// server's tool begins with namePrefix(server), whether it is cut to fit or
// renamed after a collision. The registry lists the provider only for names
// that begin so (MayOffer); a name that did not would leave the tool
// unreachable, or let a lower-priority tool of that name run in its place.
func FuzzToolNameBeginsWithTheServersPrefix(f *testing.F) {
	f.Add("github", "list_issues")
	f.Add("", "")
	f.Add("a.b", "c")
	f.Add("srv\xff", "\x80tool")
	f.Add("é", "ü")
	f.Add(strings.Repeat("s", 54), "t")
	f.Add(strings.Repeat("s", 53), strings.Repeat("t", 20))
	f.Add(strings.Repeat("界", 60), "x")
	f.Fuzz(func(t *testing.T, server, tool string) {
		prefix := namePrefix(server)
		name := ToolName(server, tool)
		renamed := withHash(name, server+"__"+tool) // convert's answer to a collision
		for _, n := range []string{name, renamed} {
			if !strings.HasPrefix(n, prefix) {
				t.Fatalf("server %q, tool %q: name %q does not begin with %q", server, tool, n, prefix)
			}
		}
		p := &Provider{prefix: prefix}
		if !p.MayOffer(name) {
			t.Fatalf("MayOffer(%q) = false for server %q", name, server)
		}
	})
}
