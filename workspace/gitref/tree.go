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
	"slices"
	"strconv"
	"strings"

	"github.com/quiverkit/quiver/tool"
	"github.com/quiverkit/quiver/workspace"
)

// listTree reads the commit's whole tree with one `git ls-tree -r -t -z
// --long --full-tree`.
func (b *Backend) listTree(ctx context.Context) (*node, error) {
	root := &node{name: ".", mode: fs.ModeDir | 0o755, byName: map[string]*node{}}
	count := 0
	err := b.stream(ctx, func(r io.Reader) error {
		br := bufio.NewReaderSize(r, 64<<10)
		for {
			rec, err := readRecord(br)
			if errors.Is(err, io.EOF) {
				return nil
			}
			if err != nil {
				return err
			}
			if count++; count > maxEntries {
				return tool.Errorf(tool.CodeExecutionFailed, "the tree of %s has over %d entries", b.ref, maxEntries)
			}
			e, err := parseEntry(rec)
			if err != nil {
				return err
			}
			addEntry(root, e)
		}
	}, "ls-tree", "-r", "-t", "-z", "--long", "--full-tree", "--end-of-options", b.commit)
	if err != nil {
		return nil, fmt.Errorf("git ref %q: %w", b.ref, err)
	}
	sortTree(root)
	return root, nil
}

// readRecord reads one NUL-terminated record, at most maxRecord bytes.
func readRecord(br *bufio.Reader) ([]byte, error) {
	var rec []byte
	for {
		chunk, err := br.ReadSlice(0)
		rec = append(rec, chunk...)
		if len(rec) > maxRecord {
			return nil, fmt.Errorf("an ls-tree record is over %d bytes", maxRecord)
		}
		switch {
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case errors.Is(err, io.EOF) && len(rec) > 0:
			return nil, errors.New("ls-tree's output ends inside a record")
		case err != nil:
			return nil, err
		}
		return rec[:len(rec)-1], nil
	}
}

// entry is one line of ls-tree --long: "MODE TYPE OID SIZE\tPATH".
type entry struct {
	mode, typ, oid, path string
	size                 int64
}

// parseEntry parses one record.
func parseEntry(rec []byte) (entry, error) {
	meta, p, ok := bytes.Cut(rec, []byte{'\t'})
	f := strings.Fields(string(meta))
	if !ok || len(f) != 4 {
		return entry{}, fmt.Errorf("unexpected ls-tree record %q", rec)
	}
	e := entry{mode: f[0], typ: f[1], oid: f[2], path: string(p)}
	if f[3] != "-" {
		n, err := strconv.ParseInt(f[3], 10, 64)
		if err != nil || n < 0 {
			return entry{}, fmt.Errorf("unexpected size in ls-tree record %q", rec)
		}
		e.size = n
	}
	if !isHex(e.oid) {
		return entry{}, fmt.Errorf("unexpected object id in ls-tree record %q", rec)
	}
	return e, nil
}

// validPath reports whether every component of p is a name a directory
// can hold: a crafted tree may hold "..", "." or an empty name, which git
// never writes.
func validPath(p string) bool {
	if p == "" {
		return false
	}
	for _, part := range strings.Split(p, "/") {
		if !workspace.ValidName(part) {
			return false
		}
	}
	return true
}

// addEntry adds e below root, creating the directories on its way; an
// entry with an invalid path, of an unknown mode, or below a file is left
// out.
func addEntry(root *node, e entry) {
	if !validPath(e.path) {
		return
	}
	n := &node{name: path.Base(e.path), oid: e.oid, size: e.size}
	switch e.mode {
	case "100644":
		n.mode = 0o644
	case "100755":
		n.mode = 0o755
	case "120000":
		n.mode = fs.ModeSymlink | 0o777
	case "040000":
		n.mode, n.size, n.byName = fs.ModeDir|0o755, 0, map[string]*node{}
	case "160000":
		n.mode, n.size, n.sub = fs.ModeDir|0o755, 0, true
	default:
		return
	}
	dir := root
	parts := strings.Split(e.path, "/")
	for _, part := range parts[:len(parts)-1] {
		next, ok := dir.byName[part]
		if !ok {
			next = &node{name: part, mode: fs.ModeDir | 0o755, byName: map[string]*node{}}
			dir.byName[part] = next
			dir.children = append(dir.children, next)
		}
		if next.byName == nil {
			return // below a file, a link or a submodule
		}
		dir = next
	}
	if old, ok := dir.byName[n.name]; ok {
		if old.byName != nil && n.byName != nil {
			old.oid = n.oid // the directory was made on the way; -t lists trees first, so this is rare
		}
		return
	}
	dir.byName[n.name] = n
	dir.children = append(dir.children, n)
}

// sortTree sorts every directory's entries by name.
func sortTree(n *node) {
	slices.SortFunc(n.children, func(a, b *node) int { return strings.Compare(a.name, b.name) })
	for _, c := range n.children {
		if c.byName != nil {
			sortTree(c)
		}
	}
}
