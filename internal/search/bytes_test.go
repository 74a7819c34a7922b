package search_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/quiverkit/quiver/internal/search"
	"github.com/quiverkit/quiver/workspace"
)

// TestSearcherAgreesWithGrep: files searched from memory give what Grep
// gives for the same files on disk, in every mode, binary files included.
func TestSearcherAgreesWithGrep(t *testing.T) {
	files := map[string]string{
		"a.go":       "package a\n\nfunc Auth() {}\n// auth again\n",
		"b/c.txt":    "no match here\nAUTH upper\n",
		"bin.dat":    "auth\x00binary auth\n",
		"long.txt":   strings.Repeat("x", 3000) + " auth " + strings.Repeat("y", 3000) + "\n",
		"empty":      "",
		"many.txt":   strings.Repeat("auth line\n", 40),
		"no-newline": "tail auth",
	}
	dir := t.TempDir()
	for name, content := range files {
		os.MkdirAll(filepath.Join(dir, filepath.Dir(name)), 0o755)
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ws, err := workspace.Open(dir, workspace.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	m, err := search.Compile("auth", search.PatternOptions{Fixed: true, IgnoreCase: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, mode := range []search.Mode{search.ModeContent, search.ModeFiles, search.ModeCount} {
		disk := search.NewCollector(mode, 30, 1)
		if _, err := search.Grep(context.Background(), ws, search.GrepRequest{Matcher: m, Start: "."}, disk); err != nil {
			t.Fatal(err)
		}
		mem := search.NewCollector(mode, 30, 1)
		s := search.NewSearcher(m, mem)
		binary := 0
		for name, content := range files {
			isBinary, err := s.Search(context.Background(), name, []byte(content))
			if err != nil {
				t.Fatal(err)
			}
			if isBinary {
				binary++
			}
		}
		if d := cmp.Diff(disk.Result(), mem.Result()); d != "" {
			t.Errorf("mode %v (-disk +memory):\n%s", mode, d)
		}
		if binary != 1 {
			t.Errorf("mode %v: %d binary files, want 1", mode, binary)
		}
	}
}
