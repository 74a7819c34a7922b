package tools

import (
	"context"
	_ "embed"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/quiverkit/quiver/tool"
	"github.com/quiverkit/quiver/workspace"
)

//go:embed tree.md
var treeDescription string

// TreeInput is tree's input.
type TreeInput struct {
	Path          string `json:"path,omitempty" jsonschema:"the directory to draw, relative to the workspace root (default: the root)"`
	Depth         int    `json:"depth,omitempty" jsonschema:"how many levels to show (default 3)" minimum:"1" maximum:"20"`
	Limit         int    `json:"limit,omitempty" jsonschema:"the most entries to show (default 500); shallow ones are kept: draw a subdirectory to see the rest" minimum:"1" maximum:"10000"`
	IncludeHidden bool   `json:"include_hidden,omitempty" jsonschema:"show entries whose names start with a dot (.git is never shown)"`
}

// TreeOutput is tree's typed output.
type TreeOutput struct {
	Path      string `json:"path"`
	Tree      string `json:"tree"` // the drawing
	Dirs      int    `json:"dirs"`
	Files     int    `json:"files"`
	Truncated bool   `json:"truncated"` // the limit cut entries off
}

// Tree is a typed reference to tree, for quiver.Call.
var Tree = tool.RefTo[TreeInput, *TreeOutput]("tree")

func newTree() *tool.Tool {
	return withPathArgs(tool.Func("tree", treeDescription, drawTree, summaryOf("path"),
		tool.InProcess(),
		tool.ReadOnly(),
		tool.WithSubjects(func(in TreeInput) []tool.Subject { return tool.PathSubject(orRoot(in.Path)) })),
		onePath("path", aDir|reads, func(in TreeInput) string { return in.Path }))
}

const (
	treeDefaultDepth = 3
	treeDefaultLimit = 500
)

func drawTree(ctx context.Context, tc tool.Context, in TreeInput) (*TreeOutput, error) {
	ws, rel, err := argInWorkspace(ctx, tc, "path", in.Path, aDir|reads)
	if err != nil {
		return nil, err
	}
	entries, truncated, err := listBreadth(ctx, ws, rel, listOptions{
		depth:  orDefault(in.Depth, treeDefaultDepth),
		limit:  orDefault(in.Limit, treeDefaultLimit),
		hidden: in.IncludeHidden,
	})
	if err != nil {
		return nil, err
	}
	out := &TreeOutput{Path: printable(rel), Truncated: truncated}
	for _, e := range entries {
		if e.dir {
			out.Dirs++
		} else {
			out.Files++
		}
	}
	out.Tree = renderTree(rel, entries)
	return out, nil
}

// Render shows the drawing and a count, and says when the limit cut it.
func (o *TreeOutput) Render() tool.Result {
	var b strings.Builder
	b.WriteString(o.Tree)
	dirs := "directories"
	if o.Dirs == 1 {
		dirs = "directory"
	}
	fmt.Fprintf(&b, "\n%d %s, %d file%s\n", o.Dirs, dirs, o.Files, plural(o.Files))
	if o.Truncated {
		b.WriteString("[truncated: the limit was reached; raise limit, lower depth, or draw a subdirectory]\n")
	}
	return tool.Text(b.String())
}

// renderTree draws entries (relative to the root, below start) as a tree.
func renderTree(start string, entries []listEntry) string {
	children := map[string][]listEntry{}
	for _, e := range entries {
		parent := path.Dir(e.rel)
		children[parent] = append(children[parent], e)
	}
	for _, list := range children {
		sort.Slice(list, func(i, j int) bool { return list[i].rel < list[j].rel })
	}
	var b strings.Builder
	b.WriteString(printable(start) + "/\n")
	var draw func(dir, prefix string)
	draw = func(dir, prefix string) {
		list := children[dir]
		for i, e := range list {
			branch, indent := "├── ", "│   "
			if i == len(list)-1 {
				branch, indent = "└── ", "    "
			}
			b.WriteString(prefix + branch + e.label() + "\n")
			if e.dir {
				draw(e.rel, prefix+indent)
			}
		}
	}
	draw(start, "")
	return b.String()
}

