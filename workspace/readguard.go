package workspace

import (
	"errors"
	"io/fs"
	"path"
	"path/filepath"
	"strings"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/quiverkit/quiver/tool"
)

// A ReadGuard names the paths no tool may read: the paths the policy's
// deny rules refuse to read_file (deny = ["read_file(.env)"]). A read deny
// means every reader, so the workspace asks its guard on every read, not
// read_file alone. *policy.Policy is the ReadGuard the toolkit uses.
type ReadGuard interface {
	// DeniesRead reports whether the path rel (clean, workspace-relative
	// with slashes, or absolute) may not be read, and names the rule that
	// says so.
	DeniesRead(rel string) (rule string, denied bool)
	// ReadDenied returns the denied paths as the rules write them:
	// workspace-relative globs, or absolute paths. The workspace looks
	// there for the other names of a file with several hard links.
	ReadDenied() []string
}

// GuardReads returns a workspace serving the same root as w under which
// the paths g denies cannot be read by any tool:
//
//   - [Workspace.Open] (read_file, edit, apply_patch, the hash write_file
//     takes before it overwrites, grep's followed links) refuses a denied
//     path with TOOL_NOT_ALLOWED, whether it is named as written, through
//     a symbolic link, by an absolute path or by another hard link to the
//     same file;
//   - listings and searches ([Workspace.ReadDir], [Workspace.Walk], and
//     package search's walker, which asks [Workspace.ReadDeniedPath])
//     leave denied paths out, as if they were absent, and never descend
//     into a denied directory; naming a denied directory to list or search
//     it is refused ([Workspace.CheckRead]).
//
// Hiding a denied name, rather than showing it without content, is the
// stricter choice: a file name can itself be the secret (a customer's
// name on a key), and a search that answers "there is a file here you may
// not read" answers part of what the deny withholds. Processes see a
// denied file as an empty one (the sandbox's mask), so `ls` still shows
// its name there.
//
// Closing either workspace closes the root of both: close only the one
// that owns it.
func (w *Workspace) GuardReads(g ReadGuard) *Workspace {
	q := *w
	q.guard = g
	return &q
}

// ReadDeniedPath reports whether rel (clean, workspace-relative with
// slashes) is denied by name, without looking at the disk: what a walker
// asks of each path it lists, having resolved the directories it came
// through. It names the rule that denies it.
func (w *Workspace) ReadDeniedPath(rel string) (rule string, denied bool) {
	if w.guard == nil {
		return "", false
	}
	return w.guard.DeniesRead(rel)
}

// Guarded reports whether w refuses some reads: a walker that finds a
// file with several hard links needs to ask [Workspace.DeniedLink] only
// then.
func (w *Workspace) Guarded() bool { return w.guard != nil && len(w.guard.ReadDenied()) > 0 }

// CheckRead refuses, with TOOL_NOT_ALLOWED, a path p that the guard
// denies: as written (made relative to the workspace and cleaned, so
// ./.env, sub/../.env and the absolute spelling are one path), or as
// resolved once every symbolic link on the way is followed. A path that
// cannot be resolved is refused with the workspace's error.
func (w *Workspace) CheckRead(p string) error {
	if w.guard == nil {
		return nil
	}
	rel, err := w.Rel(p)
	if err != nil {
		return err
	}
	if err := w.deniedError(p, rel); err != nil {
		return err
	}
	res, err := w.Resolve(p)
	if err != nil {
		return err
	}
	return w.deniedError(p, res)
}

func (w *Workspace) deniedError(p, rel string) error {
	if rule, ok := w.guard.DeniesRead(rel); ok {
		return &tool.Error{Code: tool.CodeToolNotAllowed,
			Message: readDeniedMessage(p, rel, rule), Err: ErrReadDenied}
	}
	return nil
}

// ErrReadDenied is wrapped by the error of a read the guard refuses.
var ErrReadDenied = errors.New("read denied by policy")

func readDeniedMessage(p, rel, rule string) string {
	if p == rel {
		return "reading " + rel + " is denied by the policy rule " + rule
	}
	return "reading " + p + " (" + rel + ") is denied by the policy rule " + rule
}

// checkOpened refuses a file just opened as p when another of its names
// is denied: a hard link made before the deny (a rename cannot make one:
// CheckRead has seen the name). Only a regular file with more than one
// link is looked up, so the common read costs nothing more.
func (w *Workspace) checkOpened(p string, fi fs.FileInfo) error {
	if w.guard == nil || !fi.Mode().IsRegular() || links(fi) < 2 {
		return nil
	}
	if name, rule, ok := w.deniedLink(fi); ok {
		return &tool.Error{Code: tool.CodeToolNotAllowed,
			Message: "reading " + p + " is denied: it is a hard link to " + name + ", which the policy rule " + rule + " denies",
			Err:     ErrReadDenied}
	}
	return nil
}

// DeniedLink reports whether fi, a file with several hard links, is the
// file a denied path names (the paths of [ReadGuard.ReadDenied], globs
// expanded, denied directories searched), and which path and rule.
func (w *Workspace) DeniedLink(fi fs.FileInfo) (name, rule string, denied bool) {
	if w.guard == nil || !fi.Mode().IsRegular() || links(fi) < 2 {
		return "", "", false
	}
	return w.deniedLink(fi)
}

func (w *Workspace) deniedLink(fi fs.FileInfo) (name, rule string, denied bool) {
	for _, pat := range w.guard.ReadDenied() {
		for _, m := range w.expand(pat) {
			if n, ok := w.findSame(m, fi); ok {
				rule, _ := w.guard.DeniesRead(n)
				return n, rule, true
			}
		}
	}
	return "", "", false
}

// expand returns the workspace paths pat names now: itself when it holds
// no glob characters, else its matches.
func (w *Workspace) expand(pat string) []string {
	if filepath.IsAbs(pat) {
		rel, err := w.Rel(pat)
		if err != nil || filepath.IsAbs(rel) {
			return nil // outside the workspace: the sandbox's mask covers processes
		}
		pat = rel
	}
	if !strings.ContainsAny(pat, "*?[{\\") {
		return []string{pat}
	}
	matches, _ := doublestar.Glob(w.FS(), pat, doublestar.WithNoFollow())
	return matches
}

// findSame looks for fi at rel, or below rel when it is a directory.
func (w *Workspace) findSame(rel string, fi fs.FileInfo) (string, bool) {
	found := ""
	_ = fs.WalkDir(w.FS(), rel, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.Type()&fs.ModeType != 0 {
			return nil
		}
		if other, err := d.Info(); err == nil && sameFile(other, fi) {
			found = path.Clean(p)
			return fs.SkipAll
		}
		return nil
	})
	return found, found != ""
}
