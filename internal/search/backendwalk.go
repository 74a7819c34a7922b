package search

import (
	"context"
	"errors"
	"io/fs"
	"path"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/quiverkit/quiver/workspace"
)

// backendThreads is the least number of workers a walk of a backend's
// tree uses: its files are fetched (from git's object store, or over the
// network), so the workers wait more than they compute.
const backendThreads = 8

// walkBackend is [Walk] over a workspace a [workspace.Backend] serves. The
// tree is listed first — a backend's listings are cheap, a tree it holds
// already — with the local walker's rules (ignore files, hidden names,
// .git, the read guard), then its files are visited by the workers, each
// opened by its path through the workspace. A backend error wrapping
// workspace.ErrBudget ends the walk, and stats.Budget says so.
func walkBackend(ctx context.Context, ws *workspace.Workspace, start string, opts WalkOptions, newVisit func() VisitFunc) (WalkStats, error) {
	var st WalkStats
	real, err := ws.Resolve(start)
	if err != nil {
		return st, err
	}
	l := &lister{ctx: ctx, ws: ws, opts: opts, seen: map[string]bool{real: true}}
	var stack workspace.IgnoreStack
	if !opts.NoIgnore {
		stack = ws.AncestorIgnores(start)
	}
	l.list(start, real, stack)
	st.Dirs, st.Unreadable = l.dirs, l.unreadable
	if l.failed != nil {
		return st, l.failed
	}
	threads := opts.Threads
	if threads <= 0 {
		threads = max(runtime.GOMAXPROCS(0), backendThreads)
	}
	var next, entries, unreadable atomic.Int64
	var stopped, budget atomic.Bool
	var failedOnce sync.Once
	var failed error
	var wg sync.WaitGroup
	for range threads {
		visit := newVisit()
		wg.Go(func() {
			for !stopped.Load() && ctx.Err() == nil {
				i := int(next.Add(1)) - 1
				if i >= len(l.files) {
					return
				}
				entries.Add(1)
				err := visit(l.files[i])
				switch {
				case err == nil:
				case errors.Is(err, fs.SkipAll):
					stopped.Store(true)
				case errors.Is(err, workspace.ErrBudget):
					budget.Store(true)
					stopped.Store(true)
				case workspace.BackendFailure(err):
					failedOnce.Do(func() { failed = err })
					stopped.Store(true)
				default:
					unreadable.Add(1)
				}
			}
		})
	}
	wg.Wait()
	st.Entries, st.Unreadable, st.Budget = entries.Load(), st.Unreadable+unreadable.Load(), budget.Load()
	if failed != nil {
		return st, failed
	}
	return st, ctx.Err()
}

// lister lists a backend's tree below a start directory.
type lister struct {
	ctx              context.Context
	ws               *workspace.Workspace
	opts             WalkOptions
	files            []*Entry
	failed           error           // a backend failure (workspace.BackendFailure) that ended the listing
	seen             map[string]bool // directories entered, by real path: a linked loop ends
	dirs, unreadable int64
}

// list lists the directory rel, whose links are resolved in real.
func (l *lister) list(rel, real string, stack workspace.IgnoreStack) {
	if l.ctx.Err() != nil || l.failed != nil {
		return
	}
	entries, err := fs.ReadDir(l.ws.FS(), real)
	if workspace.BackendFailure(err) {
		l.failed = err
		return
	}
	if err != nil {
		l.unreadable++
		return
	}
	l.dirs++
	if !l.opts.NoIgnore && hasIgnoreEntry(entries) {
		if more := l.ws.LoadIgnores(rel); len(more) > 0 {
			stack = append(stack[:len(stack):len(stack)], more...)
		}
	}
	for _, de := range entries {
		name := de.Name()
		if !workspace.ValidName(name) {
			l.unreadable++ // no real tree holds such a name: never list it
			continue
		}
		if name == ".git" || (!l.opts.Hidden && name[0] == '.') {
			continue
		}
		child := name
		if rel != "." {
			child = rel + "/" + name
		}
		childReal := path.Join(real, name)
		isDir := de.IsDir()
		if !l.opts.NoIgnore && len(stack) > 0 && stack.Ignored(child, isDir) {
			continue
		}
		if _, denied := l.ws.ReadDeniedPath(childReal); denied {
			continue
		}
		switch {
		case isDir:
			l.enter(child, childReal, stack)
		case de.Type()&fs.ModeSymlink != 0 && l.opts.FollowSymlinks:
			l.follow(child, name, stack)
		default:
			l.files = append(l.files, &Entry{Rel: child, Name: name, Type: de.Type(), followed: true, real: childReal})
		}
	}
}

// enter lists a subdirectory once.
func (l *lister) enter(rel, real string, stack workspace.IgnoreStack) {
	if l.seen[real] {
		return
	}
	l.seen[real] = true
	l.list(rel, real, stack)
}

// follow resolves the symlink rel through the workspace, which refuses a
// target outside the tree, and lists the file or directory it leads to.
func (l *lister) follow(rel, name string, stack workspace.IgnoreStack) {
	fi, err := l.ws.Stat(rel)
	if err != nil {
		l.unreadable++
		return
	}
	real, err := l.ws.Resolve(rel)
	if err != nil {
		l.unreadable++
		return
	}
	if _, denied := l.ws.ReadDeniedPath(real); denied {
		return
	}
	if !fi.IsDir() {
		l.files = append(l.files, &Entry{Rel: rel, Name: name, Type: fi.Mode().Type(), followed: true, real: real})
		return
	}
	if !l.opts.NoIgnore && stack.Ignored(rel, true) {
		return
	}
	l.enter(rel, real, stack)
}

// hasIgnoreEntry is hasIgnoreFile for a listing of fs.DirEntry.
func hasIgnoreEntry(entries []fs.DirEntry) bool {
	for _, de := range entries {
		for _, f := range workspace.IgnoreFiles {
			if de.Name() == f {
				return true
			}
		}
	}
	return false
}
