package policy

import (
	"context"
	"strings"

	"github.com/quiverkit/quiver/sandbox"
	"github.com/quiverkit/quiver/tool"
)

// CommandGate returns the gate exec_command consults for one call, at the
// moment each command runs. How strict it is depends on how the call was let
// through:
//
//   - allowed by specifier rules (exec_command(git status)): every command
//     that actually runs must itself match an allow rule, so eval, $(...),
//     functions and variables cannot run anything the rules did not name;
//   - allowed otherwise (a bare rule, the tools map, the default) or approved
//     by a person who saw the line: deny rules still bind every command, and
//     ask rules refuse commands nobody was asked about;
//   - in the read-only scope, and for a call allowed only because it was
//     rated low-risk, every command must be read-only as it actually runs
//     (classify: after expansion, with the program as resolved, so a PATH
//     that leads into the workspace is caught) and nothing may be opened
//     for writing in the read-only scope.
//
// A file a command opens for writing (a redirection) is resolved through r
// as a file tool's path is ([ResolveSubjects]): the path deny rules of the
// tools that write the paths they name ([tool.Tool.WritesSubjectPaths])
// bind it — deny = ["write_file(.env)"] stops `echo x > .env` too — and a
// protected path is refused whoever approved the line, as the sandbox
// refuses it to every process the line starts: a person approving a
// command line is not approving a write of .git/config hidden in it, and
// --yes or a remembered "always allow" approve without anyone reading. catalog lists the tools whose rules those are: every provider's,
// shadowed ones included, so that a tool of the same name served instead
// (a workspace's script called write_file) cannot unbind them. It is called
// only when a command writes, and an error from it refuses the write. Nil
// means no tool writes the paths it names.
//
// classify reports whether a command is plainly read-only; nil refuses every
// command the allow rules do not name in the read-only scope.
func (p *Policy) CommandGate(r Resolver, toolName string, v Verdict, approved bool, classify tool.CommandClassifier,
	catalog func(context.Context) ([]*tool.Tool, error)) tool.CommandGate {
	return &commandGate{p: p, r: r, tool: toolName, strict: v.Decision == Allow && v.BySpecifier, approved: approved,
		readOnly: p.scope == sandbox.ReadOnly || v.ByLowRisk && !approved, classify: classify, catalog: catalog}
}

type commandGate struct {
	p        *Policy
	r        Resolver
	tool     string
	strict   bool
	approved bool
	readOnly bool // every command must be read-only (classify)
	classify tool.CommandClassifier
	catalog  func(context.Context) ([]*tool.Tool, error)
}

func (g *commandGate) CheckCommand(_ context.Context, argv []string) error {
	c := SimpleCommand{Words: argv, Literal: true}
	for _, r := range g.p.deny {
		if r.matchesTool(g.tool) && (r.Spec == "" || r.matchesRestrictive(c)) {
			return g.refuse(c, "deny: "+r.String())
		}
	}
	if !g.approved {
		for _, r := range g.p.ask {
			if r.matchesTool(g.tool) && r.Spec != "" && r.matchesRestrictive(c) {
				return g.refuse(c, "ask: "+r.String()+" (run it as a call of its own to be asked)")
			}
		}
	}
	allowed := false
	for _, r := range g.p.allow {
		if r.matchesTool(g.tool) && r.Spec != "" && r.matchesCommand(c) {
			allowed = true
			break
		}
	}
	if g.strict && !allowed {
		return g.refuse(c, "no allow rule names it")
	}
	if g.readOnly && !allowed && !g.readOnlyCommand(argv) {
		why := "the call ran without approval as a read-only one, and this command is not read-only"
		if g.p.scope == sandbox.ReadOnly {
			why = "write scope read-only: only read-only commands run"
		}
		return g.refuse(c, why)
	}
	return nil
}

// readOnlyCommand is the classifier's judgement of argv; no classifier,
// no read-only command.
func (g *commandGate) readOnlyCommand(argv []string) bool {
	if g.classify == nil {
		return false
	}
	ok, _ := g.classify(argv)
	return ok
}

func (g *commandGate) CheckWrite(ctx context.Context, p string) error {
	if g.p.scope == sandbox.ReadOnly {
		return tool.Errorf(tool.CodeToolNotAllowed, "writing %s refused: the write scope is read-only", p)
	}
	subjects, err := ResolveSubjects(g.r, []tool.Subject{{Kind: tool.SubjectPath, Value: p}})
	if err != nil {
		return err
	}
	writers, err := g.writers(ctx)
	if err != nil {
		return tool.Errorf(tool.CodeToolNotAllowed, "writing %s refused: the tools whose rules bind it are unknown: %w", p, err)
	}
	for _, r := range g.p.deny {
		for _, w := range writers {
			if r.matchesTool(w) && r.Spec != "" && r.matchesAny(subjects, nil) {
				return tool.Errorf(tool.CodeToolNotAllowed, "writing %s refused by policy rule deny: %s", p, r)
			}
		}
	}
	for _, s := range subjects {
		if e, ok := g.p.protects(s.Value); ok {
			return tool.Errorf(tool.CodeToolNotAllowed,
				"writing %s refused: %s is a protected path, which no command may write, whoever approved it (the sandbox refuses it to every process too); use a file tool, which asks", p, e).
				WithDetail("rule", "protected path "+e)
		}
	}
	return nil
}

// writers names the tools of the catalogue that write the paths they name.
func (g *commandGate) writers(ctx context.Context) ([]string, error) {
	if g.catalog == nil {
		return nil, nil
	}
	tools, err := g.catalog(ctx)
	if err != nil {
		return nil, err
	}
	var names []string
	for _, t := range tools {
		if t.WritesSubjectPaths {
			names = append(names, t.Name)
		}
	}
	return names, nil
}

func (g *commandGate) refuse(c SimpleCommand, why string) error {
	return tool.Errorf(tool.CodeToolNotAllowed, "command %q refused by policy: %s", strings.Join(c.Words, " "), why).
		WithDetail("rule", why)
}
