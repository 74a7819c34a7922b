package workspace

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"slices"
	"strings"

	"github.com/quiverkit/quiver/tool"
)

// A Backend is a read-only tree of files that a [Workspace] serves in place
// of a directory on disk: a commit of a git repository, a repository on
// GitHub. It is io/fs and nothing more — fs.ReadDirFS (Open, ReadDir) and
// fs.ReadLinkFS (ReadLink, Lstat) — plus a name for messages, so that every
// read tool works on it unchanged and fstest.TestFS can check it.
//
// The workspace does the confining, once for every backend, with the rules
// of a directory on disk: it checks a path's spelling, refuses ".." out of
// the tree, applies the policy's read denies, and resolves symbolic links
// itself, component by component, through Lstat and ReadLink (a link may
// not be absolute, may not lead out of the tree, and at most eight are
// followed). So a backend answers plain lookups only:
//
//   - Paths are io/fs paths (fs.ValidPath): slash-separated, unrooted, "."
//     for the root. Refuse anything else with fs.ErrInvalid, and never let a
//     tree entry's own name (one holding "/", "..", or a NUL) be listed or
//     reached: such a name cannot come from a real tree, so it is an attack.
//   - Open and ReadDir are only asked for paths none of whose components is
//     a symbolic link; they need not follow links and must not follow one
//     out of the tree. Open serves regular files only; Stat on the file it
//     returns gives the exact size. Read what is asked, bounded: a tool
//     that needs a window of a large file reads only that far.
//   - Lstat reports a link as fs.ModeSymlink and ReadLink gives its target
//     as stored, never resolved or cleaned (the workspace judges it).
//   - ReadDir returns the entries sorted by name; DirEntry.Info gives the
//     size of a regular file and a modification time (glob_search orders
//     by it; a commit's time serves when files have none).
//   - A submodule (a gitlink, git's mode 160000) is a directory entry
//     (fs.ModeDir) whose FileInfo.Sys() is a [Submodule]; it has no entries.
//   - Errors: a missing name wraps fs.ErrNotExist, a path through a file
//     wraps syscall.ENOTDIR or fs.ErrNotExist. A failure of the backend's
//     own that the model should see as such (no connection, rate limited)
//     is a *tool.Error with its code: the workspace passes it through
//     unchanged. A backend that bounds its work (requests, bytes) returns an
//     error wrapping [ErrBudget] once the bound is reached; searches then
//     stop and say that the bound cut them.
//   - Every method may be called from several goroutines at once.
//   - If the backend is an io.Closer, [Workspace.Close] closes it.
//
// A workspace over a backend offers no writes: [Workspace.WriteFile],
// [Workspace.MkdirAll], [Workspace.Remove] and [Workspace.Open] (which
// gives an *os.File to the tools that edit) refuse with TOOL_NOT_ALLOWED
// naming the backend, and the toolkit does not offer the tools that write
// or start processes. Package workspacetest runs a backend through the read
// tools and compares every answer with the same files on disk.
type Backend interface {
	fs.ReadDirFS
	fs.ReadLinkFS
	// Name names the backend and what it serves, for messages a model
	// reads: "git ref origin/feature (3f2a9c1)", "github octo/app@main".
	Name() string
}

// Submodule is the FileInfo.Sys() of a submodule in a [Backend]'s tree:
// a directory entry that holds another repository's commit, not files.
type Submodule struct {
	Commit string // the commit the tree records, in hex
}

// ErrBudget is wrapped by the error a [Backend] returns once the bound it
// keeps on its work (requests, bytes read) is reached.
var ErrBudget = errors.New("the backend's bound on requests or bytes was reached")

// ErrReadOnly is wrapped by the error of a write to a workspace served by
// a [Backend].
var ErrReadOnly = errors.New("the workspace is read-only")

// New returns a read-only workspace serving b. Paths are relative to b's
// root; [Workspace.Dir] is empty, as no directory on disk holds the files.
func New(b Backend) *Workspace {
	return &Workspace{backend: b}
}

// Backend returns the backend w serves, or nil for a directory on disk.
func (w *Workspace) Backend() Backend { return w.backend }

// ReadOnlyBackend names the backend when w is served by one ("" for a
// directory on disk): the tools that write or start processes are refused
// on such a workspace, with this name in the message.
func (w *Workspace) ReadOnlyBackend() string {
	if w.backend == nil {
		return ""
	}
	return w.backend.Name()
}

// readOnlyError refuses op on a backend's workspace.
func (w *Workspace) readOnlyError(op, p string) error {
	return &tool.Error{Code: tool.CodeToolNotAllowed,
		Message: fmt.Sprintf("%s %s: the workspace is %s, which is read-only", op, p, w.backend.Name()),
		Err:     ErrReadOnly}
}

// linkFS is what resolving symbolic links needs of a tree: fs.ReadLinkFS
// without Open.
type linkFS interface {
	Lstat(name string) (fs.FileInfo, error)
	ReadLink(name string) (string, error)
}

// rootLinks is an os.Root as a linkFS, with os.Root's own lookups (whose
// errors classify knows).
type rootLinks struct{ r *os.Root }

func (l rootLinks) Lstat(name string) (fs.FileInfo, error) { return l.r.Lstat(name) }
func (l rootLinks) ReadLink(name string) (string, error)   { return l.r.Readlink(name) }

