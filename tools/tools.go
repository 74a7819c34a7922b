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
// The catalogue is an explicit list ([All] and [Aliases] below, in one
// place): what a toolkit gets is read here, not assembled by init functions
// of files it may not know of, and a tool added to the package is served
// only once it is listed. A toolkit gets the set, with its aliases, from
// package provider/builtin (builtin.Standard).
package tools

import (
	"sort"

	"github.com/quiverkit/quiver/provider"
	"github.com/quiverkit/quiver/tool"
)

// catalogue builds every built-in tool, one constructor each, in name order.
var catalogue = []func() *tool.Tool{
	newApplyPatch,
	newDone,
	newEdit,
	newExecCommand,
	newExecKill,
	newExecOutput,
	newGitStatusSummary,
	func() *tool.Tool { return NewGlobSearch(BuiltinGlob) },
	func() *tool.Tool { return NewGrepSearch(BuiltinGrep) },
	newListDirs,
	newListFiles,
	newMultiEdit,
	newReadFile,
	func() *tool.Tool { return NewSearchCode(BuiltinGrep) },
	newToolOutputCache,
	newToolOutputCacheGrep,
	newTree,
	newValidateOutput,
	newWebFetch,
	newWebSearch,
	newWriteFile,
	newWriteStdin,
	newWriteTodos,
}

// All returns a fresh instance of every built-in tool that works on this
// system (see [Unavailable]), sorted by name.
func All() []*tool.Tool {
	out := make([]*tool.Tool, 0, len(catalogue))
	for _, c := range catalogue {
		if t := c(); Unavailable()[t.Name] == "" {
			out = append(out, t)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// aliases are the other names the built-in tools answer to, with argument
// renames, so that a model prompted with either specification is served:
// Codex's run_command, and todo_manager.
var aliases = []provider.Alias{
	{Name: "run_command", Target: "exec_command", Renames: map[string]string{"working_dir": "workdir"}},
	{Name: "todo_manager", Target: "write_todos"},
}

// Aliases returns the built-in tools' aliases. The slice is the caller's.
func Aliases() []provider.Alias {
	return append([]provider.Alias(nil), aliases...)
}
