package search

import (
	"context"
	"fmt"
	"io/fs"
	"path"
	"strings"
	"time"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/quiverkit/quiver/workspace"
)

// PathGlob is a compiled file pattern: doublestar syntax (`**` crosses
// directories, `*` and `?` do not, `[...]` classes, `{a,b}` alternatives).
// A pattern without a '/' matches a file's name at any depth; one with a
// '/' matches its path relative to the directory searched.
type PathGlob struct {
	pattern string
	byName  bool
	suffix  string // a literal suffix every match ends with, checked first
}

// CompileGlob checks and compiles a pattern.
func CompileGlob(pattern string) (*PathGlob, error) {
	if pattern == "" {
		return nil, &PatternError{Pattern: pattern, Msg: "glob pattern is empty"}
	}
	if !doublestar.ValidatePattern(pattern) {
		return nil, &PatternError{Pattern: pattern, Msg: fmt.Sprintf("invalid glob pattern %q: check its brackets, braces and escapes", pattern)}
	}
	g := &PathGlob{pattern: pattern, byName: !strings.Contains(pattern, "/")}
	if i := strings.LastIndexAny(pattern, `*?[]{}\/`); i >= 0 && pattern[i] == '*' {
		g.suffix = pattern[i+1:]
	}
	return g, nil
}

// String returns the pattern.
func (g *PathGlob) String() string { return g.pattern }

// ByName reports whether the pattern matches names rather than paths.
func (g *PathGlob) ByName() bool { return g.byName }

// Match reports whether a file matches, given its path relative to the
// directory searched and its name.
func (g *PathGlob) Match(rel, name string) bool {
	if g.suffix != "" && !strings.HasSuffix(name, g.suffix) {
		return false
	}
	if g.byName {
		ok, _ := doublestar.Match(g.pattern, name)
		return ok
	}
	ok, _ := doublestar.Match(g.pattern, rel)
	return ok
}

// AsksForHidden reports whether a pattern names hidden files or
// directories itself (a part that starts with '.', such as ".env" or
// ".github/**"): hidden entries are searched only when asked for this way.
func AsksForHidden(pattern string) bool {
	for _, part := range strings.Split(pattern, "/") {
		part = strings.TrimLeft(part, "{")
		if strings.HasPrefix(part, ".") && part != "." && part != ".." {
			return true
		}
	}
	return strings.Contains(pattern, ",.") // {a,.b}
}

// SplitGlob splits a pattern into its leading directories without
// wildcards and the rest: "src/pkg/**/*.go" gives "src/pkg" and "**/*.go".
// A walk can start at the directory and match the rest below it.
func SplitGlob(pattern string) (dir, rest string) {
	parts := strings.Split(pattern, "/")
	n := 0
	for n < len(parts)-1 && parts[n] != "" && !strings.ContainsAny(parts[n], `*?[]{}\`) && parts[n] != "." && parts[n] != ".." {
		n++
	}
	return strings.Join(parts[:n], "/"), strings.Join(parts[n:], "/")
}

// GlobRequest is one glob over a workspace.
type GlobRequest struct {
	Base    string // directory the pattern is relative to, relative to the workspace root
	Pattern string
	Walk    WalkOptions
}

// PlanGlob decides where a glob walk starts: at base joined with the
// pattern's leading directories without wildcards, matching the rest of
// the pattern against paths relative to that start. ok is false when that
// directory does not exist, so nothing can match.
//
// A pattern without a '/' matches names at any depth below base, as
// find -name and fd -g do ("*.tsx" finds every .tsx file); one with a '/'
// (a leading "./" included) is anchored at base.
func PlanGlob(ws *workspace.Workspace, base, pattern string) (start string, rest *PathGlob, ok bool, err error) {
	anchored := strings.Contains(pattern, "/")
	for strings.HasPrefix(pattern, "./") {
		pattern = pattern[2:]
	}
	prefix, tail := SplitGlob(pattern)
	start = path.Join(base, prefix)
	if rest, err = CompileGlob(tail); err != nil {
		return "", nil, false, err
	}
	rest.byName = !anchored
	if prefix != "" {
		if fi, err := ws.Stat(start); err != nil || !fi.IsDir() {
			return start, rest, false, nil
		}
	}
	return start, rest, true, nil
}

// Glob lists the regular files and symlinks below req.Base that match
// req.Pattern into c, with their modification times (a symlink's own).
// Directories are not listed.
func Glob(ctx context.Context, ws *workspace.Workspace, req GlobRequest, c *GlobCollector) (WalkStats, error) {
	start, g, ok, err := PlanGlob(ws, req.Base, req.Pattern)
	if err != nil || !ok {
		return WalkStats{}, err
	}
	newVisit := func() VisitFunc {
		return func(e *Entry) error {
			if !e.IsRegular() && e.Type&fs.ModeSymlink == 0 {
				return nil
			}
			if !g.Match(relTo(start, e.Rel), e.Name) {
				return nil
			}
			mt, err := e.modTime(ws)
			if err != nil {
				return err
			}
			c.Add(FileTime{Path: e.Rel, ModTime: mt})
			return nil
		}
	}
	return Walk(ctx, ws, start, req.Walk, newVisit)
}

// modTime returns e's modification time, a symlink's own.
func (e *Entry) modTime(ws *workspace.Workspace) (time.Time, error) {
	if e.dir != nil && !e.followed {
		return e.dir.sys.modTime(e.Name)
	}
	fi, err := ws.Lstat(e.Rel)
	if err != nil {
		return time.Time{}, err
	}
	return fi.ModTime(), nil
}
