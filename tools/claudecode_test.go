package tools_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/quiverkit/quiver/hooks"
	"github.com/quiverkit/quiver/schema"
	"github.com/quiverkit/quiver/tool"
	"github.com/quiverkit/quiver/tools"
)

// TestClaudeCodeMapping holds the mapping to Claude Code's tools both
// ways, for every mapped tool: a call in Quiver's names reaches a Claude
// Code hook as Claude Code writes that tool's input (paths absolute), and
// that input, with Claude Code's fields Quiver has no use for, comes back as
// the call, which the tool's schema accepts.
func TestClaudeCodeMapping(t *testing.T) {
	const root = "/home/u/project"
	cases := []struct {
		tool, claude string
		quiver       map[string]any
		claudeInput  map[string]any
		extra        map[string]any // Claude Code's fields that are dropped coming back
	}{
		{"exec_command", "Bash",
			map[string]any{"command": "go test ./...", "timeout_secs": float64(30), "background": true},
			map[string]any{"command": "go test ./...", "timeout": float64(30000), "run_in_background": true},
			map[string]any{"description": "Run the tests", "dangerouslyDisableSandbox": true}},
		{"read_file", "Read",
			map[string]any{"path": "src/a.go", "offset": float64(10), "limit": float64(20)},
			map[string]any{"file_path": root + "/src/a.go", "offset": float64(10), "limit": float64(20)}, nil},
		{"write_file", "Write",
			map[string]any{"path": "a.txt", "content": "hi\n"},
			map[string]any{"file_path": root + "/a.txt", "content": "hi\n"}, nil},
		{"edit", "Edit",
			map[string]any{"path": "a.go", "old_string": "x", "new_string": "y", "replace_all": true},
			map[string]any{"file_path": root + "/a.go", "old_string": "x", "new_string": "y", "replace_all": true}, nil},
		{"multi_edit", "MultiEdit",
			map[string]any{"path": "a.go", "edits": []any{map[string]any{"old_string": "x", "new_string": "y"}}},
			map[string]any{"file_path": root + "/a.go", "edits": []any{map[string]any{"old_string": "x", "new_string": "y"}}}, nil},
		{"grep_search", "Grep",
			map[string]any{"pattern": "func main", "path": "cmd", "file_pattern": "*.go", "case_insensitive": true,
				"context_lines": float64(2), "max_results": float64(50), "output_mode": "files"},
			map[string]any{"pattern": "func main", "path": root + "/cmd", "glob": "*.go", "-i": true,
				"-C": float64(2), "head_limit": float64(50), "output_mode": "files_with_matches"},
			map[string]any{"-n": true}},
		{"glob_search", "Glob",
			map[string]any{"pattern": "**/*.go", "base_dir": "internal"},
			map[string]any{"pattern": "**/*.go", "path": root + "/internal"}, nil},
		{"web_fetch", "WebFetch",
			map[string]any{"url": "https://example.com/"},
			map[string]any{"url": "https://example.com/"},
			map[string]any{"prompt": "Summarise the page"}},
	}
	maps, err := hooks.NewMappings(tools.ClaudeCode()...)
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]*tool.Tool{}
	for _, tl := range tools.All() {
		byName[tl.Name] = tl
	}
	mapped := map[string]bool{}
	for _, m := range tools.ClaudeCode() {
		mapped[m.Tool] = true
	}
	for _, tc := range cases {
		delete(mapped, tc.tool)
		if got := maps.ClaudeName(tc.tool); got != tc.claude {
			t.Errorf("%s is %q to Claude Code, want %q", tc.tool, got, tc.claude)
		}
		if got := maps.ToolName(tc.claude); got != tc.tool {
			t.Errorf("Claude Code's %s is %q, want %q", tc.claude, got, tc.tool)
		}
		if diff := cmp.Diff(tc.claudeInput, maps.ToClaude(tc.tool, tc.quiver, root)); diff != "" {
			t.Errorf("%s to Claude Code (-want +got):\n%s", tc.tool, diff)
		}
		in := map[string]any{}
		for k, v := range tc.claudeInput {
			in[k] = v
		}
		for k, v := range tc.extra {
			in[k] = v
		}
		back := maps.FromClaude(tc.tool, in, root)
		if diff := cmp.Diff(tc.quiver, back); diff != "" {
			t.Errorf("%s from Claude Code (-want +got):\n%s", tc.tool, diff)
		}
		tl := byName[tc.tool]
		if tl == nil {
			continue // not on this system (exec_command on Windows)
		}
		v, err := schema.Compile(tl.InSchema())
		if err != nil {
			t.Fatal(err)
		}
		if _, err := v.Validate(back); err != nil {
			t.Errorf("%s refuses the input mapped back: %v", tc.tool, err)
		}
	}
	for name := range mapped {
		t.Errorf("%s is mapped and not tested", name)
	}
}
