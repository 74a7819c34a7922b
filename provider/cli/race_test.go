//go:build linux

package cli

import (
	"bytes"
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/quiverkit/quiver/workspace"
)

// TestRipgrepCannotReadOutside: rg runs with the workspace as the only tree
// it may read, so a path that leads outside — a symlink it is handed, or a
// directory swapped for one while it walks — is refused by the kernel.
func TestRipgrepCannotReadOutside(t *testing.T) {
	needPrograms(t)
	rg, _ := exec.LookPath("rg")
	root, outside := t.TempDir(), t.TempDir()
	if err := os.WriteFile(filepath.Join(outside, "secret.txt"), []byte("OUTSIDE_SECRET\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(root, "link")); err != nil {
		t.Fatal(err)
	}
	r := runner{path: rg, timeout: DefaultTimeout}
	var out bytes.Buffer
	stderr, err := r.run(context.Background(), root, []string{"--no-config", "--follow", "OUTSIDE_SECRET", "link/secret.txt", "link"},
		func(rd io.Reader) error { _, err := out.ReadFrom(rd); return err })
	if strings.Contains(out.String(), "OUTSIDE_SECRET") {
		t.Fatalf("rg read outside the workspace: %q (err %v)", out.String(), err)
	}
	if !strings.Contains(stderr, "Permission denied") {
		t.Errorf("stderr %q, want the kernel's refusal", stderr)
	}
}

// TestGrepSwapRace is the red-team's race (B5): while a workspace directory
// is exchanged with a symlink to an outside directory in a loop, the
// rg-backed grep_search and search_code never return outside content.
func TestGrepSwapRace(t *testing.T) {
	needPrograms(t)
	rg, _ := exec.LookPath("rg")
	root, outside := t.TempDir(), t.TempDir()
	for dir, text := range map[string]string{filepath.Join(root, "swap"): "INSIDE_TOCTOU", outside: "OUTSIDE_TOCTOU"} {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "secret.txt"), []byte(text+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(outside, filepath.Join(root, "swapL")); err != nil {
		t.Fatal(err)
	}
	ws, err := workspace.Open(root, workspace.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	list, _ := New(Options{LookPath: func(string) (string, error) { return rg, nil }}).Tools(context.Background())

	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { // exchange swap and swapL until told to stop
		defer wg.Done()
		for {
			select {
			case <-stop:
				return
			default:
			}
			unix.Renameat2(unix.AT_FDCWD, filepath.Join(root, "swap"), unix.AT_FDCWD, filepath.Join(root, "swapL"), unix.RENAME_EXCHANGE)
		}
	}()
	defer func() { close(stop); wg.Wait() }()
	for i := range 15 {
		for _, c := range []struct{ tool, args string }{
			{"grep_search", `{"pattern":"TOCTOU","path":"swap"}`},
			{"search_code", `{"query":"TOCTOU"}`},
		} {
			res, err := call(t, ws, toolByName(t, list, c.tool), c.args)
			if text := res.String() + errText(err); strings.Contains(text, "OUTSIDE_TOCTOU") {
				t.Fatalf("try %d: %s returned outside content: %s", i, c.tool, text)
			}
		}
	}
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
