//go:build unix

package tools_test

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/quiverkit/quiver/tool"
)

// TestApplyPatchBadPaths sends the bad-input path corpus through every
// place a patch names a path: each call fails with its code and the disk,
// inside and outside the workspace, is unchanged.
func TestApplyPatchBadPaths(t *testing.T) {
	base := t.TempDir()
	root, outside := filepath.Join(base, "ws"), filepath.Join(base, "outside")
	for _, d := range []string{root, outside, filepath.Join(root, "dir")} {
		os.MkdirAll(d, 0o755)
	}
	os.WriteFile(filepath.Join(outside, "secret.txt"), []byte("secret\n"), 0o644)
	os.WriteFile(filepath.Join(root, "a.txt"), []byte("alpha\n"), 0o644)
	os.WriteFile(filepath.Join(root, "dir", "in.txt"), []byte("inner\n"), 0o644)
	for name, target := range map[string]string{"link-out": "../outside", "abs-link": filepath.Join(outside, "secret.txt"), "loop": "loop"} {
		if err := os.Symlink(target, filepath.Join(root, name)); err != nil {
			t.Fatal(err)
		}
	}
	if err := syscall.Mkfifo(filepath.Join(root, "fifo"), 0o644); err != nil {
		t.Fatal(err)
	}
	before := fileTree(t, base)

	sandbox, failed, invalid := tool.CodeSandboxViolation, tool.CodeExecutionFailed, tool.CodeInvalidArguments
	paths := []struct {
		name, path string
		code       tool.Code // for every operation; "" when it differs by operation
	}{
		{"dot-dot chain", "../outside/secret.txt", sandbox},
		{"long dot-dot chain", strings.Repeat("../", 12) + "etc/passwd", sandbox},
		{"dot-dot after a directory", "dir/../../outside/secret.txt", sandbox},
		{"absolute path outside", filepath.Join(outside, "secret.txt"), sandbox},
		{"proc self root", "/proc/self/root" + outside + "/secret.txt", sandbox},
		{"through a link to a directory outside", "link-out/secret.txt", sandbox},
		{"10,000-character path", strings.Repeat("a", 10000), invalid},
		{"NUL byte", "a\x00b", invalid},
		{"directory where a file is expected", "dir", failed},
		{"file where a directory is expected", "a.txt/x", failed},
		{"FIFO", "fifo", failed},
		{"symlink loop", "loop", ""},
		{"absolute link out of the workspace", "abs-link", ""},
	}
	ops := []struct{ name, patch string }{
		{"update", "*** Begin Patch\n*** Update File: PATH\n@@\n-secret\n+x\n*** End Patch"},
		{"delete", "*** Begin Patch\n*** Delete File: PATH\n*** End Patch"},
		{"add", "*** Begin Patch\n*** Add File: PATH\n+x\n*** End Patch"},
		{"move target", "*** Begin Patch\n*** Update File: a.txt\n*** Move to: PATH\n*** End Patch"},
	}
	for _, p := range paths {
		for _, op := range ops {
			t.Run(p.name+"/"+op.name, func(t *testing.T) {
				_, err := runPatchTool(t, root, strings.ReplaceAll(op.patch, "PATH", p.path))
				code := tool.CodeOf(err)
				switch {
				case err == nil:
					t.Fatal("apply_patch succeeded; want an error")
				case p.code != "" && code != p.code:
					t.Errorf("code = %q, want %q: %v", code, p.code, err)
				case code == "":
					t.Errorf("error without a code: %v", err)
				}
				if diff := cmp.Diff(before, fileTree(t, base)); diff != "" {
					t.Errorf("the disk changed (-before +after):\n%s", diff)
				}
			})
		}
	}
}
