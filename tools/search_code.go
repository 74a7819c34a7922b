package tools

import (
	"context"
	_ "embed"
	"strings"

	"github.com/quiverkit/quiver/internal/search"
	"github.com/quiverkit/quiver/tool"
	"github.com/quiverkit/quiver/workspace"
)

//go:embed search_code.md
var searchCodeDescription string

// SearchCodeInput is search_code's input (the agents-tools contract's
// field names).
type SearchCodeInput struct {
	Query       string `json:"query" jsonschema:"the text to look for, literally (not a regular expression); case-insensitive unless it has an upper-case letter" minLength:"1"`
	FilePattern string `json:"filePattern,omitempty" jsonschema:"only search files matching this glob: *.ts, *.{ts,tsx} (names at any depth) or src/**/*.go (a path); naming hidden files (.env*) searches them"`
	// FilePatternSnake is filePattern spelled file_pattern, for a model
	// that writes Quiver's style; give one of the two.
	FilePatternSnake string `json:"file_pattern,omitempty" jsonschema:"the same as filePattern, spelled as Quiver's other tools spell their arguments: give one of the two"`
	Limit            int    `json:"limit,omitempty" jsonschema:"the most matches to return (default 50)" minimum:"1" maximum:"1000"`
}

// SearchMatch is one line search_code found.
type SearchMatch struct {
	Path    string `json:"path"`    // relative to the workspace root
	Line    int    `json:"line"`    // 1-based
	Snippet string `json:"snippet"` // the line, trimmed; a longer one cut to 500 characters around the match
}

// SearchCode is a typed reference to search_code, for quiver.Call.
var SearchCode = tool.RefTo[SearchCodeInput, []SearchMatch]("search_code")

// NewSearchCode returns search_code served by backend.
func NewSearchCode(backend GrepBackend) *tool.Tool {
	run := func(ctx context.Context, tc tool.Context, in SearchCodeInput) ([]SearchMatch, error) {
		return searchCode(ctx, tc, in, backend)
	}
	return tool.Func("search_code", searchCodeDescription, run, summaryOf("query"), tool.ReadOnly(), tool.InProcess(),
		tool.WithSubjects(func(SearchCodeInput) []tool.Subject { return tool.PathSubject(".") }))
}

const searchCodeDefaultLimit = 50

var filePatternName = argName{contract: "filePattern", snake: "file_pattern"}

func searchCode(ctx context.Context, tc tool.Context, in SearchCodeInput, backend GrepBackend) ([]SearchMatch, error) {
	opts := search.PatternOptions{Fixed: true, IgnoreCase: !search.HasUpper(in.Query)}
	pattern, field, err := filePatternName.value(in.FilePattern, in.FilePatternSnake)
	if err != nil {
		return nil, err
	}
	ws, q, err := prepareGrep(ctx, tc, in.Query, opts, ".", pattern, field)
	if err != nil {
		return nil, renameField(err, "pattern", "query")
	}
	if cs, ok := ws.Backend().(workspace.CodeSearcher); ok {
		// The backend's own index picks the files; the engine finds the
		// lines in them as it would in every file.
		if only, ok := cs.CodeSearch(ctx, in.Query); ok {
			q.Only = only
		}
	}
	c := search.NewCollector(search.ModeContent, orDefault(in.Limit, searchCodeDefaultLimit), 0)
	if err := backend(ctx, ws, q, c); err != nil {
		return nil, searchError(ctx, err)
	}
	r := c.Result()
	out := []SearchMatch{}
	for _, f := range r.Files {
		for _, l := range f.Lines {
			out = append(out, SearchMatch{Path: printable(f.Path), Line: l.Num, Snippet: printable(strings.TrimSpace(l.Text))})
		}
	}
	if r.BudgetCut && !r.Truncated {
		return nil, budgetCutError(out)
	}
	return out, nil
}

// budgetCutError is search_code's answer when a remote backend's bound
// ended the search before its limit was met: the contract's bare list has
// no room to say that files went unread, and an empty or short list would
// read as "not there". The matches found so far travel in details.
func budgetCutError(found []SearchMatch) error {
	return tool.Errorf(tool.CodeBudgetExceeded, "the search stopped before it had read every file: the repository's backend reached its bound on files or bytes fetched for one search, after %d matches (in details.matches). The files read are kept, so the same search again reads further; a narrower filePattern reads less", len(found)).
		WithDetail("matches", found)
}

// renameField rewrites the field an INVALID_ARGUMENTS message names, for a
// tool whose input calls it otherwise.
func renameField(err error, from, to string) error {
	if te := tool.AsError(err); te.Code == tool.CodeInvalidArguments {
		te.Message = strings.Replace(te.Message, "field \""+from+"\"", "field \""+to+"\"", 1)
		return te
	}
	return err
}
