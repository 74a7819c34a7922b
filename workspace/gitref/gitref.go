// Package gitref is the read-only workspace backend of one commit of a
// local git repository: `[workspace] ref = "origin/feature"` serves that
// commit's tree, through git's object store, without a checkout — a branch
// reviewed next to the working tree, which stays as it is.
//
// # Why the git program, not a Go reader
//
// It reads with the real git, started like every process Quiver starts
// (sandbox.GitCommand: read-only profile, Quiver's git protections), rather
// than with a pure-Go reader such as go-git: git already reads every
// object format the repository may use (packs, their bitmaps and reverse
// indexes, the SHA-256 object format, alternates, partial clones'
// promisors are refused rather than fetched), the repository is on the
// machine only because git is, and one dependency fewer is one thing fewer
// to keep in step with git. The cost is two processes: `git ls-tree -r -t
// -z --long` once, when the backend opens, for the whole tree (paths,
// modes, object ids, sizes), held in memory; and one long-lived `git
// cat-file --batch` for the blobs, fed one object id at a time.
//
// # What it defends against
//
// The ref is refused unless it is a plain name (no leading '-', no "..",
// no ':' or "@{", no control character or space: it could otherwise be an
// option of git, a range, or a path inside another object), and git is
// passed --end-of-options before it all the same. A tree entry whose path
// has an empty, "." or ".." component cannot come from git's own writes;
// such an entry (a crafted tree) is left out. Symbolic links (mode 120000)
// are shown as links and followed by the workspace only while they stay
// inside the tree; submodules (160000) are directories without entries
// whose FileInfo.Sys() is a workspace.Submodule. Reads are bounded: a blob
// up to batchMax bytes comes through the batch process, a larger one from
// a `git cat-file blob` of its own that is stopped when the file is
// closed, so reading the first lines of a huge blob costs those lines; a
// link's target over 4 KiB and a tree over maxEntries entries are refused.
package gitref

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/quiverkit/quiver/sandbox"
	"github.com/quiverkit/quiver/tool"
	"github.com/quiverkit/quiver/workspace"
)

// Bounds.
const (
	maxRef     = 256        // bytes of a ref
	maxEntries = 2_000_000  // entries of a tree
	maxLink    = 4096       // bytes of a symbolic link's target
	batchMax   = 8 << 20    // blobs read whole through the batch process
	maxRecord  = 4096 + 128 // bytes of one ls-tree record
)

// Backend serves one commit of a repository. It is a workspace.Backend.
type Backend struct {
	dir, ref, commit string
	when             time.Time // the commit's committer time: every file's ModTime
	box              *sandbox.Profile
	root             *node
	batch            *batch
}

// CheckRef refuses a ref that is not a plain name, naming the field it came
// from. It is the rule [Open] applies, for a config to check before.
func CheckRef(field, ref string) error {
	bad := func(why string) error {
		return tool.Errorf(tool.CodeInvalidArguments, "%s %q: %s", field, ref, why).WithDetail("field", field)
	}
	switch {
	case ref == "":
		return bad("is empty; give a branch, tag or commit")
	case len(ref) > maxRef:
		return bad(fmt.Sprintf("is longer than %d bytes", maxRef))
	case ref[0] == '-':
		return bad("starts with '-', which git would read as an option")
	case strings.Contains(ref, ".."):
		return bad("holds \"..\", a range, not one commit")
	case strings.Contains(ref, "@{"):
		return bad("holds \"@{\", a reflog lookup; give a branch, tag or commit")
	}
	for _, r := range ref {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("/._-~^+@", r)) {
			return bad(fmt.Sprintf("holds %q; a ref is letters, digits and / . _ - ~ ^ + @", r))
		}
	}
	return nil
}

// Open resolves ref in the repository at dir and lists its commit's tree.
// Its git runs under box, read-only whatever box's scope. Close the
// backend to end its batch process.
func Open(ctx context.Context, dir, ref string, box *sandbox.Profile) (*Backend, error) {
	if err := CheckRef("ref", ref); err != nil {
		return nil, err
	}
	b := &Backend{dir: dir, ref: ref, box: box.With(sandbox.ReadOnly)}
	out, err := b.output(ctx, "rev-parse", "--verify", "--quiet", "--end-of-options", ref+"^{commit}")
	if err != nil {
		return nil, fmt.Errorf("git ref %q: %w", ref, err)
	}
	b.commit = strings.TrimSpace(string(out))
	if !isHex(b.commit) {
		return nil, tool.Errorf(tool.CodeNotFound, "git ref %q: no such commit in %s", ref, dir)
	}
	if out, err = b.output(ctx, "cat-file", "commit", b.commit); err != nil {
		return nil, fmt.Errorf("git ref %q: %w", ref, err)
	}
	if b.when, err = committed(out); err != nil {
		return nil, fmt.Errorf("git ref %q: commit %s: %w", ref, b.commit, err)
	}
	if b.root, err = b.listTree(ctx); err != nil {
		return nil, err
	}
	b.batch = &batch{b: b}
	return b, nil
}

