//go:build unix

package mcp

import (
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"
)

func TestCloseStopsTheWholeProcessGroup(t *testing.T) {
	t.Parallel()
	cfg := testServer(t, "wrapped", "tools")
	pidFile := filepath.Join(cfg.Dir, "pid")
	// The server leaves a child of its own running, which exiting does not
	// stop: only killing the group does.
	cfg.Env["QUIVER_TEST_PID_FILE"] = pidFile
	p := newProvider(t, cfg)
	if _, err := p.Tools(t.Context()); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatal(err)
	}
	child, _ := strconv.Atoi(string(b))
	if err := p.Close(); err != nil {
		t.Logf("Close: %v", err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for syscall.Kill(child, 0) == nil {
		if time.Now().After(deadline) {
			syscall.Kill(child, syscall.SIGKILL)
			t.Fatalf("the server's child process %d outlived Close", child)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
