package main

import (
	"fmt"
	"slices"
	"sort"

	"github.com/quiverkit/quiver"
	"github.com/quiverkit/quiver/config"
	"github.com/quiverkit/quiver/provider"
	"github.com/quiverkit/quiver/provider/builtin"
	"github.com/quiverkit/quiver/provider/cli"
)

// wireBuiltin adds the standard catalogue, at the priority [tools]
// providers gives it, unless [tools.builtin] enabled = false or that list
// does not name it. Its read-only classifier is replaced by wireExec's,
// which knows [exec] low_risk_commands.
func (a *app) wireBuiltin(cfg *config.Config) ([]quiver.Option, error) {
	if !cfg.Tools.ProviderOn(config.KindBuiltin) {
		return nil, nil
	}
	return []quiver.Option{builtin.StandardAt(priorityOf(cfg, config.KindBuiltin))}, nil
}

// wireCLI adds the provider that backs the search tools with rg and fd
// when they are installed, and the tools of [tools.cli.aliases] that run a
// program of their own. [tools.cli] enabled = false (or disabled = true)
// turns it off.
func (a *app) wireCLI(cfg *config.Config) ([]quiver.Option, error) {
	if !cfg.Tools.ProviderOn(config.KindCLI) {
		return nil, nil
	}
	p := cli.New(cli.Options{Aliases: cfg.Tools.CLI.Aliases, SuggestEnhanced: cfg.Tools.SuggestEnhancedTools,
		EnvAllow: cfg.Exec.EnvAllow})
	if err := p.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", cfg.Path, err)
	}
	a.cli = p
	return []quiver.Option{quiver.WithProviderAt(p, priorityOf(cfg, config.KindCLI))}, nil
}

// stockPriority is each source's priority when [tools] providers does not
// reorder them.
var stockPriority = map[string]int{
	config.KindBuiltin: provider.PriorityBuiltin,
	config.KindCLI:     provider.PriorityCLI,
	config.KindCustom:  provider.PriorityCustom,
	config.KindScript:  provider.PriorityScript,
	config.KindMCP:     provider.PriorityMCP,
}

// priorityOf is the priority of a kind of source: the sources [tools]
// providers names trade their stock priorities so that the first named is
// the most preferred; sources it does not name keep theirs.
func priorityOf(cfg *config.Config, kind string) int {
	order := cfg.Tools.Preference()
	i := slices.Index(order, kind)
	if i < 0 {
		return stockPriority[kind]
	}
	slots := make([]int, len(order))
	for j, k := range order {
		slots[j] = stockPriority[k]
	}
	sort.Sort(sort.Reverse(sort.IntSlice(slots)))
	return slots[i]
}

// cliNotes tells `quiver tools` and `quiver config check` which program
// backs each search tool (or why the builtin engine does), which tools run
// a program of their own, and what to install when suggest_enhanced_tools
// is set.
func (a *app) cliNotes() []string {
	p := a.cli
	if p == nil {
		return nil
	}
	var lines []string
	for _, b := range p.Backends() {
		switch {
		case b.Wraps && b.Path != "":
			lines = append(lines, fmt.Sprintf("%s: runs %s (%s) with the model's arguments; high risk, sandboxed", b.Tool, b.Program, b.Path))
		case b.Wraps:
			lines = append(lines, fmt.Sprintf("%s: runs %s with the model's arguments; high risk, sandboxed; %s", b.Tool, b.Program, b.Note))
		case b.Path != "":
			lines = append(lines, fmt.Sprintf("%s: backed by %s (%s)", b.Tool, b.Program, b.Path))
		default:
			lines = append(lines, fmt.Sprintf("%s = %q: %s", b.Tool, b.Program, b.Note))
		}
	}
	for _, s := range p.Suggestions() {
		lines = append(lines, "suggestion: "+s)
	}
	return lines
}