// backendResolve resolves p in the backend, returning its spelling
// relative to the root and the name with every link followed.
func (w *Workspace) backendResolve(p string) (rel, real string, err error) {
	if rel, err = w.Rel(p); err != nil {
		return "", "", err
	}
	real, err = resolveIn(w.backend, rel)
	if err != nil {
		return "", "", resolveError(p, err)
	}
	return rel, real, nil
}

// backendLstat is Lstat in the backend: the directories on the way are
// resolved, the last name is not.
func (w *Workspace) backendLstat(p string) (fs.FileInfo, error) {
	rel, err := w.Rel(p)
	if err != nil {
		return nil, err
	}
	if rel == "." {
		fi, err := w.backend.Lstat(".")
		return fi, classify("lstat", p, err)
	}
	dir, err := resolveIn(w.backend, path.Dir(rel))
	if err != nil {
		return nil, resolveError(p, err)
	}
	fi, err := w.backend.Lstat(path.Join(dir, path.Base(rel)))
	return fi, classify("lstat", p, err)
}

// backendStat is Stat in the backend: every link followed.
func (w *Workspace) backendStat(p string) (fs.FileInfo, error) {
	_, real, err := w.backendResolve(p)
	if err != nil {
		return nil, err
	}
	fi, err := w.backend.Lstat(real)
	return fi, classify("stat", p, err)
}

// backendOpen opens the regular file p for reading in the backend.
func (w *Workspace) backendOpen(ctx context.Context, p string) (fs.File, error) {
	if err := w.CheckRead(p); err != nil {
		return nil, err
	}
	_, real, err := w.backendResolve(p)
	if err != nil {
		return nil, err
	}
	fi, err := w.backend.Lstat(real)
	if err != nil {
		return nil, classify("open", p, err)
	}
	if !fi.Mode().IsRegular() {
		kind := "not a regular file"
		if fi.IsDir() {
			kind = "is a directory"
		}
		return nil, tool.Errorf(tool.CodeExecutionFailed, "open %s: %s", p, kind)
	}
	var f fs.File
	if cb, ok := w.backend.(ContextBackend); ok {
		f, err = cb.OpenContext(ctx, real)
	} else {
		f, err = w.backend.Open(real)
	}
	return f, classify("open", p, err)
}

// ValidName reports whether name can be one entry of a directory: not
// empty, ".", or "..", and without a slash or a NUL byte. A backend's tree
// comes from elsewhere (a commit anyone could have crafted, an API), and an
// entry named otherwise is never listed: it could only be an attack.
func ValidName(name string) bool {
	return name != "" && name != "." && name != ".." && !strings.ContainsAny(name, "/\x00")
}

// validEntries drops the entries whose names [ValidName] refuses.
func validEntries(entries []fs.DirEntry) []fs.DirEntry {
	return slices.DeleteFunc(entries, func(e fs.DirEntry) bool { return !ValidName(e.Name()) })
}

// readDirRaw lists the directory rel (workspace-relative, clean) without
// the read guard: what walkers use, having asked the guard themselves.
func (w *Workspace) readDirRaw(rel string) ([]fs.DirEntry, error) {
	if w.backend == nil {
		return fs.ReadDir(w.root.FS(), rel)
	}
	real, err := resolveIn(w.backend, rel)
	if err != nil {
		return nil, err
	}
	entries, err := w.backend.ReadDir(real)
	return validEntries(entries), err
}

// maxIgnoreFile bounds an ignore file read from a backend.
const maxIgnoreFile = 1 << 20

// readFileRaw reads the small file rel (an ignore file) without the read
// guard, as the local walker does through its os.Root.
func (w *Workspace) readFileRaw(rel string) ([]byte, error) {
	if w.backend == nil {
		return w.root.ReadFile(rel)
	}
	real, err := resolveIn(w.backend, rel)
	if err != nil {
		return nil, err
	}
	fi, err := w.backend.Lstat(real)
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s: not a regular file", rel)
	}
	f, err := w.backend.Open(real)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, maxIgnoreFile))
}

// IsSubmodule reports whether the directory rel (workspace-relative, as a
// walker lists it) holds a submodule: on disk, a directory whose .git is a
// file (git's gitlink to the module's repository); in a backend, an entry
// whose FileInfo.Sys() is a [Submodule].
func (w *Workspace) IsSubmodule(rel string) bool {
	if w.backend == nil {
		fi, err := w.root.Lstat(path.Join(rel, ".git"))
		return err == nil && fi.Mode().IsRegular()
	}
	fi, err := w.backendLstat(rel)
	if err != nil {
		return false
	}
	_, ok := fi.Sys().(Submodule)
	return ok
}

// Readlink returns the target of the symbolic link p as stored, not
// resolved.
func (w *Workspace) Readlink(p string) (string, error) {
	if w.backend == nil {
		r, name, err := w.locate(p)
		if err != nil {
			return "", err
		}
		target, err := r.Readlink(name)
		return target, classify("readlink", p, err)
	}
	rel, err := w.Rel(p)
	if err != nil {
		return "", err
	}
	dir, err := resolveIn(w.backend, path.Dir(rel))
	if err != nil {
		return "", resolveError(p, err)
	}
	target, err := w.backend.ReadLink(path.Join(dir, path.Base(rel)))
	return target, classify("readlink", p, err)
}

// OpenRead opens the regular file p for reading, on disk or in a backend:
// what the read tools use. On disk it is [Workspace.Open].
func (w *Workspace) OpenRead(p string) (fs.File, error) {
	if w.backend == nil {
		f, err := w.Open(p)
		if err != nil {
			return nil, err
		}
		return f, nil
	}
	return w.backendOpen(context.Background(), p)
}
