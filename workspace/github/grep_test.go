package github_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/quiverkit/quiver/internal/githubtest"
	"github.com/quiverkit/quiver/internal/search"
	"github.com/quiverkit/quiver/workspace/github"
)

func TestGrepBounds(t *testing.T) {
	var files []githubtest.File
	for i := range 20 {
		files = append(files, githubtest.File{Path: fmt.Sprintf("f%02d.txt", i), Content: fmt.Appendf(nil, "line\nneedle %d\n", i)})
	}
	files = append(files, githubtest.Files("bin.dat", "needle\x00", "z/big.txt", "needle in a big file\n")...)
	files = append(files, githubtest.File{Path: "link", Content: []byte("f00.txt"), Mode: githubtest.ModeSymlink})
	e := setup(t, githubtest.Options{}, files)
	c := e.client(t, nil)
	ctx := context.Background()
	_, root, err := c.Head(ctx)
	if err != nil {
		t.Fatal(err)
	}
	all, err := c.Walk(ctx, root)
	if err != nil {
		t.Fatal(err)
	}
	m, err := search.Compile("needle", search.PatternOptions{Fixed: true})
	if err != nil {
		t.Fatal(err)
	}
	grep := func(b github.GrepBounds) ([]string, github.GrepStats) {
		t.Helper()
		col := search.NewCollector(search.ModeFiles, 100, 0)
		st, err := c.Grep(ctx, all, m, col, b)
		if err != nil {
			t.Fatal(err)
		}
		var paths []string
		for _, f := range col.Result().Files {
			paths = append(paths, f.Path)
		}
		return paths, st
	}

	e.srv.ResetLog()
	paths, st := grep(github.GrepBounds{MaxRequests: 5})
	// bin.dat is searched, and a NUL ends its search before a match, as on disk.
	if d := cmp.Diff([]string{"f00.txt", "f01.txt", "f02.txt", "f03.txt"}, paths); d != "" {
		t.Errorf("bounded by requests (-want +got):\n%s", d)
	}
	if st.Cut != 17 || st.CutBy != "requests" || st.Requests != 5 || st.Searched != 5 || st.Binary != 1 {
		t.Errorf("stats %+v", st)
	}
	if n := e.srv.Count(githubtest.RouteBlob); n != 5 {
		t.Errorf("%d blob requests, want 5", n)
	}

	// The blobs fetched are cached: the next search spends nothing on them.
	paths, st = grep(github.GrepBounds{MaxRequests: 5})
	if len(paths) != 9 || st.Requests != 5 || st.Cut != 12 {
		t.Errorf("second search: %d paths, stats %+v", len(paths), st)
	}
	paths, st = grep(github.GrepBounds{MaxBytes: 1 << 20})
	if len(paths) != 21 || st.Cut != 0 || st.CutBy != "" || st.Binary != 1 {
		t.Errorf("whole search: %d paths %v, stats %+v", len(paths), paths, st)
	}
	_, st = grep(github.GrepBounds{MaxBytes: 1, MaxFileSize: 20})
	if st.Cut != 0 || st.Requests != 0 || st.TooLarge != 1 {
		t.Errorf("everything cached: stats %+v", st)
	}
}
