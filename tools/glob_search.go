package tools

import (
	"context"
	_ "embed"
	"fmt"
	"path"
	"strings"

	"github.com/quiverkit/quiver/internal/search"
	"github.com/quiverkit/quiver/tool"
	"github.com/quiverkit/quiver/workspace"
)

//go:embed glob_search.md
var globSearchDescription string

// GlobSearchInput is glob_search's input.
type GlobSearchInput struct {
	Pattern    string `json:"pattern" jsonschema:"a glob: without a / it matches file names at any depth (*.tsx); with a / it matches paths from base_dir (src/**/*_test.go, ./*.go for base_dir itself); ** matches any number of directories, * and ? match within one name, {a,b} alternatives, [abc] classes" minLength:"1"`
	BaseDir    string `json:"base_dir,omitempty" jsonschema:"the directory the pattern is relative to, relative to the workspace root (default: the root)"`
	MaxResults int    `json:"max_results,omitempty" jsonschema:"the most files to return (default 100); total still counts every match" minimum:"1" maximum:"10000"`
}

// GlobSearchOutput is glob_search's typed output.
type GlobSearchOutput struct {
	Files     []string `json:"files"`     // relative to the workspace root, most recently modified first
	Total     int      `json:"total"`     // files that match, shown or not
	Truncated bool     `json:"truncated"` // max_results left files out
}

// GlobSearch is a typed reference to glob_search, for quiver.Call.
var GlobSearch = tool.RefTo[GlobSearchInput, *GlobSearchOutput]("glob_search")

// GlobQuery is a glob request after its arguments were checked.
type GlobQuery struct {
	Base string // directory, relative to the workspace root
	// Pattern is relative to Base, as given: without a '/' it matches
	// names at any depth, with one (a leading "./" included) paths from
	// Base (see search.PlanGlob).
	Pattern string
	Hidden  bool // the pattern names hidden files or directories
}

// A GlobBackend lists the files matching q into c: regular files and
// symbolic links (not followed), with their modification times.
type GlobBackend func(ctx context.Context, ws *workspace.Workspace, q *GlobQuery, c *search.GlobCollector) error

// BuiltinGlob is the in-process backend.
func BuiltinGlob(ctx context.Context, ws *workspace.Workspace, q *GlobQuery, c *search.GlobCollector) error {
	req := search.GlobRequest{Base: q.Base, Pattern: q.Pattern, Walk: search.WalkOptions{Hidden: q.Hidden}}
	_, err := search.Glob(ctx, ws, req, c)
	return err
}

// NewGlobSearch returns glob_search served by backend.
func NewGlobSearch(backend GlobBackend) *tool.Tool {
	run := func(ctx context.Context, tc tool.Context, in GlobSearchInput) (*GlobSearchOutput, error) {
		return globSearch(ctx, tc, in, backend)
	}
	return withPathArgs(tool.Func("glob_search", globSearchDescription, run, summaryOf("pattern"),
		tool.InProcess(),
		tool.ReadOnly(),
		tool.WithSubjects(func(in GlobSearchInput) []tool.Subject { return tool.PathSubject(orRoot(in.BaseDir)) })),
		onePath("base_dir", aDir|inside|reads, func(in GlobSearchInput) string { return in.BaseDir }))
}

const globDefaultMax = 100

func globSearch(ctx context.Context, tc tool.Context, in GlobSearchInput, backend GlobBackend) (*GlobSearchOutput, error) {
	q, err := globQuery(in.Pattern)
	if err != nil {
		return nil, err
	}
	ws, base, err := argInWorkspace(ctx, tc, "base_dir", in.BaseDir, aDir|inside|reads)
	if err != nil {
		return nil, err
	}
	q.Base = base
	c := search.NewGlobCollector(orDefault(in.MaxResults, globDefaultMax))
	if err := backend(ctx, ws, q, c); err != nil {
		return nil, searchError(ctx, err)
	}
	r := c.Result()
	out := &GlobSearchOutput{Files: make([]string, 0, len(r.Files)), Total: r.Total, Truncated: r.Truncated}
	for _, f := range r.Files {
		out.Files = append(out.Files, printable(f.Path))
	}
	return out, nil
}

// globQuery checks a pattern: relative, inside base_dir, valid.
func globQuery(pattern string) (*GlobQuery, error) {
	p := pattern
	for strings.HasPrefix(p, "./") {
		p = p[2:]
	}
	switch {
	case path.IsAbs(p):
		return nil, tool.Errorf(tool.CodeInvalidArguments, "field \"pattern\": %q is absolute; give a pattern relative to base_dir (set base_dir to choose the directory)", pattern)
	case p == ".." || strings.HasPrefix(p, "../") || strings.Contains(p, "/../") || strings.HasSuffix(p, "/.."):
		return nil, tool.Errorf(tool.CodeInvalidArguments, "field \"pattern\": %q climbs out of base_dir with \"..\"; set base_dir instead", pattern)
	}
	if _, err := search.CompileGlob(p); err != nil {
		return nil, tool.Errorf(tool.CodeInvalidArguments, "field \"pattern\": %s", err)
	}
	return &GlobQuery{Pattern: pattern, Hidden: search.AsksForHidden(p)}, nil
}

// Render lists the files one per line, with a note when some were left
// out.
func (o *GlobSearchOutput) Render() tool.Result {
	if o.Total == 0 {
		return tool.Text("No files match. (Hidden files, unless the pattern names them, and files ignored by .gitignore, .ignore or .quiverignore are not listed.)")
	}
	text := strings.Join(o.Files, "\n")
	if o.Truncated {
		text += fmt.Sprintf("\n\n[showing the %d most recently modified of %d matching files; narrow the pattern or base_dir, or raise max_results]", len(o.Files), o.Total)
	}
	return tool.Text(text)
}
