package search

import (
	"context"
	"errors"
	"io/fs"
	"path"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/quiverkit/quiver/tool"
	"github.com/quiverkit/quiver/workspace"
)

// WalkOptions choose what [Walk] visits.
type WalkOptions struct {
	Hidden         bool // visit names that start with "."; .git is never visited
	NoIgnore       bool // do not honour ignore files
	FollowSymlinks bool // follow symlinks that stay inside the workspace
	Threads        int  // workers; 0 means one per core
}

// Entry is one non-directory entry the walker found.
type Entry struct {
	Rel  string      // path relative to the workspace root
	Name string      // base name
	Type fs.FileMode // type bits only: 0 for a regular file, fs.ModeSymlink, ...

	dir      *dirHandle // the directory it is in; nil for a start path or a followed link
	followed bool       // reached through a followed symlink: open it by Rel through the workspace
	real     string     // Rel with the directories' symbolic links resolved: what the read guard is asked
}

// IsRegular reports whether the entry is a regular file.
func (e *Entry) IsRegular() bool { return e.Type&fs.ModeType == 0 }

// VisitFunc is called for every regular file, symlink and other
// non-directory entry. A worker calls its own VisitFunc only, so a VisitFunc
// may keep per-worker state (a read buffer) without locking. Returning
// [fs.SkipAll] ends the walk; any other error is counted in
// [WalkStats].Unreadable and the walk goes on.
type VisitFunc func(e *Entry) error

// WalkStats counts what a walk saw.
type WalkStats struct {
	Dirs       int64 // directories read
	Entries    int64 // non-directory entries visited
	Unreadable int64 // directories or files that could not be opened or read, and links that could not be followed
	Budget     bool  // a backend's bound on its work ended the walk early (workspace.ErrBudget)
}

// batchSize is how many files of one directory a worker visits before the
// rest are queued for other workers, so a directory of 100,000 files uses
// every core.
const batchSize = 512

// Walk visits the tree below start (a directory or a file, relative to the
// workspace root or absolute inside it) with opts.Threads workers. newVisit
// is called once per worker. The start path itself is never filtered by
// ignore or hidden rules: a path asked for by name is searched.
func Walk(ctx context.Context, ws *workspace.Workspace, start string, opts WalkOptions, newVisit func() VisitFunc) (WalkStats, error) {
	var st WalkStats
	rel, err := ws.Rel(start)
	if err != nil {
		return st, err
	}
	// A path the policy denies to read_file is denied to searches: named,
	// it is refused; found below the start, it is left out (readDir).
	if err := ws.CheckRead(rel); err != nil {
		return st, err
	}
	if path.IsAbs(rel) {
		// Only a workspace with the unrestricted write scope gets here.
		return st, tool.Errorf(tool.CodeInvalidArguments, "path %q is outside the workspace; searches stay inside it", start)
	}
	fi, err := ws.Stat(rel)
	if err != nil {
		return st, err
	}
	if !fi.IsDir() {
		st.Entries = 1
		e := &Entry{Rel: rel, Name: path.Base(rel), Type: fi.Mode().Type(), followed: true}
		err := newVisit()(e)
		if err != nil && !errors.Is(err, fs.SkipAll) {
			st.Unreadable = 1
		}
		return st, ctx.Err()
	}
	if ws.Backend() != nil {
		return walkBackend(ctx, ws, rel, opts, newVisit)
	}
	root, err := openStart(ws, rel)
	if err != nil {
		return st, err
	}
	if root.real, err = ws.Resolve(rel); err != nil {
		root.release()
		return st, err
	}
	if !opts.NoIgnore {
		root.ignores = ws.AncestorIgnores(rel)
	}
	w := &walker{ctx: ctx, ws: ws, opts: opts}
	w.cond = sync.NewCond(&w.mu)
	w.push(&work{dir: root})
	threads := opts.Threads
	if threads <= 0 {
		threads = runtime.GOMAXPROCS(0)
	}
	var wg sync.WaitGroup
	for range threads {
		visit := newVisit()
		wg.Go(func() { w.run(visit) })
	}
	wg.Wait()
	st = WalkStats{Dirs: w.dirs.Load(), Entries: w.entries.Load(), Unreadable: w.unreadable.Load()}
	return st, ctx.Err()
}

// work is a directory to read or a batch of files to visit. A directory
// either is open already (dir) or is opened from its parent (parent, name).
type work struct {
	dir    *dirHandle
	parent *dirHandle
	name   string
	rel    string
	files  []*Entry // a batch of files of parent
}

