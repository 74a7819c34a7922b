package hooks

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strings"
)

// Mapping is how one of Quiver's tools looks to a hook written for Claude
// Code: the name Claude Code gives the tool and the fields it calls by
// other names. A field neither lists keeps its name both ways, so nothing
// the call holds is lost on the way out and back.
type Mapping struct {
	Tool   string // Quiver's name: exec_command
	Claude string // Claude Code's: Bash
	Fields []Field
	// Dropped are Claude Code's fields that Quiver's tool has no use for
	// (Bash's description, WebFetch's prompt): left out of an updatedInput,
	// where the tool's schema would refuse them.
	Dropped []string
}

// Field is one field a Mapping renames.
type Field struct {
	Quiver, Claude string
	// Path marks a path: Claude Code's are absolute, Quiver's relative to
	// the workspace root. Out, a relative path is joined to the root; back,
	// an absolute path inside the root is made relative again.
	Path bool
	// Scale is Claude Code's unit in Quiver's (Bash's timeout is in
	// milliseconds, exec_command's in seconds: 1000); 0 is 1. Back, a value
	// that does not divide is rounded up.
	Scale float64
	// Values rename values, each pair {Quiver's, Claude Code's}.
	Values [][2]string
}

// Mappings are the mappings of a catalogue, looked up both ways.
type Mappings struct {
	byTool, byClaude map[string]*Mapping
	// mcp are the name prefixes of the MCP servers' tools (SERVER__).
	mcp []string
}

// MCPPrefix begins the name Claude Code gives an MCP server's tool:
// mcp__SERVER__TOOL.
const MCPPrefix = "mcp__"

// AddMCP makes the tools whose Quiver names begin with one of prefixes —
// an MCP server's SERVER__, as package provider/mcp names its tools — known
// to a Claude Code hook by Claude Code's name for them, mcp__SERVER__TOOL,
// both in the tool_name it reads and for its matcher (mcp__github__.*).
func (m *Mappings) AddMCP(prefixes ...string) {
	for _, p := range prefixes {
		if p != "" && !slices.Contains(m.mcp, p) {
			m.mcp = append(m.mcp, p)
		}
	}
}

// isMCP reports whether tool is an MCP server's, by its Quiver name.
func (m *Mappings) isMCP(tool string) bool {
	if m == nil {
		return false
	}
	for _, p := range m.mcp {
		if len(tool) > len(p) && tool[:len(p)] == p {
			return true
		}
	}
	return false
}

// NewMappings indexes ms, refusing a name mapped twice either way.
func NewMappings(ms ...Mapping) (*Mappings, error) {
	m := &Mappings{byTool: map[string]*Mapping{}, byClaude: map[string]*Mapping{}}
	for i := range ms {
		mp := &ms[i]
		if m.byTool[mp.Tool] != nil || m.byClaude[mp.Claude] != nil {
			return nil, fmt.Errorf("hooks: %s and %s: a tool mapped twice", mp.Tool, mp.Claude)
		}
		m.byTool[mp.Tool], m.byClaude[mp.Claude] = mp, mp
	}
	return m, nil
}

// ClaudeName is the name a Claude Code hook knows the tool by: Claude
// Code's for its own tools (Bash), mcp__SERVER__TOOL for an MCP server's
// (AddMCP), else the tool's own.
func (m *Mappings) ClaudeName(tool string) string {
	if mp := m.lookup(tool); mp != nil {
		return mp.Claude
	}
	if m.isMCP(tool) {
		return MCPPrefix + tool
	}
	return tool
}

// ToolName is the Quiver tool a Claude Code name stands for: the name
// itself when it is neither one of Claude Code's mapped tools nor an MCP
// server's.
func (m *Mappings) ToolName(claude string) string {
	if m != nil {
		if mp := m.byClaude[claude]; mp != nil {
			return mp.Tool
		}
		if tool, ok := strings.CutPrefix(claude, MCPPrefix); ok && m.isMCP(tool) {
			return tool
		}
	}
	return claude
}

func (m *Mappings) lookup(tool string) *Mapping {
	if m == nil {
		return nil
	}
	return m.byTool[tool]
}

// ToClaude is the tool's input as Claude Code writes it; root is the
// workspace root paths are relative to.
func (m *Mappings) ToClaude(tool string, in map[string]any, root string) map[string]any {
	mp := m.lookup(tool)
	if mp == nil {
		return in
	}
	out := make(map[string]any, len(in))
	for k, v := range in {
		f := mp.field(func(f *Field) bool { return f.Quiver == k })
		if f == nil {
			out[k] = v
			continue
		}
		out[f.Claude] = f.out(v, root)
	}
	return out
}

// FromClaude is an input written in Claude Code's names (a hook's
// updatedInput) in Quiver's.
func (m *Mappings) FromClaude(tool string, in map[string]any, root string) map[string]any {
	mp := m.lookup(tool)
	if mp == nil {
		return in
	}
	out := make(map[string]any, len(in))
	for k, v := range in {
		if slices.Contains(mp.Dropped, k) {
			continue
		}
		f := mp.field(func(f *Field) bool { return f.Claude == k })
		if f == nil {
			out[k] = v
			continue
		}
		out[f.Quiver] = f.back(v, root)
	}
	return out
}