// Name names the ref and its commit.
func (b *Backend) Name() string {
	return fmt.Sprintf("git ref %s (%s)", b.ref, b.commit[:min(len(b.commit), 12)])
}

// Commit returns the commit served, in hex.
func (b *Backend) Commit() string { return b.commit }

// Close ends the batch process.
func (b *Backend) Close() error {
	b.batch.close()
	return nil
}

// output runs git and returns its stdout (at most 1 MiB).
func (b *Backend) output(ctx context.Context, args ...string) ([]byte, error) {
	var out []byte
	err := b.stream(ctx, func(r io.Reader) error {
		var err error
		out, err = io.ReadAll(io.LimitReader(r, 1<<20))
		return err
	}, args...)
	return out, err
}

// stream runs git and hands its stdout to consume.
func (b *Backend) stream(ctx context.Context, consume func(io.Reader) error, args ...string) error {
	proc := sandbox.GitCommand(ctx, b.box, b.dir, args...)
	var stderr strings.Builder
	proc.Stderr = &limitedWriter{w: &stderr, n: 8 << 10}
	stdout, err := proc.StdoutPipe()
	if err != nil {
		return err
	}
	if err := proc.Start(); err != nil {
		return sandbox.ToolError(err)
	}
	perr := consume(stdout)
	io.Copy(io.Discard, stdout)
	if werr := proc.Wait(); werr != nil {
		msg := strings.TrimSpace(stderr.String())
		if msg == "" {
			msg = werr.Error()
		}
		return tool.Errorf(tool.CodeExecutionFailed, "git %s in %s: %s", args[0], b.dir, msg).WithCause(werr)
	}
	return perr
}

// limitedWriter keeps the first n bytes written to it.
type limitedWriter struct {
	w io.Writer
	n int
}

func (l *limitedWriter) Write(p []byte) (int, error) {
	if l.n > 0 {
		k := min(l.n, len(p))
		l.w.Write(p[:k])
		l.n -= k
	}
	return len(p), nil
}

// committed reads the committer time from a commit object's headers.
func committed(commit []byte) (time.Time, error) {
	for line := range strings.Lines(string(commit)) {
		if line == "\n" {
			break
		}
		if rest, ok := strings.CutPrefix(line, "committer "); ok {
			f := strings.Fields(rest)
			if len(f) >= 2 {
				if secs, err := strconv.ParseInt(f[len(f)-2], 10, 64); err == nil {
					return time.Unix(secs, 0).UTC(), nil
				}
			}
		}
	}
	return time.Time{}, errors.New("no committer time in its headers")
}

func isHex(s string) bool {
	if len(s) != 40 && len(s) != 64 {
		return false
	}
	for i := range len(s) {
		if c := s[i]; !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}

// node is one entry of the tree.
type node struct {
	name     string
	mode     fs.FileMode
	oid      string
	size     int64
	sub      bool // a submodule
	children []*node
	byName   map[string]*node
}

// lookup finds the node at name, a valid io/fs path, without following
// links: a link on the way is ENOTDIR, as a file is.
func (b *Backend) lookup(op, name string) (*node, error) {
	if !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: op, Path: name, Err: fs.ErrInvalid}
	}
	n := b.root
	if name == "." {
		return n, nil
	}
	for _, part := range strings.Split(name, "/") {
		switch {
		case n.sub: // an empty directory, as a submodule not checked out is
			return nil, &fs.PathError{Op: op, Path: name, Err: fs.ErrNotExist}
		case !n.mode.IsDir():
			return nil, &fs.PathError{Op: op, Path: name, Err: syscall.ENOTDIR}
		}
		next, ok := n.byName[part]
		if !ok {
			return nil, &fs.PathError{Op: op, Path: name, Err: fs.ErrNotExist}
		}
		n = next
	}
	return n, nil
}

// Lstat describes name without following a final link.
func (b *Backend) Lstat(name string) (fs.FileInfo, error) {
	n, err := b.lookup("lstat", name)
	if err != nil {
		return nil, err
	}
	return info{n, b.when}, nil
}

// ReadLink returns the target of the link name, as stored.
func (b *Backend) ReadLink(name string) (string, error) {
	n, err := b.lookup("readlink", name)
	if err != nil {
		return "", err
	}
	if n.mode&fs.ModeSymlink == 0 {
		return "", &fs.PathError{Op: "readlink", Path: name, Err: fs.ErrInvalid}
	}
	if n.size > maxLink {
		return "", &fs.PathError{Op: "readlink", Path: name, Err: fmt.Errorf("the link's target is %d bytes, over %d", n.size, maxLink)}
	}
	data, err := b.batch.read(n.oid, n.size)
	if err != nil {
		return "", &fs.PathError{Op: "readlink", Path: name, Err: err}
	}
	return string(data), nil
}

