package search

import (
	"errors"
	"io"
	"io/fs"
	"path"
	"strings"
	"syscall"
	"time"

	"github.com/quiverkit/quiver/workspace"
)

// Filter answers, for paths another program found below a start
// directory, what the walker would have decided: whether it visits them
// (the ignore rules of every directory from the workspace root down,
// .quiverignore included, and nothing below an ignored directory; the
// start itself is never filtered) and their modification times. It opens
// each directory once, relative to its parent, as the walker does, so a
// thousand results in a hundred directories cost a few hundred system
// calls. A Filter is for one goroutine; Close releases its directories.
type Filter struct {
	ws     *workspace.Workspace
	start  string
	dirs   map[string]*dirHandle // open directories at or below start
	stacks map[string]workspace.IgnoreStack
	pruned map[string]bool
	failed map[string]bool // directories that could not be opened
}

// NewFilter returns a filter for results below start (a directory,
// relative to the workspace root).
func NewFilter(ws *workspace.Workspace, start string) *Filter {
	return &Filter{ws: ws, start: start, dirs: map[string]*dirHandle{}, stacks: map[string]workspace.IgnoreStack{},
		pruned: map[string]bool{}, failed: map[string]bool{}}
}

// Close releases the directories the filter opened.
func (f *Filter) Close() {
	for _, d := range f.dirs {
		d.release()
	}
	f.dirs = nil
}

// Keep reports whether the walker would visit the file rel (relative to
// the workspace root, below the start). A path that is not clean and
// relative, or not below the start, is not one the walker could visit.
func (f *Filter) Keep(rel string) bool {
	if !strictlyBelow(rel, f.start) || path.Clean(rel) != rel || path.IsAbs(rel) || rel == ".." || strings.HasPrefix(rel, "../") {
		return false
	}
	dir := path.Dir(rel)
	return !f.prunedDir(dir) && !f.stack(dir).Ignored(rel, false) && !f.readDenied(rel)
}

// readDenied reports whether the walker would leave rel out because the
// read guard denies it by name, its directories' symbolic links resolved. The program that found it
// may read what the guard denies (rg and fd run under a profile of their
// own), so its results are held to the guard here.
func (f *Filter) readDenied(rel string) bool {
	if !f.ws.Guarded() {
		return false
	}
	real, err := f.ws.Resolve(path.Dir(rel))
	if err != nil {
		return true
	}
	_, denied := f.ws.ReadDeniedPath(path.Join(real, path.Base(rel)))
	return denied
}

// KeepContent is [Filter.Keep] for a file whose content the program
// read (rg's matches): it also refuses a hard link to a file the read
// guard denies, as the walker's grep does when it opens one. A listing
// (fd's) shows such a link by its own name, as the walker's glob does.
func (f *Filter) KeepContent(rel string) bool {
	if !f.Keep(rel) {
		return false
	}
	if !f.ws.Guarded() {
		return true
	}
	fi, err := f.ws.Lstat(rel)
	if err != nil {
		return false
	}
	_, _, denied := f.ws.DeniedLink(fi)
	return !denied
}

// ModTime returns rel's modification time, a symlink's own. rel must be a
// path Keep accepted.
func (f *Filter) ModTime(rel string) (time.Time, error) {
	if d := f.dir(path.Dir(rel)); d != nil {
		return d.sys.modTime(path.Base(rel))
	}
	fi, err := f.ws.Lstat(rel)
	if err != nil {
		return time.Time{}, err
	}
	return fi.ModTime(), nil
}

// prunedDir reports whether dir, below the start, is ignored or lies below
// an ignored directory.
func (f *Filter) prunedDir(dir string) bool {
	if !strictlyBelow(dir, f.start) {
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

// stack returns the ignore rules in force for the entries of dir.
func (f *Filter) stack(dir string) workspace.IgnoreStack {
	if s, ok := f.stacks[dir]; ok {
		return s
	}
	var s workspace.IgnoreStack
	if !strictlyBelow(dir, f.start) {
		s = f.ws.AncestorIgnores(dir)
	} else {
		parent := f.stack(path.Dir(dir))
		s = append(parent[:len(parent):len(parent)], f.loadIgnores(dir)...)
	}
	f.stacks[dir] = s
	return s
}

// loadIgnores reads dir's ignore files through its descriptor. A name that
// is a symlink is read the walker's way, through the workspace.
func (f *Filter) loadIgnores(dir string) []*workspace.Ignore {
	d := f.dir(dir)
	if d == nil {
		return f.ws.LoadIgnores(dir)
	}
	var out []*workspace.Ignore
	for _, name := range workspace.IgnoreFiles {
		file, err := d.sys.openFile(name)
		if errors.Is(err, syscall.ELOOP) || errors.Is(err, errNotRegular) {
			return f.ws.LoadIgnores(dir)
		}
		if err != nil {
			continue
		}
		data, err := io.ReadAll(io.LimitReader(file, 1<<20))
		file.Close()
		if err != nil || len(data) == 0 {
			continue
		}
		if ig := workspace.ParseIgnore(dir, data); ig.Len() > 0 {
			out = append(out, ig)
		}
	}
	return out
}

// dir returns the open directory rel (at or below start), or nil when it
// cannot be opened without following a symlink.
func (f *Filter) dir(rel string) *dirHandle {
	if d, ok := f.dirs[rel]; ok {
		return d
	}
	if f.failed[rel] || rel != f.start && !strictlyBelow(rel, f.start) {
		return nil
	}
	var d *dirHandle
	var err error
	if rel == f.start {
		d, err = openStart(f.ws, rel)
	} else if parent := f.dir(path.Dir(rel)); parent != nil {
		d, err = parent.openDir(path.Base(rel), rel, false)
	} else {
		err = fs.ErrNotExist
	}
	if err != nil {
		f.failed[rel] = true
		return nil
	}
	f.dirs[rel] = d
	return d
}

// strictlyBelow reports whether dir is below start and not start itself.
func strictlyBelow(dir, start string) bool {
	if dir == start || dir == "." {
		return false
	}
	return start == "." || strings.HasPrefix(dir, start+"/")
}