type walker struct {
	ctx  context.Context
	ws   *workspace.Workspace
	opts WalkOptions

	mu      sync.Mutex
	cond    *sync.Cond
	queue   []*work
	pending int // queued or being processed
	stopped atomic.Bool

	dirs, entries, unreadable atomic.Int64
}

func (w *walker) push(items ...*work) {
	w.mu.Lock()
	w.queue = append(w.queue, items...)
	w.pending += len(items)
	w.mu.Unlock()
	if len(items) == 1 {
		w.cond.Signal()
	} else {
		w.cond.Broadcast()
	}
}

// pop returns the next item, newest first (depth first keeps few
// directories open), or nil when the walk is over.
func (w *walker) pop() *work {
	w.mu.Lock()
	defer w.mu.Unlock()
	for len(w.queue) == 0 && w.pending > 0 {
		w.cond.Wait()
	}
	if len(w.queue) == 0 {
		return nil
	}
	it := w.queue[len(w.queue)-1]
	w.queue[len(w.queue)-1] = nil
	w.queue = w.queue[:len(w.queue)-1]
	return it
}

func (w *walker) done() {
	w.mu.Lock()
	w.pending--
	last := w.pending == 0
	w.mu.Unlock()
	if last {
		w.cond.Broadcast()
	}
}

func (w *walker) run(visit VisitFunc) {
	for {
		it := w.pop()
		if it == nil {
			return
		}
		if w.stopped.Load() || w.ctx.Err() != nil {
			w.release(it)
		} else {
			w.process(it, visit)
		}
		w.done()
	}
}

// release drops the directory references an item holds without doing it.
func (w *walker) release(it *work) {
	if it.dir != nil {
		it.dir.release()
	}
	if it.parent != nil {
		it.parent.release()
	}
}

func (w *walker) process(it *work, visit VisitFunc) {
	if it.files != nil {
		w.visitAll(it.files, visit)
		it.parent.release()
		return
	}
	d := it.dir
	if d == nil {
		var err error
		d, err = it.parent.openDir(it.name, it.rel, w.opts.FollowSymlinks)
		it.parent.release()
		if err != nil {
			w.unreadable.Add(1)
			return
		}
	}
	w.readDir(d, visit)
	d.release()
}

// readDir lists d, queues its subdirectories and visits its files.
func (w *walker) readDir(d *dirHandle, visit VisitFunc) {
	entries, err := d.list()
	if err != nil {
		w.unreadable.Add(1)
		return
	}
	w.dirs.Add(1)
	if !w.opts.NoIgnore && hasIgnoreFile(entries) {
		if more := w.ws.LoadIgnores(d.rel); len(more) > 0 {
			d.ignores = append(d.ignores[:len(d.ignores):len(d.ignores)], more...)
		}
	}
	var files []*Entry
	var dirs []*work
	for _, de := range entries {
		name := de.name
		if name == ".git" || (!w.opts.Hidden && name[0] == '.') {
			continue
		}
		rel := name
		if d.rel != "." {
			rel = d.rel + "/" + name
		}
		isDir := de.typ == fs.ModeDir
		if !w.opts.NoIgnore && len(d.ignores) > 0 && d.ignores.Ignored(rel, isDir) {
			continue
		}
		if _, denied := w.ws.ReadDeniedPath(path.Join(d.real, name)); denied {
			continue
		}
		if isDir {
			d.retain()
			dirs = append(dirs, &work{parent: d, name: name, rel: rel})
			continue
		}
		files = append(files, &Entry{Rel: rel, Name: name, Type: de.typ, dir: d, real: path.Join(d.real, name)})
	}
	if len(dirs) > 0 {
		w.push(dirs...)
	}
	// Visit the first batch here, queue the rest for idle workers.
	for len(files) > batchSize {
		tail := files[len(files)-batchSize:]
		files = files[:len(files)-batchSize]
		d.retain()
		w.push(&work{parent: d, files: tail})
	}
	w.visitAll(files, visit)
}

func (w *walker) visitAll(files []*Entry, visit VisitFunc) {
	for _, e := range files {
		if w.stopped.Load() || w.ctx.Err() != nil {
			return
		}
		if e.Type&fs.ModeSymlink != 0 && w.opts.FollowSymlinks {
			w.follow(e, visit)
			continue
		}
		w.entries.Add(1)
		if err := visit(e); err != nil {
			if errors.Is(err, fs.SkipAll) {
				w.stopped.Store(true)
				return
			}
			w.unreadable.Add(1)
		}
	}
}

