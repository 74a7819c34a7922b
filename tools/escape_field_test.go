package tools_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/quiverkit/quiver"
	"github.com/quiverkit/quiver/policy"
	"github.com/quiverkit/quiver/provider/builtin"
	"github.com/quiverkit/quiver/tool"
)

// TestEscapingPathNamesItsField: a path argument that leads out of the
// workspace — by "..", absolute, or through a symbolic link — is refused
// (SANDBOX_VIOLATION) with details.field naming the argument, whether the
// toolkit refuses it before the tool runs (resolving the call's path
// subjects for the policy) or the tool itself does.
func TestEscapingPathNamesItsField(t *testing.T) {
	dir, outside := t.TempDir(), t.TempDir()
	if err := os.WriteFile(filepath.Join(outside, "s.txt"), []byte("secret\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(dir, "out")); err != nil {
		t.Fatal(err)
	}
	tk, err := quiver.New(quiver.WithRoot(dir), builtin.Standard(), quiver.WithPolicy(policy.AllowAll()))
	if err != nil {
		t.Fatal(err)
	}
	defer tk.Close()
	ways := map[string]struct{ file, dir string }{
		"dot-dot":  {"../s.txt", ".."},
		"absolute": {filepath.Join(outside, "s.txt"), outside},
		"link":     {"out/s.txt", "out"},
	}
	type call struct {
		tool  string
		args  func(file, dir string) map[string]any
		field string
	}
	calls := []call{
		{"read_file", func(f, _ string) map[string]any { return map[string]any{"path": f} }, "path"},
		{"write_file", func(f, _ string) map[string]any { return map[string]any{"path": f, "content": "x"} }, "path"},
		{"edit", func(f, _ string) map[string]any {
			return map[string]any{"path": f, "old_string": "a", "new_string": "b"}
		}, "path"},
		{"list_dirs", func(_, d string) map[string]any { return map[string]any{"path": d} }, "path"},
		{"grep_search", func(_, d string) map[string]any { return map[string]any{"pattern": "secret", "path": d} }, "path"},
		{"glob_search", func(_, d string) map[string]any { return map[string]any{"pattern": "*", "base_dir": d} }, "base_dir"},
		{"exec_command", func(_, d string) map[string]any { return map[string]any{"command": "ls", "workdir": d} }, "workdir"},
		{"apply_patch", func(f, _ string) map[string]any {
			return map[string]any{"patch": "*** Begin Patch\n*** Add File: " + f + "\n+x\n*** End Patch\n"}
		}, "patch"},
	}
	type refusal struct {
		Code  tool.Code
		Field any
	}
	for way, p := range ways {
		for _, c := range calls {
			t.Run(c.tool+"/"+way, func(t *testing.T) {
				_, err := tk.Invoke(context.Background(), c.tool, c.args(p.file, p.dir))
				te := tool.AsError(err)
				if te == nil {
					t.Fatal("the call succeeded")
				}
				if diff := cmp.Diff(refusal{tool.CodeSandboxViolation, c.field}, refusal{te.Code, te.Details["field"]}); diff != "" {
					t.Errorf("refusal (-want +got):\n%s\n%s", diff, te.Message)
				}
			})
		}
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(dir), "s.txt")); !os.IsNotExist(err) {
		t.Error("a file was written outside the workspace")
	}
}
