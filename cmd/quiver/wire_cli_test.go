package main

import (
	"testing"

	"github.com/quiverkit/quiver/provider"
	"github.com/quiverkit/quiver/provider/builtin"
	"github.com/quiverkit/quiver/provider/cli"
	mcpprovider "github.com/quiverkit/quiver/provider/mcp"
)

// TestRankedKeepsTheProvidersScope: a provider that [tools] providers
// moves to another priority still tells the registry which names it may
// offer, so that reordering the sources does not make a call of read_file
// start every MCP server; one that cannot tell may offer anything.
func TestRankedKeepsTheProvidersScope(t *testing.T) {
	server, err := mcpprovider.New(mcpprovider.Config{Name: "gh", Command: "gh-mcp"})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		p    provider.Provider
		yes  []string
		no   []string
	}{
		{"an MCP server", server, []string{"gh__issues", "gh__"}, []string{"read_file", "gh_issues", "github__x"}},
		{"the CLI provider", cli.New(cli.Options{}), []string{"grep_search", "glob_search"}, []string{"read_file", "exec_command"}},
		{"the builtin provider, which cannot tell", builtin.New(), []string{"read_file", "gh__issues", "anything"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var r provider.Provider = ranked{Provider: tt.p, priority: provider.PriorityBuiltin - 1}
			s, ok := r.(provider.Scoped)
			if !ok {
				t.Fatal("ranked does not implement provider.Scoped")
			}
			for _, name := range tt.yes {
				if !s.MayOffer(name) {
					t.Errorf("MayOffer(%q) = false", name)
				}
			}
			for _, name := range tt.no {
				if s.MayOffer(name) {
					t.Errorf("MayOffer(%q) = true", name)
				}
			}
		})
	}
}
