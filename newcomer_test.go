package quiver_test

import (
	"context"
	"strings"
	"testing"

	"github.com/quiverkit/quiver"
	"github.com/quiverkit/quiver/tool"
)

// TestNewcomerMistakes: what a newcomer's first program gets wrong either
// works or fails pointing to the fix (issue 33). A string holding JSON is
// arguments, as json.RawMessage is; a string that is not JSON says what
// to pass; a tool that is not read-only, with no approver, is refused
// naming quiver.WithApprover and the rule that would allow it; and the
// result's text is out.Content.Text().
func TestNewcomerMistakes(t *testing.T) {
	type in struct {
		Name string `json:"name"`
	}
	greet := tool.Func("greet", "Greets.", func(_ context.Context, _ tool.Context, in in) (string, error) {
		return "Hello, " + in.Name, nil
	})
	peek := tool.Func("peek", "Reads nothing.", func(_ context.Context, _ tool.Context, in in) (string, error) {
		return "saw " + in.Name, nil
	}, tool.ReadOnly())
	tk, err := quiver.New(quiver.WithRoot(t.TempDir()), quiver.WithTools(greet, peek))
	if err != nil {
		t.Fatal(err)
	}
	defer tk.Close()
	ctx := context.Background()

	out, err := tk.Invoke(ctx, "peek", `{"name": "Ada"}`)
	if err != nil || out.Content.Text() != `"saw Ada"` || out.Content.Text() != out.Content.String() {
		t.Errorf("a string holding JSON: %q, %v; want the output, \"saw Ada\"", out.Content.Text(), err)
	}
	_, err = tk.Invoke(ctx, "peek", "name=Ada")
	if te := tool.AsError(err); te == nil || te.Code != tool.CodeInvalidToolArgumentsType ||
		!strings.Contains(te.Message, "taken as the arguments' JSON text") || !strings.Contains(te.Message, "map[string]any") {
		t.Errorf("a string that is not JSON: %v, want INVALID_TOOL_ARGUMENTS_TYPE saying what to pass", err)
	}
	_, err = tk.Invoke(ctx, "greet", `{"name": "Ada"}`)
	if te := tool.AsError(err); te == nil || te.Code != tool.CodeApprovalDenied ||
		!strings.Contains(te.Message, "quiver.WithApprover") || !strings.Contains(te.Message, `allow it with the rule "greet"`) ||
		!strings.Contains(te.Message, "tool.ReadOnly()") {
		t.Errorf("a tool that is not read-only, no approver: %v, want APPROVAL_DENIED naming quiver.WithApprover, the rule and tool.ReadOnly()", err)
	}
}
