//go:build unix

package workspace_test

import (
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/quiverkit/quiver/tool"
)

func TestOpenFIFODoesNotHang(t *testing.T) {
	ws, root, _ := tree(t)
	if err := syscall.Mkfifo(filepath.Join(root, "pipe"), 0o644); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		f, err := ws.Open("pipe")
		if f != nil {
			f.Close()
		}
		done <- err
	}()
	select {
	case err := <-done:
		if tool.CodeOf(err) != tool.CodeExecutionFailed || !strings.Contains(err.Error(), "not a regular file") {
			t.Errorf("Open(fifo) = %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Open blocked on a FIFO")
	}
	f, err := ws.Open("/dev/zero")
	if err == nil {
		f.Close()
		t.Error("a device outside the workspace was opened")
	}
}
