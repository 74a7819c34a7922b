//go:build unix

package tools

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/quiverkit/quiver/tool"
)

// TestUnreadablePaths: a file without read permission and a directory
// without list permission get EXECUTION_FAILED "permission denied", and the
// disk is unchanged. Root reads everything whatever the mode says, so when
// the tests run as root the checks run in a child process that has dropped
// to the unprivileged user nobody (65534).
func TestUnreadablePaths(t *testing.T) {
	if os.Geteuid() != 0 {
		root := t.TempDir()
		unreadableFixture(t, root)
		before := snapshot(t, root)
		checkUnreadable(t, root)
		if diff := cmp.Diff(before, snapshot(t, root)); diff != "" {
			t.Errorf("the disk changed (-before +after):\n%s", diff)
		}
		return
	}
	// Everything the unprivileged child needs must be reachable by it: a
	// world-readable directory holding the workspace and a copy of this
	// test binary.
	base, err := os.MkdirTemp("", "quiver-unreadable-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chmod(filepath.Join(base, "ws", "noreaddir"), 0o755); os.RemoveAll(base) })
	root := filepath.Join(base, "ws")
	if err := os.Mkdir(root, 0o755); err != nil {
		t.Fatal(err)
	}
	os.Chmod(base, 0o755)
	exe := filepath.Join(base, "tools.test")
	copyExecutable(t, exe)
	unreadableFixture(t, root)
	before := snapshot(t, base)
	out, _, err := runChild(t, exe, "unreadable", root, &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}})
	if err != nil {
		var ee *exec.ExitError
		if !errors.As(err, &ee) {
			t.Skipf("running as root, and a child process cannot drop to uid 65534 here (%v); the permission cases need an unprivileged process", err)
		}
		t.Fatalf("the unprivileged child failed: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "--- PASS: TestFileToolsChild") {
		t.Fatalf("the child did not run the checks:\n%s", out)
	}
	if diff := cmp.Diff(before, snapshot(t, base)); diff != "" {
		t.Errorf("the disk changed (-before +after):\n%s", diff)
	}
}

func mkfifo(path string) error { return syscall.Mkfifo(path, 0o644) }

// childWriteOverSizeLimit runs in a process whose file size limit
// (RLIMIT_FSIZE) is 64 KiB: writing more fails in the middle of the temporary
// file with EFBIG — a real I/O failure before the rename, no test hook. Go
// ignores the SIGXFSZ that comes with it.
func childWriteOverSizeLimit(t *testing.T, root string) {
	lim := syscall.Rlimit{Cur: 64 << 10, Max: 64 << 10}
	if err := syscall.Setrlimit(syscall.RLIMIT_FSIZE, &lim); err != nil {
		t.Fatalf("setrlimit: %v", err)
	}
	env := newFileEnv(t, root)
	big := strings.Repeat("0123456789abcdef", 64<<10) // 1 MiB
	old := env.read("big.txt")
	_, err := env.run(newWriteFile(), jsonArgs(map[string]any{"path": "big.txt", "content": big, "expected_sha256": sumHex(old)}))
	wantToolError(t, err, tool.CodeExecutionFailed, "file too large")
	_, err = env.run(newEdit(), jsonArgs(map[string]any{"path": "big.txt", "old_string": "old content", "new_string": big}))
	wantToolError(t, err, tool.CodeExecutionFailed, "file too large")
	_, err = env.run(newMultiEdit(), jsonArgs(map[string]any{"path": "big.txt", "edits": []map[string]any{
		{"old_string": "old content", "new_string": "first"}, {"old_string": "first", "new_string": big}}}))
	wantToolError(t, err, tool.CodeExecutionFailed, "file too large")
}
