package hooks_test

import (
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/quiverkit/quiver/hooks"
)

// TestCommandPaths: every spelling of a script an attacker (or a hook's
// author) may write leads to the same workspace path; a file the hook
// writes is not one it runs.
func TestCommandPaths(t *testing.T) {
	const g = ".claude/hooks/guard.sh"
	tests := []struct {
		name, line string
		files      []string // each must be among the files found
		dirs       []string // each must be among the directories found
		notFiles   []string // none may be
	}{
		{"relative", ".claude/hooks/guard.sh", []string{g}, nil, nil},
		{"dot slash", "./.claude/hooks/guard.sh", []string{g}, nil, nil},
		{"doubled slashes and dots", ".claude//hooks/./guard.sh", []string{g}, nil, nil},
		{"project dir", `$CLAUDE_PROJECT_DIR/.claude/hooks/guard.sh`, []string{g}, nil, nil},
		{"project dir quoted", `"$CLAUDE_PROJECT_DIR"/.claude/hooks/guard.sh`, []string{g}, nil, nil},
		{"project dir braced, all quoted", `"${CLAUDE_PROJECT_DIR}/.claude/hooks/guard.sh"`, []string{g}, nil, nil},
		{"project dir with a default", `"${CLAUDE_PROJECT_DIR:-.}"/.claude/hooks/guard.sh`, []string{g}, nil, nil},
		{"PWD", `"$PWD/.claude/hooks/guard.sh"`, []string{g}, nil, nil},
		{"single quotes", `'.claude/hooks/guard.sh'`, []string{g}, nil, nil},
		{"escaped", `.claude/hooks/gu\ard.sh`, []string{g}, nil, nil},
		{"absolute", "/srv/w/.claude/hooks/guard.sh", []string{"/srv/w/.claude/hooks/guard.sh"}, nil, nil},
		{"bash", "bash .claude/hooks/guard.sh", []string{g}, nil, nil},
		{"python with options", "python3 -u -B .claude/hooks/x.py", []string{".claude/hooks/x.py"}, nil, nil},
		{"node", "node .claude/hooks/x.js", []string{".claude/hooks/x.js"}, nil, nil},
		{"env", "env -i PATH=/bin python3 .claude/hooks/x.py", []string{".claude/hooks/x.py"}, nil, nil},
		{"an option's value", "ruff check --config=.claude/ruff.toml", []string{".claude/ruff.toml"}, nil, nil},
		{"sh -c", `sh -c '"$CLAUDE_PROJECT_DIR"/.claude/hooks/guard.sh'`, []string{g}, nil, nil},
		{"bash -lc nested twice", `bash -lc "sh -c 'python3 .claude/hooks/x.py'"`, []string{".claude/hooks/x.py"}, nil, nil},
		{"eval", `eval ". .claude/hooks/lib.sh"`, []string{".claude/hooks/lib.sh"}, nil, nil},
		{"read from a redirection", "sh < .claude/hooks/guard.sh", []string{g}, nil, nil},
		{"in a list and a pipeline", "jq -r .tool_input.command | grep -q rm && .claude/hooks/guard.sh || true", []string{g}, nil, nil},
		{"in a substitution", `x=$(cat .claude/hooks/allow.txt); test -n "$x"`, []string{".claude/hooks/allow.txt"}, nil, nil},
		{"known in part", `"$CLAUDE_PROJECT_DIR/.claude/hooks/$NAME.sh"`, nil, []string{".claude/hooks"}, nil},
		{"a glob", "sh .claude/hooks/*.sh", nil, []string{".claude/hooks"}, nil},
		{"a written redirection", "guard > .claude/hooks/log.txt 2>> .claude/err.txt", nil, nil, []string{".claude/hooks/log.txt", ".claude/err.txt"}},
		{"outside", "~/bin/guard; ../up.sh; $HOME/x", nil, nil, []string{"../up.sh", "x"}},
		{"does not parse", "sh -c 'x", nil, nil, []string{"x"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := hooks.CommandPaths(tt.line)
			for _, f := range tt.files {
				if !slices.Contains(got.Files, f) {
					t.Errorf("%q: %q not among the files %q", tt.line, f, got.Files)
				}
			}
			for _, d := range tt.dirs {
				if !slices.Contains(got.Dirs, d) {
					t.Errorf("%q: %q not among the directories %q", tt.line, d, got.Dirs)
				}
			}
			for _, f := range tt.notFiles {
				if slices.Contains(got.Files, f) || slices.Contains(got.Dirs, f) {
					t.Errorf("%q: %q found: %+v", tt.line, f, got)
				}
			}
		})
	}
}

// TestSourcedPaths: what a shell script sources, however it is spelled,
// and nothing it merely reads.
func TestSourcedPaths(t *testing.T) {
	script := "#!/bin/sh\n. ./lib/a.sh\nsource \"$CLAUDE_PROJECT_DIR/lib/b.sh\"\nif true; then . 'lib/c.sh'; fi\ncat data.txt\n"
	got := hooks.SourcedPaths(script)
	if d := cmp.Diff([]string{"lib/a.sh", "lib/b.sh", "lib/c.sh"}, got.Files); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
}