// listEntry is one entry found by [listBreadth].
type listEntry struct {
	rel   string // relative to the workspace root
	depth int    // 1 for the entries of the start directory
	dir   bool
	mode  fs.FileMode
	size  int64
	link  string // a symlink's target
	sub   bool   // a submodule (workspace.IsSubmodule)
	err   string // why a directory could not be listed
}

func (e listEntry) label() string {
	name := printable(path.Base(e.rel))
	switch {
	case e.err != "":
		return name + "/ [" + e.err + "]"
	case e.sub:
		return name + "/ [submodule]"
	case e.dir:
		return name + "/"
	case e.link != "":
		return name + " -> " + printable(e.link)
	}
	return name
}

type listOptions struct {
	depth, limit int
	hidden       bool
	dirsOnly     bool
}

// listBreadth lists the tree below start level by level, so that a limit
// keeps the shallow entries (an overview) rather than the first deep corner.
// Ignore files are honoured as workspace.Walk honours them; .git is never
// listed; names starting with a dot only when hidden is set. Within a level,
// directories are read in lexical order. truncated reports that at least one
// more entry existed beyond limit.
func listBreadth(ctx context.Context, ws *workspace.Workspace, start string, opts listOptions) ([]listEntry, bool, error) {
	type queued struct {
		rel   string
		depth int
		stack workspace.IgnoreStack
	}
	queue := []queued{{start, 1, ws.AncestorIgnores(start)}}
	var out []listEntry
	for len(queue) > 0 {
		if err := ctx.Err(); err != nil {
			return nil, false, tool.Errorf(tool.CodeCancelled, "listing %s: %w", start, err)
		}
		q := queue[0]
		queue = queue[1:]
		entries, err := ws.ReadDir(q.rel)
		if err != nil && q.rel == start {
			return nil, false, err
		}
		if err != nil {
			markUnreadable(out, q.rel, err)
			continue
		}
		for _, d := range entries {
			e, ok := entryOf(ws, q.rel, d, q.stack, opts)
			if !ok {
				continue
			}
			if len(out) == opts.limit {
				return out, true, nil
			}
			e.depth = q.depth
			out = append(out, e)
			if e.dir && q.depth < opts.depth {
				queue = append(queue, queued{e.rel, q.depth + 1, append(q.stack[:len(q.stack):len(q.stack)], ws.LoadIgnores(e.rel)...)})
			}
		}
	}
	return out, false, nil
}

// entryOf turns a directory entry into a listEntry, or reports that it is
// not listed (hidden, ignored, .git, or not a directory when only
// directories are asked for).
func entryOf(ws *workspace.Workspace, dir string, d fs.DirEntry, stack workspace.IgnoreStack, opts listOptions) (listEntry, bool) {
	name := d.Name()
	if name == ".git" || !opts.hidden && strings.HasPrefix(name, ".") {
		return listEntry{}, false
	}
	rel := name
	if dir != "." {
		rel = dir + "/" + name
	}
	if stack.Ignored(rel, d.IsDir()) || opts.dirsOnly && !d.IsDir() {
		return listEntry{}, false
	}
	e := listEntry{rel: rel, dir: d.IsDir(), mode: d.Type()}
	if d.Type()&fs.ModeSymlink != 0 {
		e.link, _ = ws.Readlink(rel)
	}
	if e.dir && !opts.dirsOnly {
		e.sub = ws.IsSubmodule(rel)
	}
	if info, err := d.Info(); err == nil {
		e.size = info.Size()
	}
	return e, true
}

// markUnreadable notes on a listed directory why its entries are missing.
func markUnreadable(out []listEntry, rel string, err error) {
	reason := "cannot be read"
	if te := tool.AsError(err); strings.Contains(te.Message, "permission denied") {
		reason = "permission denied"
	}
	for i := range out {
		if out[i].rel == rel {
			out[i].err = reason
		}
	}
}

// orRoot is the path an optional directory argument names: "" is the root.
func orRoot(p string) string {
	if p == "" {
		return "."
	}
	return p
}

func orDefault(v, def int) int {
	if v <= 0 {
		return def
	}
	return v
}

// printable shows a name that is not valid UTF-8 with its invalid bytes
// escaped as \xNN, so that it survives JSON (which would turn them into
// U+FFFD) and the model sees that the name is unusual.
func printable(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n == 1 {
			fmt.Fprintf(&b, `\x%02x`, s[i])
		} else {
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}
