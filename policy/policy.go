package policy

import (
	"fmt"
	"path"
	"path/filepath"
	"strings"

	"github.com/quiverkit/quiver/sandbox"
	"github.com/quiverkit/quiver/tool"
)

// Decision is what the policy says about a call.
type Decision string

// The decisions.
const (
	Allow Decision = "allow"
	Ask   Decision = "ask"
	Deny  Decision = "deny"
)

// ParseDecision parses "allow", "ask" or "deny".
func ParseDecision(s string) (Decision, error) {
	switch d := Decision(s); d {
	case Allow, Ask, Deny:
		return d, nil
	}
	return "", fmt.Errorf("decision %q: want allow, ask or deny", s)
}

// Config is the [policy] section of quiver.toml.
type Config struct {
	Default Decision            `toml:"default"` // "" means ask
	Allow   []string            `toml:"allow"`
	Ask     []string            `toml:"ask"`
	Deny    []string            `toml:"deny"`
	Tools   map[string]Decision `toml:"tools"`
	// Protected lists further paths that writing always asks about:
	// workspace-relative globs ("secrets/**", "Makefile"), or absolute paths.
	Protected []string `toml:"protected"`
	// ConfigFiles are the configuration files in use (quiver.toml, the file
	// named by --config); they are protected too. Absolute or relative to the
	// workspace, matched as paths, not globs.
	ConfigFiles []string `toml:"-"`
}

// Policy is a compiled [Config] plus a [sandbox.WriteScope]. It is
// immutable and safe for concurrent use.
type Policy struct {
	def              Decision
	allow, ask, deny []Rule
	tools            map[string]Decision
	scope            sandbox.WriteScope
	protected        []protectedPath
	network          sandbox.Network // the hosts calls may send data to unasked (egress.go)
}

// New compiles cfg. An invalid rule or decision is an error naming it.
func New(cfg Config, scope sandbox.WriteScope) (*Policy, error) {
	p := &Policy{def: cfg.Default, tools: map[string]Decision{}, scope: scope}
	if p.def == "" {
		p.def = Ask
	}
	if _, err := ParseDecision(string(p.def)); err != nil {
		return nil, fmt.Errorf("policy default: %w", err)
	}
	if p.scope == "" {
		p.scope = sandbox.WorkspaceWrite
	}
	if _, err := sandbox.ParseWriteScope(string(p.scope)); err != nil {
		return nil, err
	}
	for _, list := range []struct {
		name string
		src  []string
		dst  *[]Rule
	}{{"allow", cfg.Allow, &p.allow}, {"ask", cfg.Ask, &p.ask}, {"deny", cfg.Deny, &p.deny}} {
		for i, s := range list.src {
			r, err := ParseRule(s)
			if err != nil {
				return nil, fmt.Errorf("policy %s[%d]: %w", list.name, i, err)
			}
			*list.dst = append(*list.dst, r)
		}
	}
	for name, d := range cfg.Tools {
		if _, err := ParseDecision(string(d)); err != nil {
			return nil, fmt.Errorf("policy tools.%s: %w", name, err)
		}
		p.tools[name] = d
	}
	var err error
	if p.protected, err = compileProtected(cfg.ConfigFiles, cfg.Protected); err != nil {
		return nil, err
	}
	return p, nil
}

// AllowAll is a policy that allows every call within the workspace-write
// scope; for tests and trusted hosts.
func AllowAll() *Policy {
	p, _ := New(Config{Default: Allow}, sandbox.WorkspaceWrite)
	return p
}

// WriteScope returns the policy's write scope.
func (p *Policy) WriteScope() sandbox.WriteScope { return p.scope }

// Verdict is a decision and what made it.
type Verdict struct {
	Decision Decision
	Rule     string // the rule that decided, e.g. `deny: exec_command(rm *)`, or "default"
	// BySpecifier is set when allow rules with specifiers let the call
	// through; commands run under it are held to those rules one by one.
	BySpecifier bool
	// ByLowRisk is set when the call was allowed only because the tool rated
	// it low-risk (exec_command: the read-only classifier); commands run
	// under it must each be read-only too, as they actually run.
	ByLowRisk bool
	// ByDefault is set when no rule named the call and no other reason
	// (a protected path, a host) made the decision: the policy's default
	// did. An operator may let a hook's allow pass such an ask (package
	// hooks), never one a rule wrote.
	ByDefault bool
	// Protected is the protected path that made a writing call ask: no allow
	// rule would pass such a call, so none is suggested.
	Protected string
	// Hosts are the hosts the call sends data to that [sandbox] network
	// does not list, when that is why it was asked about (egress.go): a
	// person who approves the call approves sending to them.
	Hosts []string
}

// allowedBy reports whether the allow list covers the call: a bare rule for
// the tool, or specifier rules that together cover every subject (every
// simple command of every command line).
func (p *Policy) allowedBy(name string, subjects []tool.Subject, cmds []parsedCommand) (rule string, bySpec, ok bool) {
	var specRules []Rule
	for _, r := range p.allow {
		if !r.matchesTool(name) {
			continue
		}
		if r.Spec == "" {
			return r.String(), false, true
		}
		specRules = append(specRules, r)
	}
	if len(specRules) == 0 || len(subjects) == 0 {
		return "", false, false
	}
	var used []string
	covers := func(match func(Rule) bool) bool {
		for _, r := range specRules {
			if match(r) {
				used = appendUnique(used, r.String())
				return true
			}
		}
		return false
	}
	for _, s := range subjects {
		if s.Kind == tool.SubjectCommand {
			continue
		}
		if !covers(func(r Rule) bool { return r.matchesSubject(s) }) {
			return "", false, false
		}
	}
	for _, c := range cmds {
		if c.err != nil || !c.Literal {
			return "", false, false
		}
		if !covers(func(r Rule) bool { return r.matchesCommand(c.SimpleCommand) }) {
			return "", false, false
		}
	}
	if len(used) == 0 {
		return "", false, false
	}
	return strings.Join(used, ", "), true, true
}

func appendUnique(list []string, s string) []string {
	for _, e := range list {
		if e == s {
			return list
		}
	}
	return append(list, s)
}

// parsedCommand is a simple command, or the parse error of its line.
type parsedCommand struct {
	SimpleCommand
	err error
}

func commandsOf(subjects []tool.Subject) []parsedCommand {
	var out []parsedCommand
	for _, s := range subjects {
		if s.Kind != tool.SubjectCommand {
			continue
		}
		cmds, err := SimpleCommands(s.Value)
		if err != nil {
			out = append(out, parsedCommand{err: err})
			continue
		}
		for _, c := range cmds {
			out = append(out, parsedCommand{SimpleCommand: c})
		}
	}
	return out
}

// cleanSubjectPath normalises a path subject for matching. A backslash is a
// separator only where the system says so: on Linux `src\x` is a file named
// so in the root, and reading it as src/x would let src/** allow it.
func cleanSubjectPath(p string) string {
	p = path.Clean(filepath.ToSlash(p))
	return strings.TrimPrefix(p, "./")
}

// UnmarshalText lets configuration decoders reject a bad decision where it
// is written.
func (d *Decision) UnmarshalText(b []byte) error {
	v, err := ParseDecision(string(b))
	if err != nil {
		return err
	}
	*d = v
	return nil
}
