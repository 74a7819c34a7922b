package outputcache

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/quiverkit/quiver/tool"
)

// The tools that read stored outputs. Their answers are never trimmed into
// the cache again: they are views of a stored output already, bounded by
// their own limits.
const (
	ReadTool = "tool_output_cache"
	GrepTool = "tool_output_cache_grep"
)

// Budget is how much of one output a model's message may hold. Zero fields
// take the defaults; a negative field means no limit on that measure.
type Budget struct {
	MaxBytes      int // bytes of text (default 50 KiB)
	MaxLines      int // lines of text (default 2,000)
	MaxLineLength int // characters in one line of text (default 2,000)
}

// DefaultBudget returns the default message budget: 50 KiB, 2,000 lines,
// 2,000 characters per line.
func DefaultBudget() Budget { return Budget{}.withDefaults() }

// BudgetKey is the dependency key under which the toolkit gives tools its
// message budget (quiver.WithOutputCache, the CLI's [output] max_bytes,
// max_lines and max_line_length), so that a tool that trims its own output
// as it streams (exec_command, exec_output, exec_kill) trims it to the
// budget the pipeline holds every result to. Without a toolkit it is
// [DefaultBudget].
var BudgetKey = tool.Key[Budget]{ID: "quiver.outputcache.budget", Shared: true,
	Create: func(context.Context) (Budget, error) { return DefaultBudget(), nil }}

const noLimit = int(^uint(0) >> 1)

func (b Budget) withDefaults() Budget {
	fill := func(v *int, def int) {
		switch {
		case *v == 0:
			*v = def
		case *v < 0:
			*v = noLimit
		}
	}
	fill(&b.MaxBytes, 50<<10)
	fill(&b.MaxLines, 2000)
	fill(&b.MaxLineLength, 2000)
	return b
}

// Trim keeps res within budget for the model. If res is over it — too many
// bytes or lines of text, or a line longer than MaxLineLength — the whole
// output is stored in store and the model's view becomes the head and the
// tail of the text with the marker
//
//	[... N lines (B bytes) omitted; full output: ref=REF, read it with tool_output_cache or search it with tool_output_cache_grep ...]
//
// between them ([Marker]), long lines clipped with "[... N characters clipped ...]",
// and res.OutputRef set to the ref. What is stored is the whole result: text
// parts as they are, JSON parts indented (so that lines make sense to read
// and search), images as data: URLs, one part per line group, so that nothing
// is lost. Image parts stay in the view as they were: the budget measures
// text.
//
// A result already carrying an OutputRef (a tool that streamed its output
// into the store) is not stored again; its view is still held to the budget.
// JSON parts count by their bytes only, so that a compact JSON answer within
// the byte budget is never clipped for being one long line. res.Output, the
// typed output, is never touched. The answers of [ReadTool] and [GrepTool]
// are returned as they are.
//
// With a nil store, or when storing fails, the view is trimmed all the same
// and its marker says the rest was not kept; the error (nil for a nil store)
// is returned beside the trimmed result.
func Trim(ctx context.Context, store Store, budget Budget, toolName, callID string, res tool.Result) (tool.Result, error) {
	return TrimFrom(ctx, store, budget, Info{Tool: toolName, CallID: callID}, res)
}

// TrimFrom is [Trim] for an output described by info (its tool, call id
// and the paths it came from); Numbered is filled in from res.
func TrimFrom(ctx context.Context, store Store, budget Budget, info Info, res tool.Result) (tool.Result, error) {
	if info.Tool == ReadTool || info.Tool == GrepTool {
		return res, nil
	}
	b := budget.withDefaults()
	if fits(res, b) {
		return res, nil
	}
	ref, storeErr := res.OutputRef, error(nil)
	if ref == "" && store != nil {
		info.Numbered = linesNumbered(res)
		ref, storeErr = storeResult(ctx, store, info, res)
	}
	kept := Kept{Ref: ref, Err: storeErr, NoStore: store == nil}
	view := trimText(renderParts(res, false), b, kept)
	parts := []tool.Part{{Type: tool.PartText, Text: view}}
	for _, p := range res.Parts {
		if p.Type == tool.PartImage {
			parts = append(parts, p)
		}
	}
	res.Parts, res.OutputRef = parts, ref
	return res, storeErr
}

