package patch

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"

	"github.com/quiverkit/quiver/tool"
)

// FS is the file system a patch is applied to. *workspace.Workspace
// implements it; its errors (SANDBOX_VIOLATION for a path outside the
// workspace among them) pass through unchanged.
type FS interface {
	// Rel returns p cleaned and relative to the root, or an error if p is
	// outside it.
	Rel(p string) (string, error)
	Lstat(p string) (fs.FileInfo, error)
	// Open opens a regular file for reading, following symlinks.
	Open(p string) (*os.File, error)
	// WriteFileFrom replaces p atomically, keeping an existing file's mode.
	WriteFileFrom(p string, r io.Reader, perm fs.FileMode) error
	WriteFile(p string, data []byte, perm fs.FileMode) error
	MkdirAll(p string, perm fs.FileMode) error
	Remove(p string) error
}

// Result reports what a patch changed, one entry per file operation, in the
// patch's order.
type Result struct {
	Files []FileResult `json:"files"`
}

// FileResult is what one operation did to one file.
type FileResult struct {
	Op      Op     `json:"op"`             // add, update, delete, move or copy
	Path    string `json:"path"`           // the file, relative to the workspace; for a move, its new name
	From    string `json:"from,omitempty"` // move and copy: the old name
	Added   int    `json:"added"`          // lines added
	Removed int    `json:"removed"`        // lines removed
}

// Apply applies p to fsys, all or nothing: see [Prepare] and [Plan.Commit].
func Apply(ctx context.Context, fsys FS, p *Patch) (*Result, error) {
	pl, err := Prepare(ctx, fsys, p)
	if err != nil {
		return nil, err
	}
	return pl.Commit(ctx)
}

// Plan is a patch computed against the files as they are: every file's new
// content, nothing written yet.
type Plan struct {
	fsys   FS
	files  map[string]*vfile // by workspace-relative path
	order  []string          // paths in the order the patch first touched them
	result Result
}

// vfile is one path as the patch sees it: what is on disk, and what the
// operations so far have made of it.
type vfile struct {
	rel    string
	onDisk bool        // something was at rel before the patch
	kind   fs.FileMode // type bits of what is at rel now (0: regular file)
	perm   fs.FileMode
	orig   []byte // the original bytes, once read (kept to roll back)
	read   bool
	exists bool    // after the operations so far
	now    content // after the operations so far, when exists
	dirty  bool
}

// Prepare computes the effect of every operation of p, in order, against
// fsys, and returns the plan without writing anything. Later operations see
// the results of earlier ones (an Add then an Update of the same path works).
// The first operation that cannot be applied fails the whole patch; its error
// names the file, and for a hunk its number, header and the lines not found.
func Prepare(ctx context.Context, fsys FS, p *Patch) (*Plan, error) {
	pl := &Plan{fsys: fsys, files: map[string]*vfile{}}
	for i := range p.Files {
		if err := ctx.Err(); err != nil {
			return nil, contextError(err)
		}
		fp := &p.Files[i]
		if err := pl.apply(fp); err != nil {
			return nil, fileError(fp, i, len(p.Files), err)
		}
	}
	return pl, nil
}

// Result returns what the plan will change.
func (pl *Plan) Result() *Result {
	r := pl.result
	return &r
}

func (pl *Plan) apply(fp *FilePatch) error {
	switch fp.Op {
	case OpAdd:
		return pl.add(fp)
	case OpDelete:
		return pl.delete(fp)
	case OpUpdate:
		return pl.update(fp)
	}
	return tool.Errorf(tool.CodeInternal, "unknown operation %q", fp.Op)
}

// load returns the vfile for name, looking at the disk the first time.
func (pl *Plan) load(name string) (*vfile, error) {
	rel, err := pl.fsys.Rel(name)
	if err != nil {
		return nil, err
	}
	if v, ok := pl.files[rel]; ok {
		return v, nil
	}
	v := &vfile{rel: rel}
	fi, err := pl.fsys.Lstat(rel)
	switch {
	case err == nil:
		v.onDisk, v.exists = true, true
		v.kind, v.perm = fi.Mode().Type(), fi.Mode().Perm()
	case errors.Is(err, fs.ErrNotExist):
	default:
		return nil, err
	}
	pl.files[rel] = v
	pl.order = append(pl.order, rel)
	return v, nil
}