// ReadDir lists the directory name, sorted by name.
func (b *Backend) ReadDir(name string) ([]fs.DirEntry, error) {
	n, err := b.lookup("readdir", name)
	if err != nil {
		return nil, err
	}
	if !n.mode.IsDir() {
		return nil, &fs.PathError{Op: "readdir", Path: name, Err: syscall.ENOTDIR}
	}
	out := make([]fs.DirEntry, len(n.children))
	for i, c := range n.children {
		out[i] = fs.FileInfoToDirEntry(info{c, b.when})
	}
	return out, nil
}

// Open opens the regular file or directory name. The workspace resolves
// links before it opens; for other readers of the fs.FS (fstest), a final
// link is followed while it stays inside the tree.
func (b *Backend) Open(name string) (fs.File, error) {
	n, err := b.lookup("open", name)
	for hops := 0; err == nil && n.mode&fs.ModeSymlink != 0; hops++ {
		target, lerr := b.ReadLink(name)
		name = path.Join(path.Dir(name), target)
		if lerr != nil || hops == 8 || path.IsAbs(target) || !fs.ValidPath(name) {
			return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
		}
		n, err = b.lookup("open", name)
	}
	if err != nil {
		return nil, err
	}
	switch {
	case n.mode.IsDir():
		entries, _ := b.ReadDir(name)
		return &dirFile{info: info{n, b.when}, entries: entries}, nil
	case !n.mode.IsRegular():
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrInvalid}
	case n.size <= batchMax:
		data, err := b.batch.read(n.oid, n.size)
		if err != nil {
			return nil, &fs.PathError{Op: "open", Path: name, Err: err}
		}
		return &memFile{info: info{n, b.when}, r: bytes.NewReader(data)}, nil
	}
	return b.openLarge(n)
}

// openLarge streams a blob over batchMax from a git of its own, which
// Close stops.
func (b *Backend) openLarge(n *node) (fs.File, error) {
	ctx, cancel := context.WithCancel(context.Background())
	proc := sandbox.GitCommand(ctx, b.box, b.dir, "cat-file", "blob", n.oid)
	stdout, err := proc.StdoutPipe()
	if err != nil {
		cancel()
		return nil, err
	}
	if err := proc.Start(); err != nil {
		cancel()
		return nil, sandbox.ToolError(err)
	}
	return &procFile{info: info{n, b.when}, r: bufio.NewReaderSize(io.LimitReader(stdout, n.size), 64<<10), stop: func() {
		cancel()
		io.Copy(io.Discard, stdout)
		proc.Wait()
	}}, nil
}

// info is a node's fs.FileInfo.
type info struct {
	n    *node
	when time.Time
}

func (i info) Name() string       { return i.n.name }
func (i info) Size() int64        { return i.n.size }
func (i info) Mode() fs.FileMode  { return i.n.mode }
func (i info) ModTime() time.Time { return i.when }
func (i info) IsDir() bool        { return i.n.mode.IsDir() }
func (i info) Sys() any {
	if i.n.sub {
		return workspace.Submodule{Commit: i.n.oid}
	}
	return nil
}

// memFile is a blob read whole.
type memFile struct {
	info info
	r    *bytes.Reader
}

func (f *memFile) Stat() (fs.FileInfo, error) { return f.info, nil }
func (f *memFile) Read(p []byte) (int, error) { return f.r.Read(p) }
func (f *memFile) Close() error               { return nil }

// procFile is a large blob streamed from its own git.
type procFile struct {
	info info
	r    io.Reader
	once sync.Once
	stop func()
}

func (f *procFile) Stat() (fs.FileInfo, error) { return f.info, nil }
func (f *procFile) Read(p []byte) (int, error) { return f.r.Read(p) }
func (f *procFile) Close() error {
	f.once.Do(f.stop)
	return nil
}

// dirFile is an open directory, for fs.ReadDir and fstest.
type dirFile struct {
	info    info
	entries []fs.DirEntry
	off     int
}

func (d *dirFile) Stat() (fs.FileInfo, error) { return d.info, nil }
func (d *dirFile) Read([]byte) (int, error) {
	return 0, &fs.PathError{Op: "read", Path: d.info.Name(), Err: errors.New("is a directory")}
}
func (d *dirFile) Close() error { return nil }

// ReadDir returns the next n entries (all when n <= 0).
func (d *dirFile) ReadDir(n int) ([]fs.DirEntry, error) {
	rest := d.entries[d.off:]
	if n <= 0 {
		d.off = len(d.entries)
		return rest, nil
	}
	if len(rest) == 0 {
		return nil, io.EOF
	}
	k := min(n, len(rest))
	d.off += k
	return rest[:k], nil
}

var _ workspace.Backend = (*Backend)(nil)
