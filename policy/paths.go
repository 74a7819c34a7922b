package policy

import (
	"path/filepath"
	"slices"

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
// before anyone is asked about it. A nil r only cleans the spelling, for
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
			return nil, err
		}
		res, err := r.Resolve(s.Value)
		if err != nil {
			return nil, err
		}
		out = append(out, tool.Subject{Kind: tool.SubjectPath, Value: lit})
		if res != lit {
			out = append(out, tool.Subject{Kind: tool.SubjectPath, Value: res})
		}
	}
	return out, nil
}

// InWorkspace returns p with each absolute protected path that lies inside
// the workspace r serves also written as the workspace-relative path (as
// written and as resolved), the form [ResolveSubjects] gives subjects in.
// A configuration file named by an absolute path is protected that way. The
// toolkit calls it once, when its workspace is open; p is not changed.
func (p *Policy) InWorkspace(r Resolver) *Policy {
	q := *p
	q.protected = append([]protectedPath(nil), p.protected...)
	abs := p.protected
	if d, ok := r.(interface{ Dir() string }); ok {
		// A .git file points to the git directory git reads: protect it
		// where it lies in the workspace, whatever it is called.
		for _, g := range sandbox.GitDirs(d.Dir()) {
			abs = append(abs, protectedPath{pattern: filepath.ToSlash(g), literal: true})
		}
	}
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
