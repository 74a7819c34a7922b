package config

import (
	"fmt"
	"slices"
	"strings"
)

// Provider kinds, as [tools] providers names them.
const (
	KindBuiltin = "builtin"
	KindCLI     = "cli"
	KindCustom  = "custom"
	KindScript  = "script"
	KindMCP     = "mcp"
)

var kinds = []string{KindBuiltin, KindCLI, KindCustom, KindScript, KindMCP}

// ProviderKind is an entry of [tools] providers, checked where it is written.
type ProviderKind struct{ Name string }

// UnmarshalText implements encoding.TextUnmarshaler.
func (k *ProviderKind) UnmarshalText(b []byte) error {
	if !slices.Contains(kinds, string(b)) {
		return fmt.Errorf("provider %q: want one of %s", b, strings.Join(kinds, ", "))
	}
	k.Name = string(b)
	return nil
}

// Builtin is [tools.builtin].
type Builtin struct {
	Enabled *bool `toml:"enabled"`
}

// ProviderOn reports whether the tool source kind is on. A source's own
// enabled setting decides when it is written; else, when [tools] providers
// is set, the source is on when listed; else it is on. Custom tools are
// always on: declaring one is asking for it, and the spec's list has no
// name for them.
func (t *Tools) ProviderOn(kind string) bool {
	if on := t.enabledSetting(kind); on != nil {
		return *on
	}
	if kind == KindCustom || t.Providers == nil {
		return true
	}
	return slices.ContainsFunc(t.Providers, func(k ProviderKind) bool { return k.Name == kind })
}

// enabledSetting is the kind's own enabled setting, nil when unwritten.
func (t *Tools) enabledSetting(kind string) *bool {
	switch kind {
	case KindBuiltin:
		return t.Builtin.Enabled
	case KindCLI:
		if t.CLI.Disabled {
			off := false
			return &off
		}
		return t.CLI.Enabled
	case KindMCP:
		return t.MCP.Enabled
	}
	return nil
}

// Preference returns the kinds [tools] providers lists, most preferred
// first; nil when it is not set.
func (t *Tools) Preference() []string {
	var out []string
	for _, k := range t.Providers {
		out = append(out, k.Name)
	}
	return out
}

// checkProviders refuses a list that contradicts itself or a source's own
// setting: which of the two should win is a guess the file must not leave
// to the reader.
func (t *Tools) checkProviders() error {
	seen := map[string]bool{}
	for _, k := range t.Providers {
		if seen[k.Name] {
			return fmt.Errorf("tools.providers: %q is listed twice", k.Name)
		}
		seen[k.Name] = true
		if on := t.enabledSetting(k.Name); on != nil && !*on {
			return fmt.Errorf("tools.providers lists %q, but [tools.%s] turns it off", k.Name, k.Name)
		}
	}
	if t.CLI.Disabled && t.CLI.Enabled != nil && *t.CLI.Enabled {
		return fmt.Errorf("tools.cli: enabled = true and disabled = true contradict each other")
	}
	return nil
}