func (mp *Mapping) field(match func(*Field) bool) *Field {
	for i := range mp.Fields {
		if match(&mp.Fields[i]) {
			return &mp.Fields[i]
		}
	}
	return nil
}

// out converts a value of Quiver's for Claude Code. A value of a type the
// field does not expect passes unchanged: the tool's schema judges it.
func (f *Field) out(v any, root string) any {
	switch x := v.(type) {
	case string:
		if f.Path && root != "" && !filepath.IsAbs(x) {
			return filepath.Join(root, filepath.FromSlash(x))
		}
		for _, p := range f.Values {
			if p[0] == x {
				return p[1]
			}
		}
	default:
		if n, ok := number(v); ok && f.Scale > 0 {
			return n * f.Scale
		}
	}
	return v
}

// back converts a value of Claude Code's for Quiver.
func (f *Field) back(v any, root string) any {
	switch x := v.(type) {
	case string:
		if f.Path && root != "" && filepath.IsAbs(x) {
			if rel, err := filepath.Rel(root, x); err == nil && (rel == "." || filepath.IsLocal(rel)) {
				return filepath.ToSlash(rel)
			}
		}
		for _, p := range f.Values {
			if p[1] == x {
				return p[0]
			}
		}
	default:
		if n, ok := number(v); ok && f.Scale > 0 {
			return math.Ceil(n / f.Scale)
		}
	}
	return v
}

// number reads a JSON number as decoded by encoding/json or as a Go value.
func number(v any) (float64, bool) {
	switch n := v.(type) {
	case float64:
		return n, true
	case int:
		return float64(n), true
	case int64:
		return float64(n), true
	case json.Number:
		f, err := n.Float64()
		return f, err == nil
	}
	return 0, false
}

// ParseClaudeSettings reads the "hooks" section of a Claude Code settings
// file (name is used in messages), as Claude Code writes it:
//
//	{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
//	    {"type": "command", "command": "$CLAUDE_PROJECT_DIR/.claude/hooks/guard.sh", "timeout": 30}]}]}}
//
// The rest of the file (permissions, env...) is not read. Events Quiver does
// not run are returned in skipped; "disableAllHooks": true loads none. A
// hook of a type other than "command" (prompt, http, agent) cannot run
// here and is refused, naming it: a guard silently not run is a guard
// missing.
func ParseClaudeSettings(name string, data []byte) (cfg Config, skipped []string, err error) {
	var file struct {
		Hooks           map[string]json.RawMessage `json:"hooks"`
		DisableAllHooks bool                       `json:"disableAllHooks"`
	}
	if err := json.Unmarshal(data, &file); err != nil {
		return Config{}, nil, fmt.Errorf("%s: not a Claude Code settings file: %w", name, err)
	}
	if file.DisableAllHooks {
		return Config{}, nil, nil
	}
	for event, raw := range file.Hooks {
		e := Event(event)
		if !slices.Contains(Events, e) {
			skipped = append(skipped, event)
			continue
		}
		hooks, err := parseClaudeEvent(name, e, raw)
		if err != nil {
			return Config{}, nil, err
		}
		switch e {
		case PreToolUse:
			cfg.PreToolUse = hooks
		case PostToolUse:
			cfg.PostToolUse = hooks
		case PostToolUseFailure:
			cfg.PostToolUseFailure = hooks
		}
	}
	slices.Sort(skipped)
	return cfg, skipped, nil
}

func parseClaudeEvent(name string, e Event, raw json.RawMessage) ([]Hook, error) {
	var groups []struct {
		Matcher *string `json:"matcher"`
		Hooks   []struct {
			Type    string  `json:"type"`
			Command string  `json:"command"`
			Timeout float64 `json:"timeout"`
		} `json:"hooks"`
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	if err := dec.Decode(&groups); err != nil {
		return nil, fmt.Errorf("%s: hooks.%s: want a list of {matcher, hooks}: %w", name, e, err)
	}
	var out []Hook
	for i, g := range groups {
		at := fmt.Sprintf("%s: hooks.%s[%d]", name, e, i)
		var m Matcher
		if g.Matcher != nil {
			var err error
			if m, err = ParseMatcher(*g.Matcher); err != nil {
				return nil, fmt.Errorf("%s: %w", at, err)
			}
		}
		for j, h := range g.Hooks {
			hat := fmt.Sprintf("%s.hooks[%d]", at, j)
			if h.Type != "command" {
				return nil, fmt.Errorf("%s: type %q cannot run in Quiver, only \"command\" hooks do", hat, h.Type)
			}
			hook := Hook{Matcher: m, Command: h.Command, Timeout: h.Timeout, Claude: true, Source: hat}
			if err := hook.check(); err != nil {
				return nil, fmt.Errorf("%s: %w", hat, err)
			}
			out = append(out, hook)
		}
	}
	return out, nil
}
