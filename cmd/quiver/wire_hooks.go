package main

import (
	"fmt"
	"strings"

	"github.com/quiverkit/quiver"
	"github.com/quiverkit/quiver/config"
	"github.com/quiverkit/quiver/hooks"
	mcpprovider "github.com/quiverkit/quiver/provider/mcp"
	"github.com/quiverkit/quiver/tools"
)

// wireHooks runs the hooks of the configuration in force (an untrusted
// project's were dropped when it was loaded), with the built-in tools'
// Claude Code names for a Claude Code settings file's.
func (a *app) wireHooks(cfg *config.Config) ([]quiver.Option, error) {
	hc, skipped, err := cfg.HookConfig()
	if err != nil {
		return nil, err
	}
	if len(skipped) > 0 {
		a.hookNotes = append(a.hookNotes, fmt.Sprintf("hooks: %s in %s are not run (they are a conversation's events, not a tool call's)",
			strings.Join(skipped, ", "), cfg.Hooks.ClaudeSettings))
	}
	if hc.Empty() {
		return nil, nil
	}
	maps, err := hooks.NewMappings(tools.ClaudeCode()...)
	if err != nil {
		return nil, err
	}
	for _, srv := range cfg.Tools.MCP.Servers {
		maps.AddMCP(mcpprovider.ToolName(srv.Name, ""))
	}
	return []quiver.Option{quiver.WithHooks(hc, maps)}, nil
}
