package tools

import "github.com/quiverkit/quiver/hooks"

// ClaudeCode is how the built-in tools look to a hook written for Claude
// Code (package hooks): Claude Code's name for each tool that has a
// counterpart there, and the fields it calls otherwise. Fields not listed
// keep their names both ways; Claude Code's fields that a tool has no use
// for are dropped from a hook's updatedInput. The names and fields are
// those of Claude Code's tools reference, the version package hooks pins.
func ClaudeCode() []hooks.Mapping {
	path := func(claude string) hooks.Field { return hooks.Field{Quiver: "path", Claude: claude, Path: true} }
	return []hooks.Mapping{
		{Tool: ExecCommand.Name, Claude: "Bash", Fields: []hooks.Field{
			{Quiver: "timeout_secs", Claude: "timeout", Scale: 1000}, // Claude Code's is in milliseconds
			{Quiver: "background", Claude: "run_in_background"},
		}, Dropped: []string{"description", "dangerouslyDisableSandbox"}},
		{Tool: ReadFile.Name, Claude: "Read", Fields: []hooks.Field{path("file_path")}},
		{Tool: WriteFile.Name, Claude: "Write", Fields: []hooks.Field{path("file_path")}},
		{Tool: Edit.Name, Claude: "Edit", Fields: []hooks.Field{path("file_path")}},
		{Tool: MultiEdit.Name, Claude: "MultiEdit", Fields: []hooks.Field{path("file_path")}},
		{Tool: GrepSearch.Name, Claude: "Grep", Fields: []hooks.Field{
			path("path"),
			{Quiver: "file_pattern", Claude: "glob"},
			{Quiver: "case_insensitive", Claude: "-i"},
			{Quiver: "context_lines", Claude: "-C"},
			{Quiver: "max_results", Claude: "head_limit"},
			{Quiver: "output_mode", Claude: "output_mode", Values: [][2]string{{"files", "files_with_matches"}}},
		}, Dropped: []string{"-n"}},
		{Tool: GlobSearch.Name, Claude: "Glob", Fields: []hooks.Field{{Quiver: "base_dir", Claude: "path", Path: true}}},
		{Tool: WebFetch.Name, Claude: "WebFetch", Dropped: []string{"prompt"}},
	}
}