// current returns v's content after the operations so far, reading the
// disk the first time.
func (pl *Plan) current(v *vfile) ([]byte, error) {
	if v.dirty || v.read {
		return v.now.bytes(), nil
	}
	f, err := pl.fsys.Open(v.rel)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", v.rel, err)
	}
	var buf bytes.Buffer
	// Sized to the file plus ReadFrom's probe, so a large file is read
	// into one allocation rather than doubled on the way.
	buf.Grow(int(fi.Size()) + bytes.MinRead)
	if _, err := buf.ReadFrom(f); err != nil {
		return nil, fmt.Errorf("read %s: %w", v.rel, err)
	}
	v.orig, v.read, v.perm = buf.Bytes(), true, fi.Mode().Perm()
	v.now = bytesContent(v.orig)
	return v.orig, nil
}

func (pl *Plan) add(fp *FilePatch) error {
	v, err := pl.load(fp.Path)
	if err != nil {
		return err
	}
	if v.exists {
		if v.kind.IsDir() {
			return failf(false, "%s is a directory", v.rel)
		}
		return failf(true, "%s already exists: use an Update File section to change it, or Delete File it first in the same patch", v.rel)
	}
	if !v.onDisk {
		v.perm = 0o644
	}
	v.exists, v.kind, v.now, v.dirty = true, 0, bytesContent(fp.Content), true
	pl.result.Files = append(pl.result.Files, FileResult{Op: OpAdd, Path: v.rel, Added: countLines(fp.Content)})
	return nil
}

func (pl *Plan) delete(fp *FilePatch) error {
	v, err := pl.load(fp.Path)
	if err != nil {
		return err
	}
	if err := checkRegular(v, "delete"); err != nil {
		return err
	}
	data, err := pl.current(v)
	if err != nil {
		return err
	}
	v.exists, v.now, v.dirty = false, content{}, true
	pl.result.Files = append(pl.result.Files, FileResult{Op: OpDelete, Path: v.rel, Removed: countLines(data)})
	return nil
}

// checkRegular refuses what an operation that removes a path cannot undo:
// a missing file, a directory, a symbolic link, a device.
func checkRegular(v *vfile, verb string) error {
	switch {
	case !v.exists:
		return failf(true, "%s does not exist", v.rel)
	case v.kind.IsDir():
		return failf(false, "%s is a directory: apply_patch can %s files only", v.rel, verb)
	case v.kind&fs.ModeSymlink != 0:
		return failf(false, "%s is a symbolic link: apply_patch can %s regular files only", v.rel, verb)
	case v.kind != 0:
		return failf(false, "%s is not a regular file", v.rel)
	}
	return nil
}

func (pl *Plan) update(fp *FilePatch) error {
	v, err := pl.load(fp.Path)
	if err != nil {
		return err
	}
	switch {
	case !v.exists:
		return failf(true, "%s does not exist: use an Add File section to create it", v.rel)
	case v.kind.IsDir():
		return failf(false, "%s is a directory", v.rel)
	}
	data, err := pl.current(v)
	if err != nil {
		return err
	}
	next, added, removed, err := applyHunks(newText(data), fp.Hunks)
	if err != nil {
		return err
	}
	res := FileResult{Op: OpUpdate, Path: v.rel, Added: added, Removed: removed}
	dst := v
	if fp.MoveTo != "" {
		if dst, err = pl.moveTarget(v, fp); err != nil {
			return err
		}
	}
	if dst != v {
		res.Op, res.Path, res.From = OpMove, dst.rel, v.rel
		if fp.Copy {
			res.Op = OpCopy
		} else {
			v.exists, v.now, v.dirty = false, content{}, true
		}
	}
	dst.exists, dst.kind, dst.now, dst.dirty = true, 0, next, true
	pl.result.Files = append(pl.result.Files, res)
	return nil
}

// moveTarget checks that v may be moved (or copied) to fp.MoveTo and
// returns the target; v itself when the move names the same path.
func (pl *Plan) moveTarget(v *vfile, fp *FilePatch) (*vfile, error) {
	dst, err := pl.load(fp.MoveTo)
	if err != nil {
		return nil, err
	}
	if dst == v {
		return v, nil
	}
	if !fp.Copy {
		if err := checkRegular(v, "move"); err != nil {
			return nil, err
		}
	}
	if dst.exists {
		return nil, failf(true, "cannot move to %s: it already exists, and apply_patch does not overwrite a file by moving onto it; Delete File it first in the same patch, or choose another name", dst.rel)
	}
	dst.perm = v.perm
	return dst, nil
}

// failf returns an EXECUTION_FAILED error with the given retriability.
func failf(retriable bool, format string, args ...any) *tool.Error {
	e := tool.Errorf(tool.CodeExecutionFailed, format, args...)
	e.Retriable = retriable
	return e
}

