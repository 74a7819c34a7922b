package main

import (
	"context"
	"errors"
	"fmt"
	"path"
	"slices"
	"strings"

	"github.com/quiverkit/quiver/config"
	"github.com/quiverkit/quiver/provider"
	"github.com/quiverkit/quiver/provider/builtin"
	mcpprovider "github.com/quiverkit/quiver/provider/mcp"
	"github.com/quiverkit/quiver/provider/script"
	"github.com/quiverkit/quiver/tools"
)

// trustNotice is the one line that says a project's own configuration is
// not loaded whole, with the command that would load it; "" when there is
// nothing to say (no project files, or trusted).
func trustNotice(cfg *config.Config) string {
	p := cfg.Project
	if p == nil || p.Empty() || cfg.ProjectState == config.Trusted {
		return ""
	}
	what, subject := "its scripts are not run", p.File
	switch {
	case subject == "":
		subject = config.ScriptsDir
	case len(cfg.Layers) > 0 && cfg.Layers[0].Kind == config.LayerExplicit:
		what = "--config replaces it; its scripts are not run"
	default:
		what = "only its keys that tighten the policy apply; its tools, scripts, servers and hooks are not run"
	}
	state := string(cfg.ProjectState)
	if len(cfg.ProjectChanged) > 0 {
		state += " (" + strings.Join(cfg.ProjectChanged, ", ") + ")"
	}
	return fmt.Sprintf("quiver: %s in %s is %s: %s (quiver config check shows which); to load it whole: quiver trust %s",
		subject, p.Dir, state, what, shellQuote(p.Dir))
}

// shellQuote quotes s for a POSIX shell when it needs it.
func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789/._-+:@") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// checkToolRefs holds the rules in force to the catalogue: a rule or a
// [policy.tools] key naming no tool is a configuration error.
func (a *app) checkToolRefs(ctx context.Context, cfg *config.Config, reg *provider.Registry) error {
	errs := config.CheckToolRefs(cfg, a.catalogue(ctx, cfg, reg))
	return errors.Join(errs...)
}

// catalogue is every name a rule may write: the tools the registry
// resolves, and the tools of providers that are not running now, which
// are known by their configuration (an MCP server's SERVER__ prefix, the
// CLI provider's aliases, the custom tools, the scripts of a project not
// trusted) without being started.
type catalogue struct {
	ctx      context.Context
	reg      *provider.Registry
	names    []string
	prefixes []string
}

func (a *app) catalogue(ctx context.Context, cfg *config.Config, reg *provider.Registry) *catalogue {
	c := &catalogue{ctx: ctx, reg: reg}
	if list, err := builtin.New().Tools(ctx); err == nil {
		for _, t := range list {
			c.names = append(c.names, t.Name)
		}
	}
	for name := range tools.Unavailable() { // built-ins this platform lacks
		c.names = append(c.names, name)
	}
	for _, al := range reg.Aliases() {
		c.names = append(c.names, al.Name)
	}
	for _, al := range builtin.Aliases() {
		c.names = append(c.names, al.Name)
	}
	for name := range cfg.Tools.CLI.Aliases {
		c.names = append(c.names, name)
	}
	for _, t := range cfg.Tools.Custom {
		c.names = append(c.names, t.Name)
	}
	if a.scripts != nil {
		if list, err := a.scripts.Tools(ctx); err == nil {
			for _, t := range list {
				c.names = append(c.names, t.Name)
			}
		}
	}
	if p := cfg.Project; p != nil {
		for f := range p.Files {
			if dir, file := path.Split(f); path.Clean(dir) == config.ScriptsDir {
				c.names = append(c.names, script.Name(file))
			}
		}
	}
	for _, s := range cfg.Tools.MCP.Servers {
		c.prefixes = append(c.prefixes, mcpprovider.ToolName(s.Name, ""))
	}
	slices.Sort(c.names)
	c.names = slices.Compact(c.names)
	return c
}

// Knows implements config.Catalogue. A name an MCP server's prefix
// covers is accepted before the registry is asked, which would start
// that server.
func (c *catalogue) Knows(name string) bool {
	if _, ok := slices.BinarySearch(c.names, name); ok {
		return true
	}
	for _, p := range c.prefixes {
		if strings.HasPrefix(name, p) {
			return true
		}
	}
	_, _, err := c.reg.Resolve(c.ctx, name, nil)
	return err == nil
}

// Names implements config.Catalogue.
func (c *catalogue) Names() []string { return c.names }

// MayMatch implements config.Catalogue: a pattern whose text before its
// first wildcard agrees with a server's prefix may match that server's
// tools.
func (c *catalogue) MayMatch(pattern string) bool {
	lit := pattern[:strings.IndexAny(pattern, `*?[{\`)]
	for _, p := range c.prefixes {
		if strings.HasPrefix(lit, p) || strings.HasPrefix(p, lit) {
			return true
		}
	}
	return false
}
