package mcpserver_test

import (
	"slices"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/quiverkit/quiver"
	"github.com/quiverkit/quiver/mcpserver"
	"github.com/quiverkit/quiver/policy"
	"github.com/quiverkit/quiver/sandbox"
)

// TestListOffersWhatThePolicyAllows: tools/list is the toolkit's offer, so a
// tool every call of which the policy refuses is not listed (issue 18,
// item 6): a bare deny, a [policy.tools] deny that beats a bare allow, and a
// deny default no rule lifts. A tool some of whose calls are allowed stays.
func TestListOffersWhatThePolicyAllows(t *testing.T) {
	cases := []struct {
		name            string
		cfg             policy.Config
		listed, missing []string
	}{
		{"tools deny beats a bare allow", policy.Config{Allow: []string{"echo"}, Tools: map[string]policy.Decision{"echo": policy.Deny}},
			[]string{"note"}, []string{"echo"}},
		{"a bare deny", policy.Config{Deny: []string{"note"}},
			[]string{"echo"}, []string{"note"}},
		{"a deny default hides what no rule names", policy.Config{Default: policy.Deny, Allow: []string{"echo"}, Ask: []string{"note(x)"}},
			[]string{"echo", "note"}, []string{"slow", "boom"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p, err := policy.New(c.cfg, sandbox.WorkspaceWrite)
			if err != nil {
				t.Fatal(err)
			}
			f := newFixture(t, quiver.WithPolicy(p))
			cs := connect(t, newServer(t, f, mcpserver.Options{}), nil)
			res, err := cs.ListTools(t.Context(), nil)
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, tl := range res.Tools {
				names = append(names, tl.Name)
			}
			for _, n := range c.listed {
				if !slices.Contains(names, n) {
					t.Errorf("%s is not listed: %v", n, names)
				}
			}
			for _, n := range c.missing {
				if slices.Contains(names, n) {
					t.Errorf("%s is listed, but the policy refuses every call of it", n)
				}
				res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: n, Arguments: map[string]any{}})
				if err == nil && !res.IsError {
					t.Errorf("calling the unlisted %s succeeded", n)
				}
			}
		})
	}
}
