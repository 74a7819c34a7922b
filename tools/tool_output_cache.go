package tools

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/quiverkit/quiver/outputcache"
	"github.com/quiverkit/quiver/tool"
	"github.com/quiverkit/quiver/workspace"
)

//go:embed tool_output_cache.md
var toolOutputCacheDescription string

// Limits of one tool_output_cache answer.
const (
	cacheReadDefaultLines = 2000
	cacheAnswerBytes      = 64 << 10 // numbered lines included
	cacheLineNumberWidth  = 7        // "%6d\t"
	cacheNotesBytes       = 256      // room for the notes at the end of an answer
)

// ToolOutputCacheInput is tool_output_cache's input.
type ToolOutputCacheInput struct {
	RefID  string `json:"ref_id" jsonschema:"the ref a trimmed output's marker names (ref=out_...), exactly" minLength:"1"`
	Offset int64  `json:"offset,omitempty" jsonschema:"the 1-based line to start at (default 1); a cut answer names the offset to continue from" minimum:"0"`
	Limit  int64  `json:"limit,omitempty" jsonschema:"how many lines to return (default 2000; one answer holds at most 64 KB)" minimum:"1"`
}

// ToolOutputCacheOutput is tool_output_cache's typed output.
type ToolOutputCacheOutput struct {
	RefID string `json:"ref_id"`
	Tool  string `json:"tool,omitempty"` // the tool whose output this is
	// Content is the lines numbered cat -n style, or as stored when the
	// output numbers its lines already (Numbered).
	Content    string `json:"content"`
	Numbered   bool   `json:"numbered,omitempty"`
	StartLine  int64  `json:"start_line"` // first line shown (0 when none)
	EndLine    int64  `json:"end_line"`   // last line shown (0 when none)
	TotalLines int64  `json:"total_lines"`
	Size       int64  `json:"size"`
	Truncated  bool   `json:"truncated"`             // lines after end_line exist and were not shown
	NextOffset int64  `json:"next_offset,omitempty"` // the offset to continue from, when truncated
	CutLines   int    `json:"cut_lines,omitempty"`   // lines shown only in part (longer than an answer)
	// DroppedBytes is what the tool wrote past the store's size limit; the
	// store never had it.
	DroppedBytes int64 `json:"dropped_bytes,omitempty"`
}

// read_file's output numbers its lines; stored, it is shown without a
// second number.
var _ outputcache.NumberedLines = (*ReadFileOutput)(nil)

// ToolOutputCache is a typed reference to tool_output_cache, for quiver.Call.
var ToolOutputCache = tool.RefTo[ToolOutputCacheInput, *ToolOutputCacheOutput](outputcache.ReadTool)

func newToolOutputCache() *tool.Tool {
	return tool.Func(outputcache.ReadTool, toolOutputCacheDescription, readCachedOutput, summaryOf("ref_id"), tool.ReadOnly(), tool.InProcess())
}

func readCachedOutput(ctx context.Context, tc tool.Context, in ToolOutputCacheInput) (*ToolOutputCacheOutput, error) {
	if in.Limit < 0 {
		return nil, tool.Errorf(tool.CodeInvalidArguments, "limit %d: must be at least 1", in.Limit)
	}
	if in.Offset < 0 {
		return nil, tool.Errorf(tool.CodeInvalidArguments, "offset %d: lines are numbered from 1", in.Offset)
	}
	out, err := openCachedOutput(ctx, tc, in.RefID)
	if err != nil {
		return nil, err
	}
	defer out.Close()
	first, limit := max(in.Offset, 1), in.Limit
	if limit == 0 {
		limit = cacheReadDefaultLines
	}
	textBytes := max(cacheAnswerBytes-cacheNotesBytes-cacheLineNumberWidth*int(min(limit, cacheReadDefaultLines)), 16<<10)
	page, err := out.ReadLines(ctx, first, limit, textBytes)
	if errors.Is(err, outputcache.ErrPastEnd) {
		return nil, tool.Errorf(tool.CodeInvalidArguments,
			"offset %d is past the end: output %s has %d lines (offsets 1 to %d)", first, in.RefID, out.Lines, out.Lines)
	}
	if err != nil {
		return nil, cacheError(in.RefID, err)
	}
	res := &ToolOutputCacheOutput{RefID: in.RefID, Tool: out.Tool, TotalLines: out.Lines, Size: out.Size, Numbered: out.Numbered,
		DroppedBytes: out.Dropped, NextOffset: page.Next, Truncated: page.Next != 0}
	res.Content, res.CutLines = renderCachePage(page.Lines, out.Numbered)
	if n := len(page.Lines); n > 0 {
		res.StartLine, res.EndLine = page.Lines[0].N, page.Lines[n-1].N
	}
	return res, nil
}

