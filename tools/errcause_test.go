package tools

import (
	"errors"
	"fmt"
	"net/url"
	"testing"

	"github.com/quiverkit/quiver/internal/edit"
	"github.com/quiverkit/quiver/internal/shell"
	"github.com/quiverkit/quiver/outputcache"
	"github.com/quiverkit/quiver/tool"
)

// TestToolErrorsKeepTheirCause: the tool errors made from another error
// wrap it, so that a host can still ask what went wrong with errors.Is and
// errors.As; the code is the tool error's own.
func TestToolErrorsKeepTheirCause(t *testing.T) {
	_, badURL := checkFetchURL("http://[::1", false)
	notFound := fmt.Errorf("r1: %w", outputcache.ErrNotFound)
	cases := []struct {
		name string
		err  error
		code tool.Code
		is   func(error) bool
	}{
		{"web_fetch: a URL that does not parse", badURL, tool.CodeInvalidArguments,
			func(err error) bool { var ue *url.Error; return errors.As(err, &ue) }},
		{"edit: old_string not found", matchError("a.go", &edit.NotFoundError{}, nil, ""), tool.CodeInvalidArguments,
			func(err error) bool { var nf *edit.NotFoundError; return errors.As(err, &nf) }},
		{"tool_output_cache: an unknown ref_id", cacheError("r1", notFound), tool.CodeInvalidArguments,
			func(err error) bool { return errors.Is(err, outputcache.ErrNotFound) }},
		{"exec_command: a syntax error", runError(&shell.SyntaxError{Line: 1, Column: 2, Message: "unclosed quote"}), tool.CodeInvalidArguments,
			func(err error) bool { var se *shell.SyntaxError; return errors.As(err, &se) }},
	}
	for _, c := range cases {
		if tool.CodeOf(c.err) != c.code || !c.is(c.err) {
			t.Errorf("%s: %v (%s), want %s keeping its cause", c.name, c.err, tool.CodeOf(c.err), c.code)
		}
	}
}
