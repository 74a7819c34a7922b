package github

import (
	"bytes"
	"context"
	"io"
	"io/fs"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/quiverkit/quiver/workspace"
)

// Backend serves the repository at the ref as a [workspace.Backend]: the
// workspace confines paths and follows symbolic links; Backend answers
// plain lookups in the git tree. Nothing is asked of GitHub until the
// first lookup, so a workspace with no connection still opens, and each
// call answers NO_CONNECTION.
type Backend struct {
	c      *Client
	ctx    context.Context // the requests' context, cancelled by Close
	cancel context.CancelFunc
}

var (
	_ workspace.ContextBackend = (*Backend)(nil)
	_ workspace.CodeSearcher   = (*Backend)(nil)
)

// Open returns a backend reading the repository cfg names. It sends no
// request; a bad repo or api_url is INVALID_ARGUMENTS.
func Open(cfg Config) (*Backend, error) {
	c, err := New(cfg)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(context.Background())
	return &Backend{c: c, ctx: ctx, cancel: cancel}, nil
}

// Client returns the backend's client.
func (b *Backend) Client() *Client { return b.c }

// Name is "github owner/name@ref" ("@default branch" when no ref is set).
func (b *Backend) Name() string {
	ref := b.c.cfg.Ref
	if ref == "" {
		ref = "default branch"
	}
	return "github " + b.c.Repo() + "@" + ref
}

// Close cancels the requests under way.
func (b *Backend) Close() error {
	b.cancel()
	return nil
}

// entry finds name in the tree of the ref's commit, following no link: a
// link on the way is not a directory, as a file is not.
func (b *Backend) entry(op, name string) (Entry, Commit, error) {
	if !fs.ValidPath(name) {
		return Entry{}, Commit{}, &fs.PathError{Op: op, Path: name, Err: fs.ErrInvalid}
	}
	head, err := b.c.Head(b.ctx)
	if err != nil {
		return Entry{}, Commit{}, err
	}
	e := RootEntry(head.Tree)
	if name == "." {
		return e, head, nil
	}
	for i, part := range strings.Split(name, "/") {
		if e.IsSubmodule() {
			// A submodule is a directory with no entries here.
			return Entry{}, head, &fs.PathError{Op: op, Path: name, Err: fs.ErrNotExist}
		}
		if e.Type != TypeTree {
			return Entry{}, head, &fs.PathError{Op: op, Path: name, Err: syscall.ENOTDIR}
		}
		es, err := b.c.Dir(b.ctx, e.SHA)
		if err != nil {
			return Entry{}, head, err
		}
		next, ok := find(es, part)
		if !ok {
			return Entry{}, head, &fs.PathError{Op: op, Path: name, Err: fs.ErrNotExist}
		}
		e = next
		e.Path = strings.Join(strings.Split(name, "/")[:i+1], "/")
	}
	return e, head, nil
}

// Lstat describes name without following a final link.
func (b *Backend) Lstat(name string) (fs.FileInfo, error) {
	e, head, err := b.entry("lstat", name)
	if err != nil {
		return nil, err
	}
	return info{e: e, mtime: head.Time}, nil
}

// Stat is Lstat: the workspace resolves links before it asks.
func (b *Backend) Stat(name string) (fs.FileInfo, error) { return b.Lstat(name) }

// ReadLink returns the target of the link name as git stores it.
func (b *Backend) ReadLink(name string) (string, error) {
	e, _, err := b.entry("readlink", name)
	if err != nil {
		return "", err
	}
	if !e.IsSymlink() {
		return "", &fs.PathError{Op: "readlink", Path: name, Err: fs.ErrInvalid}
	}
	target, err := b.c.Blob(b.ctx, e.SHA, e.Size)
	return string(target), err
}

