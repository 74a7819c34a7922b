package provider_test

import (
	"context"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/quiverkit/quiver/provider"
)

// TestAllToolsKeepsShadowedTools: a tool another provider's tool of the same
// name hides is still listed, after it, and an unavailable provider lists
// nothing.
func TestAllToolsKeepsShadowedTools(t *testing.T) {
	builtin := &fake{id: "builtin", priority: provider.PriorityBuiltin, names: []string{"write_file", "read_file"}}
	script := &fake{id: "script", priority: provider.PriorityScript, names: []string{"write_file"}}
	broken := &fake{id: "mcp:down", priority: provider.PriorityMCP, err: errors.New("server exited: status 1")}
	tools, err := provider.NewRegistry(builtin, script, broken).AllTools(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, tl := range tools {
		got = append(got, tl.Description+"/"+tl.Name) // fake's tools are described by their provider
	}
	if diff := cmp.Diff([]string{"script/write_file", "builtin/read_file", "builtin/write_file"}, got); diff != "" {
		t.Errorf("AllTools (-want +got):\n%s", diff)
	}
}
