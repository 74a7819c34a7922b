package workspace

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"

	"github.com/quiverkit/quiver/tool"
)

// Key is the dependency key under which the toolkit provides its workspace to
// tools. It has no Create: a toolkit always sets it.
var Key = tool.Key[*Workspace]{ID: "quiver.workspace", Shared: true}

// From returns the workspace of the call tc belongs to.
func From(ctx context.Context, tc tool.Context) (*Workspace, error) {
	return tool.Resolve(ctx, tc, Key)
}

// Options configure a workspace.
type Options struct {
	// AllowOutside serves absolute paths outside the root (the unrestricted
	// write scope). Relative paths that climb out are still refused.
	AllowOutside bool
}

// Workspace is a directory tree tools cannot escape. It is safe for
// concurrent use.
type Workspace struct {
	dir     string // absolute, symlinks resolved
	root    *os.Root
	outside *os.Root  // "/" when AllowOutside, else nil
	guard   ReadGuard // paths no tool may read (GuardReads); nil: none
	backend Backend   // the files, when not a directory on disk (New); root is then nil
}

// Open opens dir as a workspace.
func Open(dir string, opts Options) (*Workspace, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("workspace %s: %w", dir, err)
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		abs = real
	}
	root, err := os.OpenRoot(abs)
	if err != nil {
		return nil, fmt.Errorf("workspace: %w", err)
	}
	learnPathEscapes(root)
	w := &Workspace{dir: abs, root: root}
	if opts.AllowOutside {
		if w.outside, err = os.OpenRoot("/"); err != nil {
			root.Close()
			return nil, fmt.Errorf("workspace: %w", err)
		}
	}
	return w, nil
}

// Dir returns the workspace's absolute directory, or "" when a [Backend]
// serves it.
func (w *Workspace) Dir() string { return w.dir }

// Close releases the root's descriptors, or closes the backend when it is
// an io.Closer.
func (w *Workspace) Close() error {
	if w.backend != nil {
		if c, ok := w.backend.(io.Closer); ok {
			return c.Close()
		}
		return nil
	}
	if w.outside != nil {
		w.outside.Close()
	}
	return w.root.Close()
}

// Rel returns p as a clean slash-separated path relative to the root ("."
// for the root itself). p may be relative to the root or absolute inside it.
// A path that lexically leaves the root is SANDBOX_VIOLATION (unless it is
// absolute and the workspace allows outside paths, in which case it is
// returned absolute); an empty path or one with a NUL byte is
// INVALID_ARGUMENTS. Rel does not look at the disk: symlinks are checked when
// the path is used.
func (w *Workspace) Rel(p string) (string, error) {
	switch {
	case p == "":
		return "", tool.Errorf(tool.CodeInvalidArguments, "path is empty")
	case strings.IndexByte(p, 0) >= 0:
		return "", tool.Errorf(tool.CodeInvalidArguments, "path %q contains a NUL byte", p)
	}
	if (filepath.IsAbs(p) || path.IsAbs(filepath.ToSlash(p))) && w.backend != nil {
		return "", escapeError(p) // no directory on disk holds a backend's files
	}
	if filepath.IsAbs(p) {
		clean := filepath.Clean(p)
		rel, err := filepath.Rel(w.dir, clean)
		if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			if w.outside != nil {
				return clean, nil
			}
			return "", escapeError(p)
		}
		return filepath.ToSlash(rel), nil
	}
	clean := path.Clean(filepath.ToSlash(p))
	if clean == ".." || strings.HasPrefix(clean, "../") {
		return "", escapeError(p)
	}
	return clean, nil
}

// Display returns the path to show the model for p: relative to the root
// when inside it.
func (w *Workspace) Display(p string) string {
	if rel, err := w.Rel(p); err == nil {
		return rel
	}
	return p
}

// locate returns the root that serves p and p's name within it.
func (w *Workspace) locate(p string) (*os.Root, string, error) {
	rel, err := w.Rel(p)
	if err != nil {
		return nil, "", err
	}
	if filepath.IsAbs(rel) {
		return w.outside, strings.TrimPrefix(rel, "/"), nil
	}
	return w.root, rel, nil
}

func escapeError(p string) *tool.Error {
	return tool.Errorf(tool.CodeSandboxViolation, "path %q is outside the workspace", p)
}

// errPathEscapes is the error os.Root gives for a path that leads out of
// it: by spelling, or through a symbolic link. Package os does not export
// it, and its text is no contract; but os refuses a path that begins with a
// separator with this very error, before any system call, so the first
// workspace opened asks its root for one and keeps what comes back.
var (
	errPathEscapes     error
	learnedPathEscapes sync.Once
)

func learnPathEscapes(r *os.Root) {
	learnedPathEscapes.Do(func() {
		_, err := r.Lstat("/")
		errPathEscapes = unwrapPath(err)
	})
}

