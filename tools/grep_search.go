package tools

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/quiverkit/quiver/internal/search"
	"github.com/quiverkit/quiver/tool"
	"github.com/quiverkit/quiver/workspace"
)

//go:embed grep_search.md
var grepSearchDescription string

// GrepSearchInput is grep_search's input.
type GrepSearchInput struct {
	Pattern         string `json:"pattern" jsonschema:"a regular expression in Go RE2 syntax (no lookarounds or backreferences), matched against one line at a time; literal text when fixed_strings is true" minLength:"1"`
	Path            string `json:"path,omitempty" jsonschema:"the directory or file to search, relative to the workspace root (default: the root)"`
	FilePattern     string `json:"file_pattern,omitempty" jsonschema:"only search files matching this glob: a name glob such as *.go or *.{ts,tsx}, or a path glob with a slash such as src/**/*.go (relative to path); naming hidden files (.env*) searches them"`
	ContextLines    int    `json:"context_lines,omitempty" jsonschema:"lines of context to show before and after each match (default 0)" minimum:"0" maximum:"20"`
	CaseInsensitive bool   `json:"case_insensitive,omitempty" jsonschema:"match letters in either case"`
	FixedStrings    bool   `json:"fixed_strings,omitempty" jsonschema:"treat pattern as a literal string, not a regular expression"`
	OutputMode      string `json:"output_mode,omitempty" jsonschema:"content: the matching lines (default); files: only the paths of files with a match; count: the number of matching lines per file" enum:"content,files,count"`
	MaxResults      int    `json:"max_results,omitempty" jsonschema:"the most matching lines (content) or files (files, count) to return (default 100); the totals still count everything, so narrow the search rather than raise this far" minimum:"1" maximum:"10000"`
}

// GrepSearchOutput is grep_search's typed output.
type GrepSearchOutput struct {
	Mode         string     `json:"mode"`              // content, files or count
	Matches      []GrepLine `json:"matches,omitempty"` // content mode: matching lines and their context, by path then line
	Files        []GrepFile `json:"files,omitempty"`   // files and count modes, by path
	TotalMatches int        `json:"total_matches"`     // matching lines in all files (files mode: files with a match)
	TotalFiles   int        `json:"total_files"`       // files with a match
	Truncated    bool       `json:"truncated"`         // max_results left matches or files out
	// BudgetCut says that the workspace's backend (a remote repository)
	// reached its bound on requests or bytes before every file was read:
	// the totals count the files read.
	BudgetCut bool `json:"budget_cut,omitempty"`
}

// GrepLine is one line of grep_search's content output.
type GrepLine struct {
	Path    string `json:"path"` // relative to the workspace root
	Line    int    `json:"line"`
	Text    string `json:"text"`              // the line; a longer one cut to 500 characters around its first match
	Context bool   `json:"context,omitempty"` // a context line near a match, not a match itself
}

// GrepFile is one file of grep_search's files or count output.
type GrepFile struct {
	Path  string `json:"path"`
	Count int    `json:"count,omitempty"` // count mode: matching lines in the file
}

// GrepSearch is a typed reference to grep_search, for quiver.Call.
var GrepSearch = tool.RefTo[GrepSearchInput, *GrepSearchOutput]("grep_search")

// GrepQuery is a search request after its arguments were checked: what a
// [GrepBackend] runs.
type GrepQuery struct {
	Matcher    *search.Matcher
	Pattern    string // as given
	Fixed      bool
	IgnoreCase bool
	Start      string // directory or file, relative to the workspace root
	StartIsDir bool
	Filter     *search.PathGlob // nil: every file
	Hidden     bool             // the file pattern asks for hidden files
	// Only, when set, narrows the search to the files it keeps (relative
	// to the workspace root): a remote backend's own search picked them
	// (workspace.CodeSearcher).
	Only func(rel string) bool
}

// A GrepBackend runs one query and feeds what it finds to c. The built-in
// tools use [BuiltinGrep]; the CLI provider passes one that runs ripgrep.
// Both feed the same collector, which sorts, caps and counts, so the two
// give the same output for the same files.
type GrepBackend func(ctx context.Context, ws *workspace.Workspace, q *GrepQuery, c *search.Collector) error

// BuiltinGrep is the in-process backend.
func BuiltinGrep(ctx context.Context, ws *workspace.Workspace, q *GrepQuery, c *search.Collector) error {
	req := search.GrepRequest{Matcher: q.Matcher, Start: q.Start, Filter: q.Filter, Walk: search.WalkOptions{Hidden: q.Hidden}, Only: q.Only}
	_, err := search.Grep(ctx, ws, req, c)
	return err
}

// NewGrepSearch returns grep_search served by backend.
func NewGrepSearch(backend GrepBackend) *tool.Tool {
	run := func(ctx context.Context, tc tool.Context, in GrepSearchInput) (*GrepSearchOutput, error) {
		return grepSearch(ctx, tc, in, backend)
	}
	return withPathArgs(tool.Func("grep_search", grepSearchDescription, run, summaryOf("path", "pattern"),
		tool.InProcess(),
		tool.ReadOnly(),
		tool.WithSubjects(func(in GrepSearchInput) []tool.Subject { return tool.PathSubject(orRoot(in.Path)) })),
		onePath("path", aFile|aDir|inside|reads, func(in GrepSearchInput) string { return in.Path }))
}

const grepDefaultMax = 100

