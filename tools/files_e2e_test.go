package tools_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/quiverkit/quiver"
	"github.com/quiverkit/quiver/policy"
	"github.com/quiverkit/quiver/provider/builtin"
	"github.com/quiverkit/quiver/tool"
	"github.com/quiverkit/quiver/tools"
)

// TestFileToolsThroughToolkit runs the file tools the way a host does:
// through quiver.New(...).Invoke and quiver.Call, with the whole pipeline
// (validation, policy, the shared read tracker) in between.
func TestFileToolsThroughToolkit(t *testing.T) {
	dir := t.TempDir()
	src := "package main\n\nfunc main() {\n\tif ready() {\n\t\trun()\n\t}\n}\n"
	if err := os.WriteFile(filepath.Join(dir, "main.go"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	tk, err := quiver.New(quiver.WithRoot(dir), builtin.Standard(), quiver.WithPolicy(policy.AllowAll()))
	if err != nil {
		t.Fatal(err)
	}
	defer tk.Close()
	ctx := context.Background()

	_, err = tk.Invoke(ctx, "write_file", map[string]any{"path": "main.go", "content": "package main\n"})
	wantCode(t, err, tool.CodeExecutionFailed, "call read_file on it first")

	if _, err := tk.Invoke(ctx, "read_file", map[string]any{"path": "main.go", "limit": 2}); err != nil {
		t.Fatal(err)
	}
	out, err := tk.Invoke(ctx, "edit", map[string]any{"path": "main.go",
		"old_string": "    if ready() {\n        run()\n    }", "new_string": "    if ready() {\n        run()\n        log()\n    }"})
	if err != nil {
		t.Fatal(err)
	}
	if view := out.Content.String(); !strings.Contains(view, "matched indentation-flexible") || !strings.Contains(view, "+\t\tlog()") {
		t.Errorf("edit's view:\n%s", view)
	}

	multi, err := quiver.Call(ctx, tk, tools.MultiEdit, tools.MultiEditInput{Path: "main.go", Edits: []tools.MultiEditItem{
		{OldString: "run()", NewString: "start()"}, {OldString: "log()", NewString: "report()"}}})
	if err != nil {
		t.Fatal(err)
	}
	if multi.Replacements != 2 {
		t.Errorf("multi_edit: %+v", multi)
	}
	// The edits were recorded as seen: the file may be overwritten now.
	if _, err := quiver.Call(ctx, tk, tools.WriteFile, tools.WriteFileInput{Path: "main.go", Content: "package main\n\nfunc main() {}\n"}); err != nil {
		t.Fatal(err)
	}
	if _, err := quiver.Call(ctx, tk, tools.WriteFile, tools.WriteFileInput{Path: "cmd/tool/main.go", Content: "package main\n"}); err != nil {
		t.Fatal(err)
	}

	dirs, err := quiver.Call(ctx, tk, tools.ListDirs, tools.ListDirsInput{})
	if err != nil || len(dirs.Dirs) != 2 || dirs.Dirs[1].Path != "cmd/tool" {
		t.Errorf("list_dirs: %+v, %v", dirs, err)
	}
	files, err := quiver.Call(ctx, tk, tools.ListFiles, tools.ListFilesInput{Pattern: "*.go"})
	if err != nil || len(files.Files) != 1 || files.Files[0].Size != int64(len("package main\n\nfunc main() {}\n")) {
		t.Errorf("list_files: %+v, %v", files, err)
	}
	tree, err := tk.Invoke(ctx, "tree", map[string]any{})
	if err != nil || !strings.Contains(tree.Content.String(), "└── main.go") {
		t.Errorf("tree: %v\n%s", err, tree.Content.String())
	}

	_, err = tk.Invoke(ctx, "edit", map[string]any{"path": "../escape.txt", "old_string": "", "new_string": "x"})
	wantCode(t, err, tool.CodeSandboxViolation, "outside the workspace")
	if _, err := os.Stat(filepath.Join(filepath.Dir(dir), "escape.txt")); !os.IsNotExist(err) {
		t.Error("a file was created outside the workspace")
	}
	bad, err := tk.Invoke(ctx, "edit", map[string]any{"path": "main.go", "old_string": "main", "new_string": "x"})
	wantCode(t, err, tool.CodeInvalidArguments, "matches 2 places (lines 1, 3)")
	if !bad.Content.IsError || !strings.HasPrefix(bad.Content.String(), "Error executing tool edit: INVALID_ARGUMENTS:") {
		t.Errorf("the model's view of the error: %s", bad.Content.String())
	}
}

func wantCode(t *testing.T, err error, code tool.Code, hint string) {
	t.Helper()
	var te *tool.Error
	if !errors.As(err, &te) || te.Code != code || !strings.Contains(te.Message, hint) {
		t.Errorf("error %v, want %s saying %q", err, code, hint)
	}
}