// follow resolves the symlink e through the workspace's os.Root, which
// refuses a target outside the workspace, and visits the file or queues the
// directory it leads to. A directory that is one of its own ancestors is not
// entered again, so a symlink loop ends.
func (w *walker) follow(e *Entry, visit VisitFunc) {
	fi, err := w.ws.Stat(e.Rel)
	if err != nil {
		w.unreadable.Add(1)
		return
	}
	if !fi.IsDir() {
		w.entries.Add(1)
		fe := &Entry{Rel: e.Rel, Name: e.Name, Type: fi.Mode().Type(), followed: true}
		if err := visit(fe); err != nil {
			if errors.Is(err, fs.SkipAll) {
				w.stopped.Store(true)
				return
			}
			w.unreadable.Add(1)
		}
		return
	}
	if !w.opts.NoIgnore && e.dir.ignores.Ignored(e.Rel, true) {
		return
	}
	real, err := w.ws.Resolve(e.Rel)
	if err != nil {
		w.unreadable.Add(1)
		return
	}
	if _, denied := w.ws.ReadDeniedPath(real); denied {
		return
	}
	sub, err := openStart(w.ws, e.Rel)
	if err != nil {
		w.unreadable.Add(1)
		return
	}
	sub.real = real
	if e.dir.isAncestorOrSelf(sub.id) {
		sub.release()
		return
	}
	sub.parent = e.dir
	sub.ignores = e.dir.ignores
	w.push(&work{dir: sub})
}

// hasIgnoreFile reports whether a directory listing holds an ignore file,
// so that directories without one cost no extra lookups.
func hasIgnoreFile(entries []dirent) bool {
	for _, de := range entries {
		if de.name[0] == '.' && slices.Contains(workspace.IgnoreFiles, de.name) {
			return true
		}
	}
	return false
}

// dirent is one name of a directory listing and its type bits.
type dirent struct {
	name string
	typ  fs.FileMode
}

// fileID identifies a directory for loop detection.
type fileID struct{ dev, ino uint64 }

// dirHandle is an open directory shared by the work items below it; the
// last one to release it closes it.
type dirHandle struct {
	sys     sysDir
	rel     string
	real    string // rel with symbolic links resolved, for the read guard
	id      fileID // set when following symlinks
	ignores workspace.IgnoreStack
	parent  *dirHandle // the directory this one was reached from, for loop detection
	refs    atomic.Int32
}

func (d *dirHandle) retain() { d.refs.Add(1) }

func (d *dirHandle) release() {
	if d.refs.Add(-1) == 0 {
		d.sys.close()
	}
}

// isAncestorOrSelf reports whether id is d or a directory d was reached
// through.
func (d *dirHandle) isAncestorOrSelf(id fileID) bool {
	for p := d; p != nil; p = p.parent {
		if p.id == id {
			return true
		}
	}
	return false
}

// list reads the directory's entries.
func (d *dirHandle) list() ([]dirent, error) { return d.sys.list() }

// openDir opens the subdirectory name without following a symlink. withID
// asks for its identity, which loop detection needs.
func (d *dirHandle) openDir(name, rel string, withID bool) (*dirHandle, error) {
	sys, id, err := d.sys.openDir(name, withID)
	if err != nil {
		return nil, err
	}
	sub := &dirHandle{sys: sys, rel: rel, real: path.Join(d.real, name), id: id, parent: d, ignores: d.ignores}
	sub.refs.Store(1)
	return sub, nil
}

func openStart(ws *workspace.Workspace, rel string) (*dirHandle, error) {
	sys, id, err := openRootDir(ws, rel)
	if err != nil {
		return nil, err
	}
	d := &dirHandle{sys: sys, rel: rel, id: id}
	d.refs.Store(1)
	return d, nil
}

// RelTo returns rel relative to the directory base (both
// workspace-relative): what a file pattern of a search started at base is
// matched against.
func RelTo(base, rel string) string { return relTo(base, rel) }

// relTo returns rel relative to the directory base (both workspace-relative).
func relTo(base, rel string) string {
	if base == "." || base == "" {
		return rel
	}
	return strings.TrimPrefix(rel, base+"/")
}
