package github

import (
	"context"
	"path"
	"strings"

	"github.com/quiverkit/quiver/tool"
)

// maxLinks is how many symbolic links one lookup follows, as Linux's
// MAXSYMLINKS.
const maxLinks = 40

// RootEntry is the entry of the tree root itself.
func RootEntry(root string) Entry {
	return Entry{Name: ".", Path: ".", Mode: "040000", Type: TypeTree, SHA: root}
}

// Lookup returns the entry at p (slash-separated, relative to the tree
// root; "." is the root) with Path p. Symbolic links in the directories on
// the way are followed, and the last one too when follow is set, as the
// kernel follows them under os.Root: a link that leads out of the tree is
// SANDBOX_VIOLATION, more than 40 links too; a missing entry is NOT_FOUND.
func (c *Client) Lookup(ctx context.Context, root, p string, follow bool) (Entry, error) {
	links := 0
	e, err := c.lookup(ctx, root, path.Clean(p), follow, &links)
	if err != nil {
		return Entry{}, err
	}
	e.Path = path.Clean(p)
	return e, nil
}

func (c *Client) lookup(ctx context.Context, root, p string, follow bool, links *int) (Entry, error) {
	switch {
	case p == ".":
		return RootEntry(root), nil
	case p == ".." || strings.HasPrefix(p, "../") || path.IsAbs(p):
		return Entry{}, tool.Errorf(tool.CodeSandboxViolation, "path %q is outside the workspace", p)
	}
	cur := RootEntry(root)
	dir := "."
	names := strings.Split(p, "/")
	for i, name := range names {
		if cur.Type != TypeTree {
			return Entry{}, tool.Errorf(tool.CodeExecutionFailed, "stat %s: a component of the path is not a directory", p)
		}
		es, err := c.Dir(ctx, cur.SHA)
		if err != nil {
			return Entry{}, err
		}
		next, ok := find(es, name)
		if !ok {
			return Entry{}, tool.Errorf(tool.CodeNotFound, "stat %s: no such file or directory", p)
		}
		last := i == len(names)-1
		if next.IsSymlink() && (!last || follow) {
			if *links++; *links > maxLinks {
				return Entry{}, tool.Errorf(tool.CodeSandboxViolation, "path %q: too many levels of symbolic links", p)
			}
			target, err := c.Blob(ctx, next.SHA, next.Size)
			if err != nil {
				return Entry{}, err
			}
			rest := path.Join(append([]string{dir, string(target)}, names[i+1:]...)...)
			if path.IsAbs(string(target)) {
				rest = string(target)
			}
			if rest == ".." || strings.HasPrefix(rest, "../") || path.IsAbs(rest) {
				return Entry{}, tool.Errorf(tool.CodeSandboxViolation, "path %q resolves outside the workspace (through a symbolic link or ..)", p)
			}
			return c.lookup(ctx, root, rest, follow, links)
		}
		cur = next
		dir = path.Join(dir, name)
	}
	return cur, nil
}

func find(es []Entry, name string) (Entry, bool) {
	for _, e := range es {
		if e.Name == name {
			return e, true
		}
	}
	return Entry{}, false
}

// ReadFile returns the content of the file at p under the tree root,
// following symbolic links. A directory or a submodule is EXECUTION_FAILED,
// as reading a directory is on disk.
func (c *Client) ReadFile(ctx context.Context, root, p string) ([]byte, Entry, error) {
	e, err := c.Lookup(ctx, root, p, true)
	if err != nil {
		return nil, Entry{}, err
	}
	switch e.Type {
	case TypeTree:
		return nil, e, tool.Errorf(tool.CodeExecutionFailed, "read %s: is a directory", p)
	case TypeCommit:
		return nil, e, tool.Errorf(tool.CodeExecutionFailed, "read %s: is a submodule (commit %s), whose files are in another repository", p, e.SHA)
	}
	b, err := c.Blob(ctx, e.SHA, e.Size)
	return b, e, err
}
