package hooks_test

import (
	"path"
	"slices"
	"strings"
	"testing"

	"github.com/quiverkit/quiver/hooks"
)

// FuzzParseOutput: whatever a hook prints, reading it neither panics nor
// yields a decision outside allow, ask and deny, nor an updatedInput after
// any event but PreToolUse. Seeds: testdata/fuzz/FuzzParseOutput.
func FuzzParseOutput(f *testing.F) {
	f.Add(uint8(0), []byte(`{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"no"}}`))
	f.Add(uint8(1), []byte(`{"decision":"block","reason":"r","hookSpecificOutput":{"additionalContext":"c"}}`))
	f.Fuzz(func(t *testing.T, event uint8, stdout []byte) {
		e := hooks.Events[int(event)%len(hooks.Events)]
		o, err := hooks.ParseOutput(e, stdout)
		if err != nil || o == nil {
			return
		}
		if s := o.Specific; s != nil {
			switch s.PermissionDecision {
			case "", "allow", "ask", "deny", "defer":
			default:
				t.Errorf("permissionDecision %q accepted", s.PermissionDecision)
			}
			if e != hooks.PreToolUse && (s.PermissionDecision != "" || s.UpdatedInput != nil) {
				t.Errorf("%s accepted a PreToolUse answer", e)
			}
		}
		if e != hooks.PreToolUse && o.Decision != "" && o.Decision != "block" {
			t.Errorf("%s accepted decision %q", e, o.Decision)
		}
	})
}

// FuzzParseMatcher: a matcher is refused or reads back as written; one of
// plain names matches exactly those names; and matching never panics.
// Seeds: testdata/fuzz/FuzzParseMatcher.
func FuzzParseMatcher(f *testing.F) {
	for _, s := range []string{"", "*", "Bash", "Edit|Write", "mcp__.*", "^(a|b)$", "(?i)bash", "a{1000}"} {
		f.Add(s, "Bash")
	}
	f.Fuzz(func(t *testing.T, matcher, name string) {
		m, err := hooks.ParseMatcher(matcher)
		if err != nil {
			return
		}
		if len(matcher) > hooks.MaxMatcherLen {
			t.Fatalf("a matcher of %d bytes accepted", len(matcher))
		}
		if m.String() != matcher {
			t.Errorf("%q reads back as %q", matcher, m.String())
		}
		got := m.Match(name)
		if plain(matcher) && matcher != "" && strings.Trim(matcher, "|") != "" {
			want := false
			for _, n := range strings.Split(matcher, "|") {
				want = want || n != "" && n == name
			}
			if got != want {
				t.Errorf("%q matches %q: %v, want %v", matcher, name, got, want)
			}
		}
	})
}

func plain(s string) bool {
	return strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_|") == ""
}

// FuzzParseClaudeSettings: a settings file is refused or gives hooks that
// can run, each with a command and Claude Code's names. Seeds:
// testdata/fuzz/FuzzParseClaudeSettings.
func FuzzParseClaudeSettings(f *testing.F) {
	f.Add([]byte(`{"hooks":{"PreToolUse":[{"matcher":"Bash","hooks":[{"type":"command","command":"x","timeout":3}]}]}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		cfg, _, err := hooks.ParseClaudeSettings("s.json", data)
		if err != nil {
			return
		}
		if err := cfg.Check(); err != nil {
			t.Errorf("accepted hooks that do not check: %v", err)
		}
		for _, e := range hooks.Events {
			for _, h := range cfg.For(e) {
				if !h.Claude || h.Command == "" {
					t.Errorf("%s hook %+v", e, h)
				}
			}
		}
	})
}

// FuzzMappingRoundTrip: an input of Quiver's, out to Claude Code's names
// and back unchanged, is the input itself (paths clean and relative).
// Seeds: testdata/fuzz/FuzzMappingRoundTrip.
func FuzzMappingRoundTrip(f *testing.F) {
	f.Add("a/b.go", 3.0, "files", "x")
	f.Fuzz(func(t *testing.T, path string, secs float64, mode, other string) {
		m, err := hooks.NewMappings(hooks.Mapping{Tool: "t", Claude: "T", Fields: []hooks.Field{
			{Quiver: "path", Claude: "file_path", Path: true},
			{Quiver: "secs", Claude: "timeout", Scale: 1000},
			{Quiver: "mode", Claude: "output_mode", Values: [][2]string{{"files", "files_with_matches"}, {"content", "content"}}},
		}})
		if err != nil {
			t.Fatal(err)
		}
		if !localClean(path) || secs != float64(int64(secs)) || secs < 0 || secs > 1e9 {
			return
		}
		if mode == "files_with_matches" {
			return // a Claude Code value Quiver's side never sends
		}
		in := map[string]any{"path": path, "secs": secs, "mode": mode, "other": other}
		back := m.FromClaude("t", m.ToClaude("t", in, "/home/u/w"), "/home/u/w")
		for k, v := range in {
			if back[k] != v {
				t.Errorf("%s: %v came back as %v", k, v, back[k])
			}
		}
	})
}

// localClean reports whether p is a relative path written as Clean writes
// it, with slashes.
func localClean(p string) bool {
	return p != "" && !strings.HasPrefix(p, "/") && path.Clean(p) == p && !strings.HasPrefix(p, "..") && !strings.Contains(p, "\\")
}

// FuzzCommandPaths: reading any command line ends, never panics, and
// gives only clean paths that are neither the root nor above it; and a
// plain path written in any of the spellings a hook may use (relative,
// ./, $CLAUDE_PROJECT_DIR quoted or braced, through an interpreter, env,
// sh -c, a redirection) is always found. Seeds:
// testdata/fuzz/FuzzCommandPaths.
func FuzzCommandPaths(f *testing.F) {
	f.Add(`"$CLAUDE_PROJECT_DIR"/.claude/hooks/check.py`, ".claude/hooks/guard.sh", uint8(0))
	f.Add(`sh -c 'python3 "${CLAUDE_PROJECT_DIR}/x.py" > log' < in`, "a//b/../c.py", uint8(4))
	f.Fuzz(func(t *testing.T, line, file string, spelling uint8) {
		for _, p := range append(hooks.CommandPaths(line).Files, hooks.CommandPaths(line).Dirs...) {
			if p == "" || path.Clean(p) != p || p == "." || p == ".." || strings.HasPrefix(p, "../") || strings.HasPrefix(p, "-") {
				t.Errorf("%q gave the path %q", line, p)
			}
		}
		want := path.Clean(file)
		if strings.Trim(file, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._/-") != "" ||
			strings.HasPrefix(file, "-") || strings.HasPrefix(file, "/") || !localClean(want) || want == "." {
			return
		}
		spellings := []string{file, "./" + file, `"$CLAUDE_PROJECT_DIR"/` + file, `"${CLAUDE_PROJECT_DIR}/` + file + `"`,
			"bash " + file, "python3 -u " + file, "env -i python3 " + file, `sh -c '` + file + ` x'`, "sh < " + file,
			`bash -c "$CLAUDE_PROJECT_DIR/` + file + `"`}
		line = spellings[int(spelling)%len(spellings)]
		if got := hooks.CommandPaths(line).Files; !slices.Contains(got, want) {
			t.Errorf("%q: %q not found in %q", line, want, got)
		}
	})
}
