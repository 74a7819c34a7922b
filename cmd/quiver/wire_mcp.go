package main

import (
	"fmt"
	"log/slog"
	"time"

	"github.com/quiverkit/quiver"
	"github.com/quiverkit/quiver/config"
	mcpprovider "github.com/quiverkit/quiver/provider/mcp"
	"github.com/quiverkit/quiver/sandbox"
	"github.com/quiverkit/quiver/tool"
)

// wireMCP adds a provider for each [[tools.mcp.servers]] entry. Servers are
// started when their tools are first needed, not here.
func (a *app) wireMCP(cfg *config.Config) ([]quiver.Option, error) {
	if !cfg.Tools.ProviderOn(config.KindMCP) {
		return nil, nil // [tools.mcp] enabled = false, or [tools] providers leaves mcp out
	}
	logger := a.mcpLog
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	var opts []quiver.Option
	for _, s := range cfg.Tools.MCP.Servers {
		c := mcpprovider.Config{
			Name: s.Name, Command: s.Command, Args: s.Args, Env: s.Env,
			URL: s.URL, Headers: s.Headers,
			EnabledTools: s.EnabledTools, DisabledTools: s.DisabledTools,
			Timeout:      time.Duration(s.TimeoutSecs) * time.Second,
			StartTimeout: time.Duration(s.TimeoutSecs) * time.Second,
			Risk:         tool.Risk(s.Risk),
			Logger:       logger,
		}
		if s.Command != "" {
			// Servers run in the workspace, as the tools do, and in its
			// sandbox unless the operator opts one out.
			c.Dir = a.workspaceDir(cfg)
			box, err := a.mcpSandbox(cfg, s, c.Dir)
			if err != nil {
				return nil, fmt.Errorf("%s: [[tools.mcp.servers]] %s: %w", cfg.Path, s.Name, err)
			}
			c.Sandbox, c.NoSandbox = box, box == nil
		}
		p, err := mcpprovider.New(c)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", cfg.Path, err)
		}
		a.closer = append(a.closer, p)
		a.mcp = append(a.mcp, p)
		opts = append(opts, quiver.WithProviderAt(p, priorityOf(cfg, config.KindMCP)))
	}
	return opts, nil
}

// mcpSandbox returns the profile of a stdio server: the write scope's, with
// the server's own network setting; nil when the operator opted it out.
func (a *app) mcpSandbox(cfg *config.Config, s config.MCPServer, dir string) (*sandbox.Profile, error) {
	if s.Sandbox != nil && !*s.Sandbox {
		return nil, nil
	}
	return a.processSandbox(cfg, dir, s.Network)
}

// processSandbox returns the profile of a process Quiver starts for itself
// (an MCP server, quiver-models) in dir: built by the same function from
// the same policy as the toolkit's (policy.Policy.Sandbox), so it has the
// same protected paths, [policy] protected included; the hosts of
// [sandbox] network and of network.
func (a *app) processSandbox(cfg *config.Config, dir string, network sandbox.Network) (*sandbox.Profile, error) {
	pol, err := a.newPolicy(cfg)
	if err != nil {
		return nil, err
	}
	if dir == "" {
		dir = "."
	}
	sc := cfg.Sandbox
	sc.Network = sc.Network.Union(network) // this process's own setting adds to [sandbox]'s
	return pol.Sandbox(dir, sc)
}

// workspaceDir is the workspace root as the toolkit will open it ("" for
// the current directory).
func (a *app) workspaceDir(cfg *config.Config) string {
	if a.flags.root != "" {
		return a.flags.root
	}
	return cfg.Resolve(cfg.Workspace.Root)
}

// onMCPChange calls f whenever an MCP server's catalogue may have changed.
func (a *app) onMCPChange(f func()) {
	for _, p := range a.mcp {
		p.OnChange(f)
	}
}

// mcpNotes tells `quiver tools` which MCP tools were left out, and why.
func (a *app) mcpNotes() []string {
	var lines []string
	for _, p := range a.mcp {
		for _, s := range p.Skipped() {
			lines = append(lines, fmt.Sprintf("provider %s left out %s", p.ID(), s))
		}
	}
	return lines
}
