package main

import (
	"fmt"
	"sync"

	"github.com/quiverkit/quiver"
	"github.com/quiverkit/quiver/config"
	"github.com/quiverkit/quiver/provider/cli"
)

func init() {
	wirings = append(wirings, wireCLI)
	notes = append(notes, cliNotes)
}

// cliProviders is the CLI provider each run of a command made.
var (
	cliMu        sync.Mutex
	cliProviders = map[*app]*cli.Provider{}
)

// wireCLI adds the provider that backs the search tools with rg and fd
// when they are installed ([tools.cli]; disabled = true turns it off).
func wireCLI(a *app, cfg *config.Config) ([]quiver.Option, error) {
	if cfg.Tools.CLI.Disabled {
		return nil, nil
	}
	p := cli.New(cli.Options{Aliases: cfg.Tools.CLI.Aliases, SuggestEnhanced: cfg.Tools.SuggestEnhancedTools})
	cliMu.Lock()
	cliProviders[a] = p
	cliMu.Unlock()
	return []quiver.Option{quiver.WithProvider(p)}, nil
}

// cliNotes tells `quiver tools` which program backs each search tool, and
// what to install when suggest_enhanced_tools is set.
func cliNotes(a *app) []string {
	cliMu.Lock()
	p := cliProviders[a]
	cliMu.Unlock()
	if p == nil {
		return nil
	}
	var lines []string
	for _, b := range p.Backends() {
		if b.Path != "" {
			lines = append(lines, fmt.Sprintf("%s: backed by %s (%s)", b.Tool, b.Program, b.Path))
		} else {
			lines = append(lines, fmt.Sprintf("%s: builtin engine (%s)", b.Tool, b.Note))
		}
	}
	for _, s := range p.Suggestions() {
		lines = append(lines, "suggestion: "+s)
	}
	return lines
}
