package tools

import (
	"testing"

	"github.com/quiverkit/quiver/tool"
)

// TestTextNotFoundOneCode: text a call says is in a file and is not has
// one code in every tool that edits by text (issue 33): INVALID_ARGUMENTS,
// retriable, naming the field that holds the text (apply_patch's is its
// one field, patch, also in the error's details). It is the call's
// arguments that are wrong for the file as it is; the model reads the file
// again and resends them.
func TestTextNotFoundOneCode(t *testing.T) {
	env := newFileEnv(t, t.TempDir())
	env.write("a.txt", "one\ntwo\nthree\n")
	env.markRead("a.txt")
	for _, c := range []struct {
		name  string
		tool  *tool.Tool
		args  string
		field string
	}{
		{"edit", newEdit(), editArgs("a.txt", "four", "4"), "old_string"},
		{"multi_edit", newMultiEdit(), jsonArgs(map[string]any{"path": "a.txt", "edits": []map[string]any{{"old_string": "four", "new_string": "4"}}}), "old_string"},
		{"apply_patch context", newApplyPatch(), jsonArgs(map[string]any{"patch": "*** Begin Patch\n*** Update File: a.txt\n@@\n one\n-four\n+4\n*** End Patch"}), "patch"},
		{"apply_patch @@ line", newApplyPatch(), jsonArgs(map[string]any{"patch": "*** Begin Patch\n*** Update File: a.txt\n@@ four\n-two\n+2\n*** End Patch"}), "patch"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := env.run(c.tool, c.args)
			te := wantToolError(t, err, tool.CodeInvalidArguments, c.field)
			if !te.Retriable {
				t.Error("not retriable")
			}
			if c.field == "patch" && te.Details["field"] != "patch" {
				t.Errorf("details.field = %v, want patch", te.Details["field"])
			}
		})
	}
	if got := env.read("a.txt"); got != "one\ntwo\nthree\n" {
		t.Errorf("a.txt changed: %q", got)
	}
}
