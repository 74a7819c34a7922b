//go:build unix

package search

import (
	"context"
	"path/filepath"
	"syscall"
	"testing"
)

func TestWalkSkipsFIFOsWithoutBlocking(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{"a.txt": "needle\n"})
	if err := syscall.Mkfifo(filepath.Join(dir, "pipe.txt"), 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	ws := openWS(t, dir)
	m, _ := Compile("needle", PatternOptions{Fixed: true})
	c := NewCollector(ModeFiles, 10, 0)
	if _, err := Grep(context.Background(), ws, GrepRequest{Matcher: m, Start: "."}, c); err != nil {
		t.Fatal(err)
	}
	if r := c.Result(); r.TotalFiles != 1 {
		t.Errorf("got %+v, want a.txt only", r)
	}
}
