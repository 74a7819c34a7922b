//go:build linux

package mcp

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestCloseStopsTheWholeProcessGroup(t *testing.T) {
	t.Parallel()
	cfg := testServer(t, "wrapped", "tools")
	pidFile := filepath.Join(cfg.Dir, "pid")
	// The server leaves a child of its own running, which exiting does not
	// stop: only killing the group does. The pid the server writes is the
	// one its (sandbox's) PID namespace gives; the host finds the child by
	// an environment variable it inherits instead.
	cfg.Env["QUIVER_TEST_PID_FILE"] = pidFile
	mark := "QUIVER_TEST_MARK=" + strconv.FormatInt(time.Now().UnixNano(), 36)
	name, value, _ := strings.Cut(mark, "=")
	cfg.Env[name] = value
	p := newProvider(t, cfg)
	if _, err := p.Tools(t.Context()); err != nil {
		t.Fatal(err)
	}
	if _, err := os.ReadFile(pidFile); err != nil {
		t.Fatal(err)
	}
	if err := p.Close(); err != nil {
		t.Logf("Close: %v", err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for pids := marked(mark); len(pids) != 0; pids = marked(mark) {
		if time.Now().After(deadline) {
			for _, pid := range pids {
				syscall.Kill(pid, syscall.SIGKILL)
			}
			t.Fatalf("the server's processes %v outlived Close", pids)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// marked returns the processes whose environment holds the entry mark.
func marked(mark string) []int {
	entries, _ := os.ReadDir("/proc")
	var pids []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		raw, _ := os.ReadFile("/proc/" + e.Name() + "/environ")
		if slices.Contains(strings.Split(string(raw), "\x00"), mark) {
			pids = append(pids, pid)
		}
	}
	return pids
}
