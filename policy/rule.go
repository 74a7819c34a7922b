package policy

import (
	"fmt"
	"net/url"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
	"github.com/quiverkit/quiver/sandbox"
	"github.com/quiverkit/quiver/tool"
)

// Rule is one policy rule: a tool name (a glob: "mcp__github__*" names every
// tool of one MCP server) and an optional specifier.
type Rule struct {
	Tool string
	Spec string // "" for a bare rule
	// paths are the globs a path specifier matches subjects with, the
	// workspace's own spelling last ([Policy.InWorkspace]: an absolute
	// path inside the workspace also relative to it, ~ as the home
	// directory); nil before the policy is bound to a workspace, when the
	// specifier is matched as written.
	paths []string
}

// ParseRule parses "tool" or "tool(specifier)".
func ParseRule(s string) (Rule, error) {
	s = strings.TrimSpace(s)
	name, spec, hasSpec := strings.Cut(s, "(")
	r := Rule{Tool: strings.TrimSpace(name)}
	if hasSpec {
		if !strings.HasSuffix(spec, ")") {
			return Rule{}, fmt.Errorf("rule %q: missing closing parenthesis", s)
		}
		r.Spec = strings.TrimSpace(strings.TrimSuffix(spec, ")"))
		if r.Spec == "" {
			return Rule{}, fmt.Errorf("rule %q: empty specifier (write the bare tool name instead)", s)
		}
	}
	if r.Tool == "" {
		return Rule{}, fmt.Errorf("rule %q: no tool name", s)
	}
	if _, err := doublestar.Match(r.Tool, "x"); err != nil {
		return Rule{}, fmt.Errorf("rule %q: bad tool pattern: %w", s, err)
	}
	if r.Spec != "" && !strings.HasPrefix(r.Spec, "domain:") {
		if _, err := doublestar.Match(r.Spec, "x"); err != nil {
			return Rule{}, fmt.Errorf("rule %q: bad specifier: %w", s, err)
		}
	}
	return r, nil
}

// String returns the rule as written in configuration.
func (r Rule) String() string {
	if r.Spec == "" {
		return r.Tool
	}
	return r.Tool + "(" + r.Spec + ")"
}

func (r Rule) matchesTool(name string) bool {
	if r.Tool == name {
		return true
	}
	ok, _ := doublestar.Match(r.Tool, name)
	return ok
}

// matchesAny is how deny and ask rules match: bare rules always; specifier
// rules if any subject (any simple command) matches.
func (r Rule) matchesAny(subjects []tool.Subject, cmds []parsedCommand) bool {
	if r.Spec == "" {
		return true
	}
	for _, s := range subjects {
		if s.Kind != tool.SubjectCommand && r.matchesSubject(s) {
			return true
		}
	}
	for _, c := range cmds {
		if c.err == nil && r.matchesRestrictive(c.SimpleCommand) {
			return true
		}
	}
	return false
}

func (r Rule) matchesSubject(s tool.Subject) bool {
	switch s.Kind {
	case tool.SubjectPath:
		if strings.HasPrefix(r.Spec, "domain:") {
			return false
		}
		p := cleanSubjectPath(s.Value)
		for _, spec := range r.pathSpecs() {
			if ok, _ := doublestar.Match(spec, p); ok {
				return true
			}
			// "src" and "src/" name everything below the directory too.
			if ok, _ := doublestar.Match(strings.TrimSuffix(spec, "/")+"/**", p); ok {
				return true
			}
		}
		return false
	case tool.SubjectURL:
		host, ok := strings.CutPrefix(r.Spec, "domain:")
		if !ok {
			return false
		}
		return hostMatches(s.Value, host)
	case tool.SubjectCommand:
		cmds, err := SimpleCommands(s.Value)
		if err != nil {
			return false
		}
		for _, c := range cmds {
			if r.matchesCommand(c) {
				return true
			}
		}
	}
	return false
}

// pathSpecs returns the globs a path specifier matches with: its
// spellings once bound to a workspace, else the specifier as written.
func (r Rule) pathSpecs() []string {
	if r.paths != nil {
		return r.paths
	}
	return []string{cleanSubjectPath(r.Spec)}
}

// hostMatches reports whether rawURL's host is named by pattern, as the
// network list matches hosts ([sandbox.HostMatches]): the host or a
// subdomain of it; "*.example.com" names subdomains only.
func hostMatches(rawURL, pattern string) bool {
	u, err := url.Parse(strings.TrimSpace(rawURL))
	if err != nil || u.Hostname() == "" {
		return false
	}
	return sandbox.HostMatches(u.Hostname(), pattern)
}

// matchesCommand matches a command specifier against one simple command.
func (r Rule) matchesCommand(c SimpleCommand) bool {
	if strings.HasPrefix(r.Spec, "domain:") {
		return false
	}
	line := c.String()
	spec := r.Spec
	if prefix, ok := strings.CutSuffix(spec, ":*"); ok {
		spec = prefix + " *"
	}
	if prefix, ok := strings.CutSuffix(spec, " *"); ok && globMatch(prefix, line) {
		return true
	}
	return globMatch(spec, line)
}

// globMatch matches s against pattern where '*' matches any run of
// characters (spaces and slashes included) and '?' one character.
func globMatch(pattern, s string) bool {
	px, sx := 0, 0
	nextP, nextS := -1, -1
	for px < len(pattern) || sx < len(s) {
		if px < len(pattern) {
			switch c := pattern[px]; c {
			case '*':
				nextP, nextS = px, sx+1
				px++
				continue
			case '?':
				if sx < len(s) {
					px++
					sx++
					continue
				}
			default:
				if sx < len(s) && s[sx] == c {
					px++
					sx++
					continue
				}
			}
		}
		if nextS > 0 && nextS <= len(s) {
			px, sx = nextP, nextS
			continue
		}
		return false
	}
	return true
}
