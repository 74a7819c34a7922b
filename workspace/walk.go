package workspace

import (
	"errors"
	"io/fs"
	"path"
	"strings"
)

// SkipDir, returned by a [WalkFunc] for a directory, skips that directory.
var SkipDir = fs.SkipDir

// SkipAll, returned by a [WalkFunc], ends the walk without error.
var SkipAll = fs.SkipAll

// WalkOptions choose what [Workspace.Walk] visits.
type WalkOptions struct {
	Hidden   bool // visit names starting with "."; .git is never visited
	NoIgnore bool // do not honour ignore files
	MaxDepth int  // 0: unlimited; 1: only the entries of the start directory
}

// WalkFunc is called for every entry below the start directory, in lexical
// order, with its path relative to the workspace root. Symlinks are reported,
// never followed.
type WalkFunc func(rel string, d fs.DirEntry) error

// Walk visits the tree below dir (relative or absolute inside the root),
// honouring the ignore files of dir, of its ancestors up to the root, and of
// every directory below it, plus .git/info/exclude. Paths the read guard
// denies are left out, and a denied dir is refused.
func (w *Workspace) Walk(dir string, opts WalkOptions, fn WalkFunc) error {
	if err := w.CheckRead(dir); err != nil {
		return err
	}
	rel, err := w.Rel(dir)
	if err != nil {
		return err
	}
	if fi, err := w.Stat(rel); err != nil {
		return err
	} else if !fi.IsDir() {
		return classify("walk", dir, errNotDir)
	}
	var stack IgnoreStack
	if !opts.NoIgnore {
		stack = w.AncestorIgnores(rel)
	}
	err = w.walkDir(rel, 1, opts, stack, fn)
	if errors.Is(err, SkipAll) {
		return nil
	}
	return err
}

var errNotDir = errors.New("not a directory")

// AncestorIgnores returns the ignore stack in force in dir: .git/info/exclude
// and the ignore files of the root and every directory down to dir, dir's own
// included.
func (w *Workspace) AncestorIgnores(dir string) IgnoreStack {
	var stack IgnoreStack
	if data, err := w.readFileRaw(".git/info/exclude"); err == nil {
		stack = append(stack, ParseIgnore("", data))
	}
	stack = append(stack, w.LoadIgnores(".")...)
	if dir == "." || dir == "" {
		return stack
	}
	parts := strings.Split(dir, "/")
	for i := range parts {
		stack = append(stack, w.LoadIgnores(strings.Join(parts[:i+1], "/"))...)
	}
	return stack
}

// LoadIgnores reads the ignore files of one directory. Missing or unreadable
// files are skipped: an ignore file can only hide entries, never cause an error.
func (w *Workspace) LoadIgnores(dir string) []*Ignore {
	var out []*Ignore
	for _, name := range IgnoreFiles {
		data, err := w.readFileRaw(path.Join(dir, name))
		if err != nil || len(data) == 0 {
			continue
		}
		if ig := ParseIgnore(dir, data); ig.Len() > 0 {
			out = append(out, ig)
		}
	}
	return out
}

func (w *Workspace) walkDir(dir string, depth int, opts WalkOptions, stack IgnoreStack, fn WalkFunc) error {
	entries, err := w.readDirRaw(dir)
	if err != nil {
		return classify("read directory", dir, err)
	}
	for _, e := range entries {
		name := e.Name()
		if name == ".git" || (!opts.Hidden && strings.HasPrefix(name, ".")) {
			continue
		}
		rel := name
		if dir != "." {
			rel = dir + "/" + name
		}
		if !opts.NoIgnore && stack.Ignored(rel, e.IsDir()) {
			continue
		}
		if _, denied := w.ReadDeniedPath(rel); denied {
			continue
		}
		err := fn(rel, e)
		if e.IsDir() && errors.Is(err, SkipDir) {
			continue
		}
		if err != nil {
			return err
		}
		if e.IsDir() && (opts.MaxDepth == 0 || depth < opts.MaxDepth) {
			sub := stack
			if !opts.NoIgnore {
				if more := w.LoadIgnores(rel); len(more) > 0 {
					sub = append(stack[:len(stack):len(stack)], more...)
				}
			}
			if err := w.walkDir(rel, depth+1, opts, sub, fn); err != nil {
				return err
			}
		}
	}
	return nil
}
