package quiver

import (
	"context"
	"testing"

	"github.com/quiverkit/quiver/provider"
	"github.com/quiverkit/quiver/provider/providertest"
	"github.com/quiverkit/quiver/tool"
)

// TestHostToolsContract: the provider that serves a host's own tools
// (WithTools) keeps the contract the registry relies on.
func TestHostToolsContract(t *testing.T) {
	type input struct {
		Text string `json:"text" jsonschema:"what to echo"`
	}
	echo := func(name string) *tool.Tool {
		return tool.Func(name, "Echoes text.", func(_ context.Context, _ tool.Context, in input) (string, error) {
			return in.Text, nil
		}, tool.ReadOnly())
	}
	providertest.Run(t, func(*testing.T) provider.Provider {
		tk := &Toolkit{}
		WithTools(echo("echo"), echo("shout"))(tk)
		return tk.providers[0].p
	})
}