// renderCachePage writes lines cat -n style, or as they are when they carry
// numbers of their own, and returns how many were shown only in part.
func renderCachePage(lines []outputcache.Line, numbered bool) (string, int) {
	var b strings.Builder
	cut := 0
	which := "line"
	if numbered {
		which = "stored line" // the number shown is the tool's own
	}
	for _, l := range lines {
		if numbered {
			b.WriteString(strings.ToValidUTF8(l.Text, "\uFFFD"))
		} else {
			b.WriteString(cacheNumberLine(l.N, '\t', l.Text))
		}
		if l.CutAfter > 0 {
			cut++
			fmt.Fprintf(&b, " [... %s %d continues for %d more bytes; search in it with %s ...]", which, l.N, l.CutAfter, outputcache.GrepTool)
		}
		b.WriteByte('\n')
	}
	return b.String(), cut
}

// openCachedOutput opens ref in the toolkit's output cache.
func openCachedOutput(ctx context.Context, tc tool.Context, ref string) (*outputcache.Output, error) {
	store, err := tool.Resolve(ctx, tc, outputcache.Key)
	if err != nil || store == nil {
		return nil, tool.Errorf(tool.CodeExecutionFailed, "this toolkit has no output cache, so there is no stored output to read")
	}
	out, err := store.Open(ctx, ref)
	if err != nil {
		return nil, cacheError(ref, err)
	}
	if err := checkCachedPaths(ctx, tc, out); err != nil {
		out.Close()
		return nil, err
	}
	return out, nil
}

// checkCachedPaths refuses an output that came from a path the read deny
// names now: a read deny means every reader, the stored copy of a file
// included (a dir store outlives the toolkit that filled it, and the policy
// may have changed since).
func checkCachedPaths(ctx context.Context, tc tool.Context, out *outputcache.Output) error {
	if len(out.Paths) == 0 {
		return nil
	}
	ws, err := workspace.From(ctx, tc)
	if err != nil {
		return nil // no workspace, no guard to ask
	}
	for _, p := range out.Paths {
		if rule, denied := ws.ReadDeniedPath(p); denied {
			return &tool.Error{Code: tool.CodeToolNotAllowed, Err: workspace.ErrReadDenied,
				Message: fmt.Sprintf("output %s came from %s, which the policy rule %s denies reading", out.Ref, p, rule)}
		}
	}
	return nil
}

// cacheError turns a store's error into one a model can act on.
func cacheError(ref string, err error) error {
	switch {
	case errors.Is(err, outputcache.ErrMalformedRef):
		return tool.Errorf(tool.CodeInvalidArguments, "ref_id %w; copy it from the marker of a trimmed output", err)
	case errors.Is(err, outputcache.ErrNotFound):
		return tool.Errorf(tool.CodeInvalidArguments, "ref_id %w", err)
	case errors.Is(err, outputcache.ErrInProgress):
		te := tool.Errorf(tool.CodeExecutionFailed, "ref_id %w; read it once the call, or the background job or session (exec_command's job or session id), that produces it has ended", err)
		te.Retriable = true
		return te
	case errors.Is(err, outputcache.ErrUnavailable):
		return tool.Errorf(tool.CodeStoreUnavailable, "reading %s: %w; the output may well be there: try again later", ref, err)
	case errors.Is(err, context.Canceled):
		return tool.Errorf(tool.CodeCancelled, "reading %s: %w", ref, err)
	case errors.Is(err, context.DeadlineExceeded):
		return tool.Errorf(tool.CodeTimeout, "reading %s: %w", ref, err)
	}
	return tool.Errorf(tool.CodeExecutionFailed, "reading %s: %w", ref, err)
}

// cacheNumberLine formats one line as cat -n does (sep '\t') or grep -n does
// (sep ':' for a match, '-' for context), without a newline.
func cacheNumberLine(n int64, sep byte, text string) string {
	num := strconv.FormatInt(n, 10)
	if len(num) < 6 {
		num = strings.Repeat(" ", 6-len(num)) + num
	}
	return num + string(sep) + strings.ToValidUTF8(text, "\uFFFD")
}

// Render shows the numbered lines, and how to continue when there is more.
func (o *ToolOutputCacheOutput) Render() tool.Result {
	var b strings.Builder
	b.WriteString(o.Content)
	lines := "lines"
	if o.Numbered {
		// The numbers shown are the tool's own; offset counts stored lines.
		lines = "stored lines (numbered by " + o.Tool + ")"
	}
	switch {
	case o.TotalLines == 0:
		fmt.Fprintf(&b, "(output %s is empty)\n", o.RefID)
	case o.Truncated:
		fmt.Fprintf(&b, "(%s %d-%d of %d; continue with offset=%d)\n", lines, o.StartLine, o.EndLine, o.TotalLines, o.NextOffset)
	default:
		fmt.Fprintf(&b, "(%s %d-%d of %d: the end of the output)\n", lines, o.StartLine, o.EndLine, o.TotalLines)
	}
	if o.DroppedBytes > 0 {
		fmt.Fprintf(&b, "(the tool wrote %d more bytes after these, past the cache's size limit; they were not kept)\n", o.DroppedBytes)
	}
	return tool.Text(strings.TrimSuffix(b.String(), "\n"))
}