func grepSearch(ctx context.Context, tc tool.Context, in GrepSearchInput, backend GrepBackend) (*GrepSearchOutput, error) {
	opts := search.PatternOptions{Fixed: in.FixedStrings, IgnoreCase: in.CaseInsensitive}
	ws, q, err := prepareGrep(ctx, tc, in.Pattern, opts, in.Path, in.FilePattern, "file_pattern")
	if err != nil {
		return nil, err
	}
	mode := map[string]search.Mode{"": search.ModeContent, "content": search.ModeContent, "files": search.ModeFiles, "count": search.ModeCount}[in.OutputMode]
	c := search.NewCollector(mode, orDefault(in.MaxResults, grepDefaultMax), in.ContextLines)
	if err := backend(ctx, ws, q, c); err != nil {
		return nil, searchError(ctx, err)
	}
	return grepOutput(c.Result(), mode), nil
}

// prepareGrep checks a search's pattern, path and file pattern (named
// filterField in messages) and returns the query.
func prepareGrep(ctx context.Context, tc tool.Context, pattern string, opts search.PatternOptions, path, filter, filterField string) (*workspace.Workspace, *GrepQuery, error) {
	m, err := search.Compile(pattern, opts)
	if err != nil {
		return nil, nil, tool.Errorf(tool.CodeInvalidArguments, "field \"pattern\": %s", err)
	}
	q := &GrepQuery{Matcher: m, Pattern: pattern, Fixed: opts.Fixed, IgnoreCase: opts.IgnoreCase}
	if filter != "" {
		if q.Filter, err = search.CompileGlob(filter); err != nil {
			return nil, nil, tool.Errorf(tool.CodeInvalidArguments, "field %q: %s", filterField, err)
		}
		q.Hidden = search.AsksForHidden(filter)
	}
	ws, err := workspace.From(ctx, tc)
	if err != nil {
		return nil, nil, err
	}
	start, fi, err := pathArg(ws, "path", path, aFile|aDir|inside|reads)
	if err != nil {
		return nil, nil, err
	}
	q.Start, q.StartIsDir = start, fi.IsDir()
	return ws, q, nil
}

// searchError gives a backend failure its code: the call's own deadline or
// cancellation, or the backend's error.
func searchError(ctx context.Context, err error) error {
	switch {
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		return tool.Errorf(tool.CodeTimeout, "the search did not finish in time; narrow the path or the pattern")
	case ctx.Err() != nil:
		return tool.Errorf(tool.CodeCancelled, "the search was cancelled")
	}
	return tool.AsError(err)
}

func grepOutput(r search.GrepResult, mode search.Mode) *GrepSearchOutput {
	out := &GrepSearchOutput{Mode: [...]string{"content", "files", "count"}[mode],
		TotalMatches: r.TotalMatches, TotalFiles: r.TotalFiles, Truncated: r.Truncated, BudgetCut: r.BudgetCut}
	for _, f := range r.Files {
		path := printable(f.Path)
		if mode != search.ModeContent {
			out.Files = append(out.Files, GrepFile{Path: path, Count: f.Count * boolInt(mode == search.ModeCount)})
			continue
		}
		for _, l := range f.Lines {
			out.Matches = append(out.Matches, GrepLine{Path: path, Line: l.Num, Text: printable(l.Text), Context: l.Context})
		}
	}
	return out
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// Render shows matches the way grep -n and ripgrep do: a heading per file,
// "line:text" for matches, "line-text" for context, "--" between groups.
func (o *GrepSearchOutput) Render() tool.Result {
	var b strings.Builder
	switch {
	case o.TotalFiles == 0:
		b.WriteString("No matches. (Hidden files, binary files and files ignored by .gitignore, .ignore or .quiverignore are not searched.)")
		if o.BudgetCut {
			b.WriteString("\n" + budgetCutNote)
		}
		return tool.Text(b.String())
	case o.Mode == "files":
		for _, f := range o.Files {
			b.WriteString(f.Path + "\n")
		}
	case o.Mode == "count":
		for _, f := range o.Files {
			b.WriteString(f.Path + ":" + strconv.Itoa(f.Count) + "\n")
		}
	default:
		o.renderLines(&b)
	}
	if o.Truncated {
		b.WriteString("\n" + o.truncationNote() + "\n")
	}
	if o.BudgetCut {
		b.WriteString("\n" + budgetCutNote + "\n")
	}
	return tool.Text(strings.TrimSuffix(b.String(), "\n"))
}

// budgetCutNote says that a backend's bound ended a search early.
const budgetCutNote = "[the search stopped early: the repository's backend reached its bound on requests or bytes; narrow path or file_pattern to search the rest]"

// truncationNote says how much max_results left out.
func (o *GrepSearchOutput) truncationNote() string {
	const advice = "narrow the pattern, path or file_pattern, or raise max_results"
	switch o.Mode {
	case "files":
		return fmt.Sprintf("[showing the first %d of %d files with a match; %s]", len(o.Files), o.TotalFiles, advice)
	case "count":
		return fmt.Sprintf("[showing the first %d of %d files with a match (%d matching lines in all); %s]", len(o.Files), o.TotalFiles, o.TotalMatches, advice)
	}
	shown := 0
	for _, l := range o.Matches {
		if !l.Context {
			shown++
		}
	}
	return fmt.Sprintf("[showing the first %d of %d matching lines, in %d files; %s]", shown, o.TotalMatches, o.TotalFiles, advice)
}

func (o *GrepSearchOutput) renderLines(b *strings.Builder) {
	prevPath, prevLine := "", 0
	for _, l := range o.Matches {
		if l.Path != prevPath {
			if prevPath != "" {
				b.WriteString("\n")
			}
			b.WriteString(l.Path + "\n")
		} else if l.Line != prevLine+1 {
			b.WriteString("--\n")
		}
		sep := ":"
		if l.Context {
			sep = "-"
		}
		b.WriteString(strconv.Itoa(l.Line) + sep + l.Text + "\n")
		prevPath, prevLine = l.Path, l.Line
	}
}
