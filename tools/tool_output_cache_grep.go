package tools

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"strings"

	"github.com/quiverkit/quiver/outputcache"
	"github.com/quiverkit/quiver/tool"
)

//go:embed tool_output_cache_grep.md
var toolOutputCacheGrepDescription string

// Limits of one tool_output_cache_grep answer.
const (
	cacheGrepDefaultMatches = 50
	cacheGrepLineBytes      = 1000 // of one shown line; longer ones show a window
)

// ToolOutputCacheGrepInput is tool_output_cache_grep's input.
type ToolOutputCacheGrepInput struct {
	RefID      string `json:"ref_id" jsonschema:"the ref a trimmed output's marker names (ref=out_...), exactly" minLength:"1"`
	Pattern    string `json:"pattern" jsonschema:"the text to find in each line; literal unless regex is true" minLength:"1"`
	Regex      bool   `json:"regex,omitempty" jsonschema:"treat pattern as a regular expression (RE2 syntax; (?i) for case-insensitive)"`
	Before     int    `json:"before,omitempty" jsonschema:"lines of context before each match (default 0)" minimum:"0" maximum:"50"`
	After      int    `json:"after,omitempty" jsonschema:"lines of context after each match (default 0)" minimum:"0" maximum:"50"`
	MaxMatches int    `json:"max_matches,omitempty" jsonschema:"the most matching lines to show (default 50); all are counted. Read around a match with tool_output_cache at its line" minimum:"1" maximum:"500"`
}

// ToolOutputCacheGrepOutput is tool_output_cache_grep's typed output.
type ToolOutputCacheGrepOutput struct {
	RefID      string `json:"ref_id"`
	Tool       string `json:"tool,omitempty"` // the tool whose output this is
	Pattern    string `json:"pattern"`
	Content    string `json:"content"` // grep -n style: "N:match", "N-context", "--" between groups
	Matches    int64  `json:"matches"` // matching lines in the whole output
	Shown      int    `json:"shown"`   // matching lines in content
	NotShown   int64  `json:"not_shown"`
	TotalLines int64  `json:"total_lines"`
	// AnswerFull says matches were left out because the answer reached its
	// size limit (64 KB) before max_matches.
	AnswerFull bool `json:"answer_full,omitempty"`
}

// ToolOutputCacheGrep is a typed reference to tool_output_cache_grep, for quiver.Call.
var ToolOutputCacheGrep = tool.RefTo[ToolOutputCacheGrepInput, *ToolOutputCacheGrepOutput](outputcache.GrepTool)

func newToolOutputCacheGrep() *tool.Tool {
	return tool.Func(outputcache.GrepTool, toolOutputCacheGrepDescription, grepCachedOutput, summaryOf("pattern", "ref_id"), tool.ReadOnly(), tool.InProcess())
}

func grepCachedOutput(ctx context.Context, tc tool.Context, in ToolOutputCacheGrepInput) (*ToolOutputCacheGrepOutput, error) {
	switch {
	case in.Before < 0 || in.After < 0:
		return nil, tool.Errorf(tool.CodeInvalidArguments, "before and after must be 0 or more, got %d and %d", in.Before, in.After)
	case in.MaxMatches < 0:
		return nil, tool.Errorf(tool.CodeInvalidArguments, "max_matches %d: must be at least 1", in.MaxMatches)
	}
	if in.MaxMatches == 0 {
		in.MaxMatches = cacheGrepDefaultMatches
	}
	out, err := openCachedOutput(ctx, tc, in.RefID)
	if err != nil {
		return nil, err
	}
	defer out.Close()
	found, err := out.Grep(ctx, outputcache.GrepOptions{Pattern: in.Pattern, Regex: in.Regex,
		Before: min(in.Before, 50), After: min(in.After, 50), MaxMatches: min(in.MaxMatches, 500), LineBytes: cacheGrepLineBytes})
	if errors.Is(err, outputcache.ErrBadPattern) {
		return nil, tool.Errorf(tool.CodeInvalidArguments, "pattern %q: %w", in.Pattern, err)
	}
	if err != nil {
		return nil, cacheError(in.RefID, err)
	}
	res := &ToolOutputCacheGrepOutput{RefID: in.RefID, Tool: out.Tool, Pattern: in.Pattern, Matches: found.Matches, TotalLines: out.Lines}
	res.Content, res.Shown, res.AnswerFull = renderCacheGroups(found.Groups)
	res.NotShown = found.Matches - int64(res.Shown)
	return res, nil
}

// renderCacheGroups writes groups grep -n style until the answer is full, and
// returns the text and how many matching lines it holds.
func renderCacheGroups(groups [][]outputcache.GrepLine) (text string, shown int, full bool) {
	var b strings.Builder
	for i, g := range groups {
		var gb strings.Builder
		if i > 0 {
			gb.WriteString("--\n")
		}
		matches := 0
		for _, l := range g {
			sep := byte('-')
			if l.Match {
				sep = ':'
				matches++
			}
			gb.WriteString(cacheNumberLine(l.N, sep, cacheLineText(l.Line)))
			gb.WriteByte('\n')
		}
		if b.Len()+gb.Len() > cacheAnswerBytes-cacheNotesBytes {
			return b.String(), shown, true
		}
		b.WriteString(gb.String())
		shown += matches
	}
	return b.String(), shown, false
}

// cacheLineText marks what a long line's window leaves out.
func cacheLineText(l outputcache.Line) string {
	s := l.Text
	if l.CutBefore > 0 {
		s = fmt.Sprintf("[... %d bytes ...]", l.CutBefore) + s
	}
	if l.CutAfter > 0 {
		s += fmt.Sprintf("[... %d bytes ...]", l.CutAfter)
	}
	return s
}

// Render shows the matches and says what was not shown.
func (o *ToolOutputCacheGrepOutput) Render() tool.Result {
	var b strings.Builder
	b.WriteString(o.Content)
	switch {
	case o.Matches == 0:
		fmt.Fprintf(&b, "(no line of the %d in %s matches %q)\n", o.TotalLines, o.RefID, o.Pattern)
	case o.NotShown == 0:
		fmt.Fprintf(&b, "(%d matching lines of %d)\n", o.Matches, o.TotalLines)
	case o.AnswerFull:
		fmt.Fprintf(&b, "(%d matching lines of %d; %d more not shown: the answer is full; narrow the pattern or use less context)\n",
			o.Matches, o.TotalLines, o.NotShown)
	default:
		fmt.Fprintf(&b, "(%d matching lines of %d; %d more not shown; raise max_matches (up to 500) or narrow the pattern)\n",
			o.Matches, o.TotalLines, o.NotShown)
	}
	return tool.Text(strings.TrimSuffix(b.String(), "\n"))
}
