package cli

import (
	"path"
	"strings"

	"github.com/quiverkit/quiver/workspace"
)

// ignoreFilter applies the workspace's ignore rules to a program's results:
// the rules the programs do not know (.quiverignore) or were told not to
// read (the directories above the one searched). It reads each directory's
// ignore files once, through the workspace, and mirrors the walker: the
// start directory itself is never filtered, and nothing below an ignored
// directory is kept.
type ignoreFilter struct {
	ws     *workspace.Workspace
	start  string
	stacks map[string]workspace.IgnoreStack // by directory
	pruned map[string]bool                  // by directory below start: it or a parent is ignored
}

func newIgnoreFilter(ws *workspace.Workspace, start string) *ignoreFilter {
	return &ignoreFilter{ws: ws, start: start, stacks: map[string]workspace.IgnoreStack{}, pruned: map[string]bool{}}
}

// keep reports whether a file the program found (relative to the workspace
// root) is one the walker would visit.
func (f *ignoreFilter) keep(rel string) bool {
	dir := path.Dir(rel)
	return !f.prunedDir(dir) && !f.stack(dir).Ignored(rel, false)
}

// prunedDir reports whether dir, below the start, is ignored or lies below
// an ignored directory.
func (f *ignoreFilter) prunedDir(dir string) bool {
	if !below(dir, f.start) {
		return false
	}
	if p, ok := f.pruned[dir]; ok {
		return p
	}
	parent := path.Dir(dir)
	p := f.prunedDir(parent) || f.stack(parent).Ignored(dir, true)
	f.pruned[dir] = p
	return p
}

// stack returns the ignore files in force for entries of dir.
func (f *ignoreFilter) stack(dir string) workspace.IgnoreStack {
	if s, ok := f.stacks[dir]; ok {
		return s
	}
	var s workspace.IgnoreStack
	if dir == "." {
		s = f.ws.AncestorIgnores(".")
	} else {
		parent := f.stack(path.Dir(dir))
		s = append(parent[:len(parent):len(parent)], f.ws.LoadIgnores(dir)...)
	}
	f.stacks[dir] = s
	return s
}

// below reports whether dir is strictly below start.
func below(dir, start string) bool {
	if dir == start || dir == "." {
		return false
	}
	return start == "." || strings.HasPrefix(dir, start+"/")
}

// cleanPath turns a path a program printed, relative to the workspace
// root, into the engine's form ("./x" becomes "x").
func cleanPath(p string) string {
	for strings.HasPrefix(p, "./") {
		p = p[2:]
	}
	return p
}
