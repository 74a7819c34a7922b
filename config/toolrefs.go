package config

import (
	"fmt"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
	"github.com/quiverkit/quiver/policy"
)

// ToolRef is a tool name (or pattern) a policy rule or a [policy.tools]
// key writes, with where: what CheckToolRefs holds to the catalogue.
type ToolRef struct {
	Tool string   `json:"tool"` // the rule's tool part: "exec_command", "github__*"
	Key  string   `json:"key"`  // policy.allow, policy.ask, policy.deny or policy.tools.NAME
	Pos  string   `json:"pos"`  // file:line:col
	At   Position `json:"-"`    // the same place, in parts
	// User is set for a name the user's file writes: that file governs
	// every workspace, so it may name a tool that only other projects
	// define (a custom tool, a script, a server's tool).
	User bool `json:"-"`
}

// ToolRefs returns the tool names the rules in force write, with their
// positions, in file order, layer by layer.
func (c *Config) ToolRefs() []ToolRef { return append([]ToolRef(nil), c.refs...) }

// toolRefs picks the tool names out of a file's keys.
func toolRefs(ws []written) []ToolRef {
	var out []ToolRef
	for _, w := range ws {
		k := w.key()
		switch {
		case w.Elem && (k == "policy.allow" || k == "policy.ask" || k == "policy.deny"):
			if r, err := policy.ParseRule(w.Value); err == nil {
				out = append(out, ToolRef{Tool: r.Tool, Key: k, Pos: w.Pos, At: w.At})
			}
		case !w.Elem && len(w.Path) == 3 && w.Path[0] == "policy" && w.Path[1] == "tools":
			out = append(out, ToolRef{Tool: w.Path[2], Key: k, Pos: w.Pos, At: w.At})
		}
	}
	return out
}

// Catalogue is what CheckToolRefs asks about names: the toolkit's
// registry and the configuration's providers answer it.
type Catalogue interface {
	// Knows reports whether name is a tool, an alias, or a tool of a
	// configured provider that is not running now (a server's
	// SERVER__NAME, which is accepted unchecked).
	Knows(name string) bool
	// Names lists every name known without starting a provider, for
	// patterns and suggestions.
	Names() []string
	// MayMatch reports whether pattern could match a tool of a provider
	// that is not listed now (an MCP server's prefix).
	MayMatch(pattern string) bool
}

// UnknownToolError is a rule or [policy.tools] key naming no tool.
type UnknownToolError struct {
	Ref     ToolRef
	Suggest string // the nearest known name, "" when none is near
}

func (e *UnknownToolError) Error() string { return e.Ref.Pos + ": " + e.Message() }

// Message is the error without its position.
func (e *UnknownToolError) Message() string {
	msg := fmt.Sprintf("%s names no tool: %q", e.Ref.Key, e.Ref.Tool)
	if e.Suggest != "" {
		msg += fmt.Sprintf(" (did you mean %q?)", e.Suggest)
	}
	return msg
}

// CheckToolRefs returns an error for each rule and [policy.tools] key of
// c that names no tool of cat: a typo in a rule is a rule that protects
// nothing. A pattern ("github__*") passes when it matches a known name or
// may match a provider's tools that are not listed now. It is the one
// check `quiver config check` and every command run.
func CheckToolRefs(c *Config, cat Catalogue) []error {
	names := cat.Names()
	var errs []error
	for _, r := range c.refs {
		if known(r.Tool, cat, names) {
			continue
		}
		suggest := nearest(r.Tool, names)
		if r.User && suggest == "" {
			continue // see ElsewhereToolRefs
		}
		errs = append(errs, &UnknownToolError{Ref: r, Suggest: suggest})
	}
	return errs
}

// ElsewhereToolRefs returns the names the user's file writes that name no
// tool of cat and are near none: tools, it is assumed, of the other
// projects that file also governs. CheckToolRefs lets them pass (an error
// would stop every workspace but the one defining the tool); a name near
// a known one is a typo there, and an error. `quiver config check` lists
// these, so that a rule protecting nothing here is still seen.
func ElsewhereToolRefs(c *Config, cat Catalogue) []ToolRef {
	names := cat.Names()
	var out []ToolRef
	for _, r := range c.refs {
		if r.User && !known(r.Tool, cat, names) && nearest(r.Tool, names) == "" {
			out = append(out, r)
		}
	}
	return out
}

func known(name string, cat Catalogue, names []string) bool {
	if !strings.ContainsAny(name, `*?[{\`) {
		return cat.Knows(name)
	}
	for _, n := range names {
		if ok, _ := doublestar.Match(name, n); ok {
			return true
		}
	}
	return cat.MayMatch(name)
}

// nearest is the known name closest to name by edit distance, when close
// enough to be a likely typo.
func nearest(name string, names []string) string {
	best, bestD := "", len(name)/3+1
	for _, n := range names {
		if d := editDistance(name, n); d < bestD {
			best, bestD = n, d
		}
	}
	return best
}

func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur := make([]int, len(b)+1)
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev = cur
	}
	return prev[len(b)]
}
