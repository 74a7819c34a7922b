// Package tools holds Quiver's built-in tools. One tool is three files:
// NAME.go (its input and output types and its function), NAME.md (the
// description the model reads, embedded), and NAME_test.go. A file whose
// name is not a tool's (writepath.go, overwriteguard.go, execbits.go) holds
// what several tools share, and is named for what it does.
//
// A tool here only does its job: it reaches files through the workspace
// (workspace.From) and other services through dependency keys. Policy,
// approval, output caching and audit belong to the pipeline, which runs them
// once for every tool from every provider.
//
// Each tool file registers its constructor in an init function; [All] builds
// the whole set. Registration keeps a tool's name, types, description and
// handler in one place: adding a tool touches no other file. A toolkit gets
// the set, with its aliases, from package provider/builtin (builtin.Standard).
package tools

import (
	"sort"
	"sync"

	"github.com/quiverkit/quiver/provider"
	"github.com/quiverkit/quiver/tool"
)

var (
	mu           sync.Mutex
	constructors []func() *tool.Tool
)

// register adds a tool constructor; called from init functions.
func register(newTool func() *tool.Tool) {
	mu.Lock()
	constructors = append(constructors, newTool)
	mu.Unlock()
}

// All returns a fresh instance of every built-in tool that works on this
// system (see [Unavailable]), sorted by name.
func All() []*tool.Tool {
	mu.Lock()
	defer mu.Unlock()
	out := make([]*tool.Tool, 0, len(constructors))
	for _, c := range constructors {
		if t := c(); Unavailable()[t.Name] == "" {
			out = append(out, t)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// Aliases are the other names the built-in tools answer to, with argument
// renames, so that a model prompted with either specification is served.
// Tool files add theirs in init.
var aliases []provider.Alias

func registerAlias(a provider.Alias) {
	mu.Lock()
	aliases = append(aliases, a)
	mu.Unlock()
}

// Aliases returns the registered aliases.
func Aliases() []provider.Alias {
	mu.Lock()
	defer mu.Unlock()
	return append([]provider.Alias(nil), aliases...)
}
