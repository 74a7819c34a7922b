package policy

import (
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/quiverkit/quiver/sandbox"
	"github.com/quiverkit/quiver/tool"
)

// A Resolver says which file a path names. Rel is the path as written,
// made relative to the workspace and cleaned; Resolve is the file a tool
// will open once symbolic links are followed. *workspace.Workspace is the
// Resolver the toolkit uses.
type Resolver interface {
	Rel(p string) (string, error)
	Resolve(p string) (string, error)
}

// ResolveSubjects returns subjects with each path subject replaced by its
// spelling relative to the workspace, followed by the path it resolves to
// when that differs (src/envlink, then .env). Deny and ask rules and
// protected paths then match either spelling, and allow rules must match
// both, so a symbolic link can neither dodge a deny nor stretch an allow.
// A path that cannot be resolved (one that leads out of the workspace, or
// through a loop of links) refuses the call with the workspace's error,
// before anyone is asked about it, naming the subject's Field as a
// refusal of that argument. A nil r only cleans the spelling, for
// hosts that decide without a workspace.
func ResolveSubjects(r Resolver, subjects []tool.Subject) ([]tool.Subject, error) {
	out := make([]tool.Subject, 0, len(subjects)+1)
	for _, s := range subjects {
		if s.Kind != tool.SubjectPath {
			out = append(out, s)
			continue
		}
		if r == nil {
			out = append(out, tool.Subject{Kind: tool.SubjectPath, Value: cleanSubjectPath(s.Value)})
			continue
		}
		lit, err := r.Rel(s.Value)
		if err != nil {
			return nil, subjectError(s, err)
		}
		res, err := r.Resolve(s.Value)
		if err != nil {
			return nil, subjectError(s, err)
		}
		out = append(out, tool.Subject{Kind: tool.SubjectPath, Value: lit, Field: s.Field})
		if res != lit {
			out = append(out, tool.Subject{Kind: tool.SubjectPath, Value: res, Field: s.Field})
		}
	}
	return out, nil
}

// subjectError is err, the refusal of path subject s, naming the argument s
// came from when it was the path's fault (a spelling, a way out of the
// workspace): a backend's own failure (no connection, a rate limit) is no
// fault of the argument, and is returned as it is.
func subjectError(s tool.Subject, err error) error {
	switch tool.CodeOf(err) {
	case tool.CodeSandboxViolation, tool.CodeInvalidArguments:
		if s.Field != "" {
			return tool.FieldError(s.Field, err)
		}
	}
	return err
}

// InWorkspace returns p bound to the workspace r serves, matching paths
// in the form [ResolveSubjects] gives subjects in:
//
//   - each absolute protected path that lies inside the workspace is also
//     written as the workspace-relative path (as written and as
//     resolved): a configuration file named by an absolute path is
//     protected that way;
//   - each path specifier of a rule is also matched in its other
//     spellings (see [pathSpellings]): an absolute path inside the
//     workspace means the same as its relative form, so that
//     deny = ["read_file(/home/me/ws/.env)"] refuses .env to every reader
//     as deny = ["read_file(.env)"] does, and ~ is the home directory.
//
// The toolkit calls it once, when its workspace is open; p is not changed.
func (p *Policy) InWorkspace(r Resolver) *Policy {
	q := *p
	q.protected = append([]protectedPath(nil), p.protected...)
	abs := p.protected
	dir := ""
	if d, ok := r.(interface{ Dir() string }); ok {
		dir = d.Dir()
		// A .git file points to the git directory git reads: protect it
		// where it lies in the workspace, whatever it is called.
		for _, g := range sandbox.GitDirs(dir) {
			abs = append(abs, protectedPath{pattern: filepath.ToSlash(g), literal: true})
		}
	}
	q.allow, q.ask, q.deny = bindRules(p.allow, dir), bindRules(p.ask, dir), bindRules(p.deny, dir)
	for _, e := range abs {
		if !e.literal || !filepath.IsAbs(filepath.FromSlash(e.pattern)) {
			continue
		}
		names := []string{filepath.FromSlash(e.pattern)}
		if real, err := filepath.EvalSymlinks(names[0]); err == nil {
			names = append(names, real)
		}
		for _, n := range names {
			for _, f := range []func(string) (string, error){r.Rel, r.Resolve} {
				rel, err := f(n)
				e := protectedPath{pattern: rel, literal: true}
				if err == nil && !filepath.IsAbs(rel) && !slices.Contains(q.protected, e) {
					q.protected = append(q.protected, e)
				}
			}
		}
	}
	return &q
}

// bindRules returns rules with the spellings of each path specifier for
// the workspace dir ("" for none known).
func bindRules(rules []Rule, dir string) []Rule {
	out := slices.Clone(rules)
	for i, r := range out {
		if r.Spec != "" && !strings.HasPrefix(r.Spec, "domain:") {
			out[i].paths = pathSpellings(r.Spec, dir)
		}
	}
	return out
}

// pathSpellings returns the globs a path specifier names files by in the
// workspace dir, the form subjects take last: the specifier as written
// (cleaned); with a leading ~ made the home directory, as the sandbox's
// paths have it; and an absolute one relative to dir when it names paths
// inside the workspace — lexically, or once the symbolic links of its
// leading literal directories are resolved (a workspace reached through a
// link, /tmp on macOS) — or else with those links resolved, as an outside
// path a tool resolves is matched. Glob characters before the workspace's
// directory are matched against absolute paths only.
func pathSpellings(spec, dir string) []string {
	s := cleanSubjectPath(spec)
	out := []string{s}
	if s == "~" || strings.HasPrefix(s, "~/") {
		home, err := os.UserHomeDir()
		if err != nil {
			return out
		}
		s = path.Join(filepath.ToSlash(home), s[1:])
		out = append(out, s)
	}
	if !filepath.IsAbs(filepath.FromSlash(s)) {
		return out
	}
	if rel, ok := within(dir, s); ok {
		return append(out, rel)
	}
	real := resolveLiteral(s)
	if rel, ok := within(dir, real); ok {
		return append(out, rel)
	}
	if real != s {
		out = append(out, real)
	}
	return out
}

// within returns the absolute slash path (or glob) s relative to the
// directory dir, when it lies inside it.
func within(dir, s string) (string, bool) {
	if dir == "" {
		return "", false
	}
	d := strings.TrimSuffix(filepath.ToSlash(dir), "/")
	if s == d {
		return ".", true
	}
	rel, ok := strings.CutPrefix(s, d+"/")
	return rel, ok
}

// resolveLiteral returns the absolute slash glob s with the symbolic links
// of its longest existing prefix of literal directories resolved. Its last
// component, the file it names, is left as written, as a relative rule's
// is: a rule naming a link names the link.
func resolveLiteral(s string) string {
	comps := strings.Split(s, "/")
	lit := len(comps) - 1
	for i, c := range comps[:lit] {
		if strings.ContainsAny(c, "*?[{\\") {
			lit = i
			break
		}
	}
	for i := lit; i > 1; i-- {
		real, err := filepath.EvalSymlinks(filepath.FromSlash(strings.Join(comps[:i], "/")))
		if err == nil {
			return path.Join(append([]string{filepath.ToSlash(real)}, comps[i:]...)...)
		}
	}
	return s
}