// fileError names the operation an error happened in and says that nothing
// was changed. The code of err is kept.
func fileError(fp *FilePatch, i, n int, err error) error {
	te := tool.AsError(err)
	op := string(fp.Op)
	if fp.MoveTo != "" {
		op = "move"
	}
	out := rewrap(te, err)
	out.Message = fmt.Sprintf("file %d of %d (%s %s): %s. Nothing was changed: a patch applies to every file or to none.", i+1, n, op, fp.Path, te.Message)
	return out.WithDetail("file", fp.Path)
}

// rewrap returns a copy of te (details copied too) whose cause is err.
func rewrap(te *tool.Error, err error) *tool.Error {
	out := *te
	out.Err = err
	out.Details = nil
	for k, v := range te.Details {
		out.WithDetail(k, v)
	}
	return &out
}

func contextError(err error) *tool.Error {
	code := tool.CodeCancelled
	if errors.Is(err, context.DeadlineExceeded) {
		code = tool.CodeTimeout
	}
	return tool.Errorf(code, "apply_patch stopped before writing anything: %w", err)
}

// Commit writes the plan: new and changed files first (each atomically),
// then removals. If a step fails, the steps already done are undone — files
// written back from their original bytes, created files and directories
// removed — and the error says what failed and whether undoing succeeded.
func (pl *Plan) Commit(ctx context.Context) (*Result, error) {
	if err := ctx.Err(); err != nil {
		return nil, contextError(err)
	}
	var done []undo
	fail := func(err error) (*Result, error) {
		return nil, pl.rollback(done, err)
	}
	for _, rel := range pl.order {
		v := pl.files[rel]
		if !v.dirty || !v.exists {
			continue
		}
		if v.onDisk && !v.read {
			return fail(tool.Errorf(tool.CodeInternal, "%s: changed without its original content being kept", rel))
		}
		if !v.onDisk {
			dirs, err := pl.mkdirs(rel)
			for j := len(dirs) - 1; j >= 0; j-- { // shallowest first, so undoing removes the deepest first
				done = append(done, undo{path: dirs[j], dir: true})
			}
			if err != nil {
				return fail(err)
			}
		}
		if err := pl.fsys.WriteFileFrom(rel, v.now.reader(), v.perm); err != nil {
			return fail(err)
		}
		done = append(done, undo{path: rel, v: v})
	}
	for _, rel := range pl.order {
		v := pl.files[rel]
		if !v.dirty || v.exists || !v.onDisk {
			continue
		}
		if err := pl.fsys.Remove(rel); err != nil {
			return fail(err)
		}
		done = append(done, undo{path: rel, v: v})
	}
	return pl.Result(), nil
}

// undo is one committed step: a path written or removed (restored from
// v.orig, or removed if v was not on disk), or a directory created.
type undo struct {
	path string
	v    *vfile
	dir  bool
}

// mkdirs creates the missing parent directories of rel and returns those it
// created, deepest first.
func (pl *Plan) mkdirs(rel string) ([]string, error) {
	var missing []string
	for d := path.Dir(rel); d != "." && d != "/"; d = path.Dir(d) {
		if _, err := pl.fsys.Lstat(d); !errors.Is(err, fs.ErrNotExist) {
			break
		}
		missing = append(missing, d)
	}
	if len(missing) == 0 {
		return nil, nil
	}
	return missing, pl.fsys.MkdirAll(missing[0], 0o755)
}

// rollback undoes done, newest first, and returns the error to report for
// cause.
func (pl *Plan) rollback(done []undo, cause error) error {
	var failed []error
	for i := len(done) - 1; i >= 0; i-- {
		u := done[i]
		var err error
		switch {
		case u.dir:
			err = pl.fsys.Remove(u.path)
		case !u.v.onDisk:
			err = pl.fsys.Remove(u.path)
		default:
			err = pl.fsys.WriteFile(u.path, u.v.orig, u.v.perm)
		}
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			failed = append(failed, fmt.Errorf("%s: %w", u.path, err))
		}
	}
	te := tool.AsError(cause)
	out := rewrap(te, cause)
	if len(failed) == 0 {
		out.Message = te.Message + ". The files already changed were restored: nothing was changed."
		return out
	}
	out.Message = fmt.Sprintf("%s. Restoring the files already changed also failed, so some files are changed: %v", te.Message, errors.Join(failed...))
	return out.WithDetail("rollback_failed", len(failed))
}
