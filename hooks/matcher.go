package hooks

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
)

// MaxMatcherLen bounds a matcher's text: a regular expression compiles in
// time and memory proportional to its length, and no tool name is longer
// than 64 characters.
const MaxMatcherLen = 1024

// Matcher says which tools a hook runs for, as Claude Code's matcher does:
//
//   - "*", "" or no matcher: every tool;
//   - only letters, digits, _ and |: one exact name, or exact names
//     separated by | ("Edit|Write");
//   - anything else: a regular expression searched for in the name
//     ("^Notebook", "mcp__memory__.*"), case-sensitive, unanchored as
//     JavaScript's RegExp.test is. Go's RE2 syntax: a look-around, which
//     RE2 lacks, is refused where the matcher is written.
//
// The zero Matcher matches every tool.
type Matcher struct {
	text  string
	names []string
	re    *regexp.Regexp
}

// ParseMatcher reads a matcher.
func ParseMatcher(s string) (Matcher, error) {
	m := Matcher{text: s}
	switch {
	case len(s) > MaxMatcherLen:
		return Matcher{}, fmt.Errorf("matcher: %d characters, want at most %d", len(s), MaxMatcherLen)
	case s == "" || s == "*":
		return m, nil
	case plainNames(s):
		for _, n := range strings.Split(s, "|") {
			if n != "" {
				m.names = append(m.names, n)
			}
		}
		if len(m.names) == 0 {
			return Matcher{}, fmt.Errorf("matcher: %q names no tool", s)
		}
		return m, nil
	}
	re, err := regexp.Compile(s)
	if err != nil {
		return Matcher{}, fmt.Errorf("matcher: %q is neither tool names nor a regular expression Go reads: %w", s, err)
	}
	m.re = re
	return m, nil
}

// plainNames reports whether s holds only letters, digits, _ and |.
func plainNames(s string) bool {
	for _, r := range s {
		if !(r == '_' || r == '|' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
			return false
		}
	}
	return true
}

// Match reports whether the tool called name is matched.
func (m Matcher) Match(name string) bool {
	switch {
	case m.re != nil:
		return m.re.MatchString(name)
	case m.names != nil:
		return slices.Contains(m.names, name)
	}
	return true
}

// All reports whether m matches every tool.
func (m Matcher) All() bool { return m.re == nil && m.names == nil }

// String is the matcher as written.
func (m Matcher) String() string { return m.text }

// UnmarshalText reads the matcher where it is written, so that a bad one is
// reported at its line.
func (m *Matcher) UnmarshalText(b []byte) error {
	p, err := ParseMatcher(string(b))
	if err != nil {
		return err
	}
	*m = p
	return nil
}

// MarshalText implements encoding.TextMarshaler.
func (m Matcher) MarshalText() ([]byte, error) { return []byte(m.text), nil }