// classify turns an error from an os.Root operation on p into a *tool.Error
// with a code and a message a model can act on.
func classify(op, p string, err error) error {
	if err == nil {
		return nil
	}
	var te *tool.Error
	if errors.As(err, &te) {
		return te
	}
	switch {
	case errPathEscapes != nil && errors.Is(err, errPathEscapes):
		return &tool.Error{Code: tool.CodeSandboxViolation, Message: fmt.Sprintf("path %q resolves outside the workspace (through a symbolic link or ..)", p), Err: err}
	case errors.Is(err, syscall.ELOOP):
		return &tool.Error{Code: tool.CodeSandboxViolation, Message: fmt.Sprintf("path %q: too many levels of symbolic links", p), Err: err}
	case errors.Is(err, fs.ErrNotExist):
		return &tool.Error{Code: tool.CodeNotFound, Message: fmt.Sprintf("%s %s: no such file or directory", op, p), Err: err}
	case errors.Is(err, fs.ErrPermission):
		return &tool.Error{Code: tool.CodeExecutionFailed, Message: fmt.Sprintf("%s %s: permission denied", op, p), Err: err}
	case errors.Is(err, syscall.ENOTDIR):
		return &tool.Error{Code: tool.CodeExecutionFailed, Message: fmt.Sprintf("%s %s: a component of the path is not a directory", op, p), Err: err}
	case errors.Is(err, syscall.EISDIR):
		return &tool.Error{Code: tool.CodeExecutionFailed, Message: fmt.Sprintf("%s %s: is a directory", op, p), Err: err}
	case errors.Is(err, syscall.ENAMETOOLONG):
		return &tool.Error{Code: tool.CodeInvalidArguments, Retriable: true, Message: fmt.Sprintf("%s: path is too long (%d bytes)", op, len(p)), Err: err}
	}
	return &tool.Error{Code: tool.CodeExecutionFailed, Message: fmt.Sprintf("%s %s: %v", op, p, unwrapPath(err)), Err: err}
}

func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// Stat returns the FileInfo of p, following symlinks inside the workspace.
func (w *Workspace) Stat(p string) (fs.FileInfo, error) {
	if w.backend != nil {
		return w.backendStat(p)
	}
	r, name, err := w.locate(p)
	if err != nil {
		return nil, err
	}
	fi, err := r.Stat(name)
	return fi, classify("stat", p, err)
}

// Lstat is [Workspace.Stat] without following a final symlink.
func (w *Workspace) Lstat(p string) (fs.FileInfo, error) {
	if w.backend != nil {
		return w.backendLstat(p)
	}
	r, name, err := w.locate(p)
	if err != nil {
		return nil, err
	}
	fi, err := r.Lstat(name)
	return fi, classify("lstat", p, err)
}

// Open opens the regular file p for reading. It never blocks on a FIFO or a
// device: the file is opened non-blocking and refused unless it is regular.
// A path the read guard denies ([Workspace.GuardReads]), by any of its
// names, is refused with TOOL_NOT_ALLOWED. A workspace a [Backend] serves
// has no *os.File to give: it refuses, and readers use
// [Workspace.OpenRead].
func (w *Workspace) Open(p string) (*os.File, error) {
	if w.backend != nil {
		return nil, w.readOnlyError("open", p)
	}
	if err := w.CheckRead(p); err != nil {
		return nil, err
	}
	r, name, err := w.locate(p)
	if err != nil {
		return nil, err
	}
	f, err := r.OpenFile(name, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, classify("open", p, err)
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, classify("open", p, err)
	}
	if !fi.Mode().IsRegular() {
		f.Close()
		kind := "not a regular file"
		if fi.IsDir() {
			kind = "is a directory"
		}
		return nil, tool.Errorf(tool.CodeExecutionFailed, "open %s: %s", p, kind)
	}
	if err := w.checkOpened(p, fi); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// ReadDir lists the directory p, sorted by name. A directory the read
// guard denies is refused; the entries it denies are left out.
func (w *Workspace) ReadDir(p string) ([]fs.DirEntry, error) {
	if err := w.CheckRead(p); err != nil {
		return nil, err
	}
	var entries []fs.DirEntry
	if w.backend != nil {
		_, real, err := w.backendResolve(p)
		if err != nil {
			return nil, err
		}
		entries, err = w.backend.ReadDir(real)
		entries = validEntries(entries)
		if err != nil || w.guard == nil {
			return entries, classify("read directory", p, err)
		}
	} else {
		r, name, err := w.locate(p)
		if err != nil {
			return nil, err
		}
		entries, err = fs.ReadDir(r.FS(), name)
		if err != nil || w.guard == nil {
			return entries, classify("read directory", p, err)
		}
	}
	dir, err := w.Resolve(p)
	if err != nil {
		return nil, err
	}
	return slices.DeleteFunc(entries, func(e fs.DirEntry) bool {
		_, denied := w.guard.DeniesRead(path.Join(dir, e.Name()))
		return denied
	}), nil
}

// MkdirAll creates the directory p and its parents inside the workspace.
func (w *Workspace) MkdirAll(p string, perm fs.FileMode) error {
	if w.backend != nil {
		return w.readOnlyError("mkdir", p)
	}
	r, name, err := w.locate(p)
	if err != nil {
		return err
	}
	return classify("mkdir", p, r.MkdirAll(name, perm))
}

// Remove removes the file or empty directory p.
func (w *Workspace) Remove(p string) error {
	if w.backend != nil {
		return w.readOnlyError("remove", p)
	}
	r, name, err := w.locate(p)
	if err != nil {
		return err
	}
	return classify("remove", p, r.Remove(name))
}

// FS returns the workspace as an fs.FS (paths relative to the root): the
// backend itself when one serves it. It is not confined by the read guard.
func (w *Workspace) FS() fs.FS {
	if w.backend != nil {
		return w.backend
	}
	return w.root.FS()
}

// Root returns the underlying os.Root, for engines that need its full API;
// nil when a [Backend] serves the workspace.
func (w *Workspace) Root() *os.Root { return w.root }
