package hooks_test

import (
	"strings"
	"testing"

	"github.com/quiverkit/quiver/hooks"
)

func TestMatcher(t *testing.T) {
	cases := []struct {
		matcher string
		match   []string
		miss    []string
	}{
		{matcher: "", match: []string{"Bash", "read_file", "x"}},
		{matcher: "*", match: []string{"Bash", "mcp__a__b"}},
		{matcher: "Bash", match: []string{"Bash"}, miss: []string{"bash", "BashOutput", "xBash"}},
		{matcher: "Edit|Write", match: []string{"Edit", "Write"}, miss: []string{"MultiEdit", "Edit|Write", "NotebookEdit"}},
		{matcher: "Edit||Write|", match: []string{"Edit", "Write"}, miss: []string{""}},
		{matcher: "read_file", match: []string{"read_file"}, miss: []string{"read_files", "Read"}},
		{matcher: "Notebook.*", match: []string{"NotebookEdit", "NotebookRead", "xNotebook"}, miss: []string{"notebook"}},
		{matcher: "^Notebook", match: []string{"NotebookEdit"}, miss: []string{"xNotebook"}},
		{matcher: "mcp__memory__.*", match: []string{"mcp__memory__store"}, miss: []string{"mcp__files__read"}},
		{matcher: "^(edit|write_file)$", match: []string{"edit", "write_file"}, miss: []string{"multi_edit"}},
		{matcher: "exec_.*", match: []string{"exec_command", "exec_output"}, miss: []string{"read_file"}},
	}
	for _, tc := range cases {
		m, err := hooks.ParseMatcher(tc.matcher)
		if err != nil {
			t.Errorf("%q: %v", tc.matcher, err)
			continue
		}
		if m.String() != tc.matcher {
			t.Errorf("%q reads back as %q", tc.matcher, m.String())
		}
		for _, n := range tc.match {
			if !m.Match(n) {
				t.Errorf("%q does not match %q", tc.matcher, n)
			}
		}
		for _, n := range tc.miss {
			if m.Match(n) {
				t.Errorf("%q matches %q", tc.matcher, n)
			}
		}
	}
}

func TestMatcherErrors(t *testing.T) {
	cases := map[string]string{
		"(?=Bash)":                "neither tool names nor a regular expression",
		"Edit(":                   "missing closing )",
		"|":                       "names no tool",
		strings.Repeat("a", 1025): "want at most 1024",
		strings.Repeat("(a", 600): "want at most 1024",
		"[z-a]":                   "invalid character class range",
	}
	for in, want := range cases {
		_, err := hooks.ParseMatcher(in)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%.40q: %v, want an error with %q", in, err, want)
		}
	}
}
