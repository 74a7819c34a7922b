package patch

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/quiverkit/quiver/tool"
)

// TestUnifiedParseErrors pins how go-gitdiff's untyped errors are shown:
// the line it names, counted in the whole patch, becomes the error's line,
// its "gitdiff: line N:" prefix is not repeated, and the error itself stays
// the cause. An upgrade of go-gitdiff that words its errors otherwise fails
// here rather than quietly losing the line.
func TestUnifiedParseErrors(t *testing.T) {
	cases := []struct {
		name  string
		patch string
		line  int
		msg   string
	}{
		{"a bad mode line", "diff --git a/f b/f\nold mode 99z\nnew mode 100644\n", 2,
			"patch line 2: unified diff: git file header: invalid mode line: invalid syntax"},
		{"after text before the diff", "intro\n\ndiff --git a/f b/f\nindex 123\n--- a/f\n+++ b/f\n@@ -1 +1 @@\n-a\n+b\n", 4,
			`patch line 4: unified diff: git file header: invalid index line: missing ".."`},
		{"a bad hunk header", "--- a/f\n+++ b/f\n@@ -x +1 @@\n-a\n+b\n", 3,
			"patch line 3: unified diff: invalid fragment header: bad start of range: x: invalid syntax"},
	}
	for _, c := range cases {
		_, err := Parse(c.patch)
		var te *tool.Error
		if !errors.As(err, &te) {
			t.Fatalf("%s: Parse = %v, want a *tool.Error", c.name, err)
		}
		got := []any{te.Code, te.Details["line"], te.Message}
		if diff := cmp.Diff([]any{tool.CodeInvalidArguments, c.line, c.msg}, got); diff != "" {
			t.Errorf("%s: code, line, message (-want +got):\n%s", c.name, diff)
		}
		if te.Err == nil || !strings.HasPrefix(te.Err.Error(), "gitdiff: line ") {
			t.Errorf("%s: cause = %v, want go-gitdiff's error", c.name, te.Err)
		}
	}
}