// ReadDir lists the directory name sorted by name; a submodule has no
// entries.
func (b *Backend) ReadDir(name string) ([]fs.DirEntry, error) {
	e, head, err := b.entry("readdir", name)
	if err != nil {
		return nil, err
	}
	switch {
	case e.IsSubmodule():
		return []fs.DirEntry{}, nil
	case e.Type != TypeTree:
		return nil, &fs.PathError{Op: "readdir", Path: name, Err: syscall.ENOTDIR}
	}
	es, err := b.c.Dir(b.ctx, e.SHA)
	if err != nil {
		return nil, err
	}
	out := make([]fs.DirEntry, 0, len(es))
	for _, c := range es {
		out = append(out, fs.FileInfoToDirEntry(info{e: c, mtime: head.Time}))
	}
	// git orders a directory as if its name ended in a slash; io/fs by name.
	slices.SortFunc(out, func(a, b fs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
	return out, nil
}

// Open opens the regular file name; its content is fetched at the first
// Read, so that a Stat costs no request.
func (b *Backend) Open(name string) (fs.File, error) {
	return b.OpenContext(b.ctx, name)
}

// OpenContext is Open with the reads done under ctx, a fetch spending the
// workspace.Budget ctx carries (a blob cached already costs nothing).
func (b *Backend) OpenContext(ctx context.Context, name string) (fs.File, error) {
	e, head, err := b.entry("open", name)
	if err != nil {
		return nil, err
	}
	if e.Type != TypeBlob || e.IsSymlink() {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrInvalid}
	}
	return &file{b: b, ctx: ctx, info: info{e: e, mtime: head.Time}}, nil
}

// SearchBudget is the bound of one search: Config.SearchFetches blobs and
// Config.SearchBytes bytes fetched.
func (b *Backend) SearchBudget() *workspace.Budget {
	return &workspace.Budget{MaxFetches: int64(b.c.cfg.SearchFetches), MaxBytes: b.c.cfg.SearchBytes}
}

// word is a query GitHub's code search indexes as it is: one token.
var word = regexp.MustCompile(`^[A-Za-z0-9_]{3,}$`)

// CodeSearch asks GitHub's code search which files hold query, when it can
// answer for this backend and is needed: the ref is the default branch
// (the only one GitHub indexes), the query is one word (GitHub matches
// tokens, and drops punctuation), reading every file would overrun one
// search's budget, and fewer than 1,000 files match (GitHub lists no
// more). GitHub matches whole words, so a file holding the query only
// inside a longer word (auth in authorize) is not among them: where the
// budget allows, the search reads every file instead and answers as it
// would on disk. The files are the index's: one changed since it was
// indexed may be missed. Any error, a rate limit included, is a fall back
// to reading every file, which meets the error again if it is GitHub's.
func (b *Backend) CodeSearch(ctx context.Context, query string) (func(rel string) bool, bool) {
	if b.c.cfg.Ref != "" || !word.MatchString(query) || b.readableWhole(ctx) {
		return nil, false
	}
	hits, err := b.c.SearchCode(ctx, query, nil, 1000)
	if err != nil || len(hits) >= 1000 {
		return nil, false
	}
	paths := make(map[string]bool, len(hits))
	for _, h := range hits {
		paths[h.Path] = true
	}
	return func(rel string) bool { return paths[rel] }, true
}

// readableWhole reports whether one search may read every file of the tree
// within its budget, counting only the blobs not held yet. The walk costs
// no more than the search's own listing, which it fills the cache for.
func (b *Backend) readableWhole(ctx context.Context) bool {
	head, err := b.c.Head(ctx)
	if err != nil {
		return false
	}
	es, err := b.c.Walk(ctx, head.Tree)
	if err != nil {
		return false
	}
	var fetches, bytes int64
	for _, e := range es {
		if e.Type == TypeBlob && !e.IsSymlink() && !b.c.HasBlob(e.SHA) {
			fetches++
			bytes += e.Size
		}
	}
	budget := b.SearchBudget()
	return fetches <= budget.MaxFetches && bytes <= budget.MaxBytes
}

// file is an open blob.
type file struct {
	b    *Backend
	ctx  context.Context
	info info
	r    *bytes.Reader
}

func (f *file) Stat() (fs.FileInfo, error) { return f.info, nil }
func (f *file) Close() error               { return nil }

func (f *file) Read(p []byte) (int, error) {
	if f.r == nil {
		e := f.info.e
		if !f.b.c.HasBlob(e.SHA) {
			if err := workspace.BudgetFrom(f.ctx).Spend(e.Size); err != nil {
				return 0, err
			}
		}
		data, err := f.b.c.Blob(f.ctx, e.SHA, e.Size)
		if err != nil {
			return 0, err
		}
		f.r = bytes.NewReader(data)
	}
	return f.r.Read(p)
}

var _ io.Reader = (*file)(nil)

// info is an entry as an fs.FileInfo: a blob a regular file (0755 when
// git records it executable), a tree a directory, a link a link, and a
// submodule a directory whose Sys is a workspace.Submodule. Every entry has
// the commit's time.
type info struct {
	e     Entry
	mtime time.Time
}

func (i info) Name() string       { return i.e.Name }
func (i info) Size() int64        { return i.e.Size }
func (i info) ModTime() time.Time { return i.mtime }
func (i info) IsDir() bool        { return i.Mode().IsDir() }

func (i info) Mode() fs.FileMode {
	switch {
	case i.e.Type == TypeTree || i.e.IsSubmodule():
		return fs.ModeDir | 0o755
	case i.e.IsSymlink():
		return fs.ModeSymlink | 0o777
	case i.e.Mode == "100755":
		return 0o755
	}
	return 0o644
}

func (i info) Sys() any {
	if i.e.IsSubmodule() {
		return workspace.Submodule{Commit: i.e.SHA}
	}
	return nil
}