// linesNumbered reports whether res's typed output says its text numbers its
// lines already ([NumberedLines]).
func linesNumbered(res tool.Result) bool {
	n, ok := res.Output.(NumberedLines)
	return ok && n.LinesNumbered()
}

// fits reports whether res is within b as it is.
func fits(res tool.Result, b Budget) bool {
	size, lines := 0, 0
	for i, p := range res.Parts {
		if i > 0 {
			size++
		}
		switch p.Type {
		case tool.PartText:
			size += len(p.Text)
			lines += countLines(p.Text)
			if longestLine(p.Text, b.MaxLineLength) > b.MaxLineLength {
				return false
			}
		case tool.PartJSON:
			size += len(p.JSON)
			lines++
		}
		if size > b.MaxBytes || lines > b.MaxLines {
			return false
		}
	}
	return true
}

// longestLine returns the length in characters of s's longest line, or
// limit+1 as soon as one line is longer than limit.
func longestLine(s string, limit int) int {
	longest := 0
	for len(s) > 0 {
		line, rest, _ := strings.Cut(s, "\n")
		s = rest
		if len(line) <= longest {
			continue
		}
		if len(line) > limit && utf8.RuneCountInString(line) > limit {
			return limit + 1
		}
		longest = max(longest, min(len(line), limit))
	}
	return longest
}

// renderParts returns the result as text, parts separated by newlines:
// text as it is, JSON indented, images as a placeholder line (view) or a
// data: URL (stored).
func renderParts(res tool.Result, stored bool) string {
	if len(res.Parts) == 1 && res.Parts[0].Type == tool.PartText {
		return res.Parts[0].Text
	}
	var sb strings.Builder
	for i, p := range res.Parts {
		if i > 0 {
			sb.WriteByte('\n')
		}
		writePart(&sb, p, stored)
	}
	return sb.String()
}

func writePart(w io.Writer, p tool.Part, stored bool) {
	switch p.Type {
	case tool.PartText:
		io.WriteString(w, p.Text)
	case tool.PartJSON:
		var buf bytes.Buffer
		if json.Indent(&buf, p.JSON, "", "  ") != nil {
			w.Write(p.JSON)
			return
		}
		buf.WriteTo(w)
	case tool.PartImage:
		fmt.Fprintf(w, "[image %s, %d bytes", p.MIMEType, len(p.Data))
		if stored {
			fmt.Fprintf(w, ": data:%s;base64,", p.MIMEType)
			enc := base64.NewEncoder(base64.StdEncoding, w)
			enc.Write(p.Data)
			enc.Close()
		}
		io.WriteString(w, "]")
	}
}

// storeResult writes the whole result into a new stored output.
func storeResult(ctx context.Context, store Store, info Info, res tool.Result) (string, error) {
	w, err := store.Create(ctx, info)
	if err != nil {
		return "", err
	}
	ew := &errWriter{w: w}
	for i, p := range res.Parts {
		if i > 0 {
			ew.Write(newline)
		}
		writePart(ew, p, true)
	}
	if err := w.Close(); ew.err == nil {
		ew.err = err
	}
	if ew.err != nil {
		return "", fmt.Errorf("outputcache: store output of %s: %w", info.Tool, ew.err)
	}
	return w.Ref(), nil
}

// errWriter remembers the first write error and skips writes after it.
type errWriter struct {
	w   io.Writer
	err error
}

func (e *errWriter) Write(p []byte) (int, error) {
	if e.err != nil {
		return len(p), nil
	}
	_, e.err = e.w.Write(p)
	return len(p), nil
}
