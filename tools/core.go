package tools

// Core are the built-in tools a model is shown up front when the others
// wait behind tool search ([tools] defer, always_load): reading, changing
// and searching files, running commands, tool_output_cache, which every
// trimmed output's marker names, and done, which ends an agent's run. The rest are used less often, and cost a model their definitions
// on every request until a search loads them.
var Core = []string{"read_file", "edit", "apply_patch", "exec_command", "grep_search", "glob_search", "tool_output_cache", "done"}
