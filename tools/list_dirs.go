package tools

import (
	"context"
	_ "embed"
	"sort"

	"github.com/quiverkit/quiver/tool"
)

//go:embed list_dirs.md
var listDirsDescription string

// ListDirsInput is list_dirs' input.
type ListDirsInput struct {
	Path          string `json:"path,omitempty" jsonschema:"the directory to list below, relative to the workspace root (default: the root)"`
	Depth         int    `json:"depth,omitempty" jsonschema:"how many levels of subdirectories to list, 1 to 3 (default 2)" minimum:"1" maximum:"3"`
	Limit         int    `json:"limit,omitempty" jsonschema:"the most directories to return (default 500); shallow ones are kept, and truncated says some were left out" minimum:"1" maximum:"10000"`
	IncludeHidden bool   `json:"include_hidden,omitempty" jsonschema:"include directories whose names start with a dot (.git is never listed)"`
}

// ListDirsOutput is list_dirs' typed output.
type ListDirsOutput struct {
	Path      string     `json:"path"`
	Dirs      []DirEntry `json:"dirs"`
	Truncated bool       `json:"truncated"` // the limit cut directories off
}

// DirEntry is one directory found by list_dirs.
type DirEntry struct {
	Path  string `json:"path"`  // relative to the workspace root
	Depth int    `json:"depth"` // 1 for the directories directly in path
}

// ListDirs is a typed reference to list_dirs, for quiver.Call.
var ListDirs = tool.RefTo[ListDirsInput, *ListDirsOutput]("list_dirs")

func newListDirs() *tool.Tool {
	return withPathArgs(tool.Func("list_dirs", listDirsDescription, listDirs, summaryOf("path"),
		tool.InProcess(),
		tool.ReadOnly(),
		tool.WithSubjects(func(in ListDirsInput) []tool.Subject { return tool.PathSubject(orRoot(in.Path)) })),
		onePath("path", aDir|reads, func(in ListDirsInput) string { return in.Path }))
}

const (
	listDirsDefaultDepth = 2
	listDirsMaxDepth     = 3
	listDirsDefaultLimit = 500
)

func listDirs(ctx context.Context, tc tool.Context, in ListDirsInput) (*ListDirsOutput, error) {
	if in.Depth > listDirsMaxDepth {
		return nil, tool.Errorf(tool.CodeInvalidArguments, "field \"depth\": %d is more than %d; list a subdirectory to go deeper", in.Depth, listDirsMaxDepth)
	}
	ws, rel, err := argInWorkspace(ctx, tc, "path", in.Path, aDir|reads)
	if err != nil {
		return nil, err
	}
	entries, truncated, err := listBreadth(ctx, ws, rel, listOptions{
		depth:    orDefault(in.Depth, listDirsDefaultDepth),
		limit:    orDefault(in.Limit, listDirsDefaultLimit),
		hidden:   in.IncludeHidden,
		dirsOnly: true,
	})
	if err != nil {
		return nil, err
	}
	out := &ListDirsOutput{Path: printable(rel), Dirs: make([]DirEntry, 0, len(entries)), Truncated: truncated}
	for _, e := range entries {
		out.Dirs = append(out.Dirs, DirEntry{Path: printable(e.rel), Depth: e.depth})
	}
	sort.Slice(out.Dirs, func(i, j int) bool { return out.Dirs[i].Path < out.Dirs[j].Path })
	return out, nil
}
