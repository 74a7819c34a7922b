package tools

import (
	"context"
	_ "embed"
	"io/fs"
	"path"

	"github.com/bmatcuk/doublestar/v4"
	"github.com/quiverkit/quiver/tool"
	"github.com/quiverkit/quiver/workspace"
)

//go:embed list_files.md
var listFilesDescription string

// ListFilesInput is list_files' input.
type ListFilesInput struct {
	Path          string `json:"path,omitempty" jsonschema:"the directory whose files to list, relative to the workspace root (default: the root)"`
	Pattern       string `json:"pattern,omitempty" jsonschema:"a glob the file names must match, such as *.go or *.{ts,tsx}"`
	Limit         int    `json:"limit,omitempty" jsonschema:"the most files to return (default 500); truncated says some were left out" minimum:"1" maximum:"10000"`
	IncludeHidden bool   `json:"include_hidden,omitempty" jsonschema:"include files whose names start with a dot"`
}

// ListFilesOutput is list_files' typed output.
type ListFilesOutput struct {
	Path      string      `json:"path"`
	Files     []FileEntry `json:"files"`
	Truncated bool        `json:"truncated"` // the limit cut files off
}

// FileEntry is one file found by list_files.
type FileEntry struct {
	Path string `json:"path"` // relative to the workspace root
	Name string `json:"name"`
	Size int64  `json:"size"` // in bytes
}

// ListFiles is a typed reference to list_files, for quiver.Call.
var ListFiles = tool.RefTo[ListFilesInput, *ListFilesOutput]("list_files")

func newListFiles() *tool.Tool {
	return withPathArgs(tool.Func("list_files", listFilesDescription, listFiles, summaryOf("path", "pattern"),
		tool.InProcess(),
		tool.ReadOnly(),
		tool.WithSubjects(func(in ListFilesInput) []tool.Subject { return tool.PathSubject(orRoot(in.Path)) })),
		onePath("path", aDir|reads, func(in ListFilesInput) string { return in.Path }))
}

const listFilesDefaultLimit = 500

func listFiles(ctx context.Context, tc tool.Context, in ListFilesInput) (*ListFilesOutput, error) {
	if in.Pattern != "" && !doublestar.ValidatePattern(in.Pattern) {
		return nil, tool.Errorf(tool.CodeInvalidArguments, "field \"pattern\": %q is not a valid glob (check its brackets and braces)", in.Pattern)
	}
	ws, rel, err := argInWorkspace(ctx, tc, "path", in.Path, aDir|reads)
	if err != nil {
		return nil, err
	}
	entries, err := ws.ReadDir(rel)
	if err != nil {
		return nil, err
	}
	limit := orDefault(in.Limit, listFilesDefaultLimit)
	stack := ws.AncestorIgnores(rel)
	out := &ListFilesOutput{Path: printable(rel), Files: []FileEntry{}}
	for _, d := range entries {
		e, ok := entryOf(ws, rel, d, stack, listOptions{hidden: in.IncludeHidden})
		if !ok || !matchName(in.Pattern, d.Name()) {
			continue
		}
		size, ok := regularSize(ws, e, d)
		if !ok {
			continue
		}
		if len(out.Files) == limit {
			out.Truncated = true
			break
		}
		out.Files = append(out.Files, FileEntry{Path: printable(e.rel), Name: printable(d.Name()), Size: size})
	}
	return out, nil
}

func matchName(pattern, name string) bool {
	if pattern == "" {
		return true
	}
	ok, _ := doublestar.Match(pattern, name)
	return ok
}

// regularSize returns the size of a regular file, or of the regular file a
// symbolic link inside the workspace leads to; other entries (directories,
// pipes, links out or dangling) are not files to list.
func regularSize(ws *workspace.Workspace, e listEntry, d fs.DirEntry) (int64, bool) {
	switch {
	case d.Type().IsRegular():
		return e.size, true
	case d.Type()&fs.ModeSymlink == 0:
		return 0, false
	}
	fi, err := ws.Stat(path.Clean(e.rel))
	if err != nil || !fi.Mode().IsRegular() {
		return 0, false
	}
	return fi.Size(), true
}
