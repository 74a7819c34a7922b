package search

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/quiverkit/quiver/tool"
	"github.com/quiverkit/quiver/workspace"
)

// writeTree creates files (content by path) and symlinks (target by path,
// when the content starts with "->") under dir.
func writeTree(t testing.TB, dir string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if target, ok := cutPrefix(content, "->"); ok {
			if err := os.Symlink(target, p); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func cutPrefix(s, prefix string) (string, bool) {
	if len(s) >= len(prefix) && s[:len(prefix)] == prefix {
		return s[len(prefix):], true
	}
	return s, false
}

func openWS(t testing.TB, dir string) *workspace.Workspace {
	t.Helper()
	ws, err := workspace.Open(dir, workspace.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ws.Close() })
	return ws
}

// walkList returns the entries a walk visits, sorted, with a "@" suffix on
// symlinks.
func walkList(t testing.TB, ws *workspace.Workspace, start string, opts WalkOptions) ([]string, WalkStats) {
	t.Helper()
	var mu sync.Mutex
	var got []string
	st, err := Walk(context.Background(), ws, start, opts, func() VisitFunc {
		return func(e *Entry) error {
			name := e.Rel
			if e.Type&os.ModeSymlink != 0 {
				name += "@"
			}
			mu.Lock()
			got = append(got, name)
			mu.Unlock()
			return nil
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(got)
	return got, st
}

// walkTree exercises every rule of the walker.
var walkTree = map[string]string{
	".gitignore":             "*.log\nbuild/\n!keep.log\n",
	".git/info/exclude":      "excluded.txt\n",
	".git/config":            "",
	"excluded.txt":           "",
	"a.go":                   "",
	"debug.log":              "",
	"keep.log":               "",
	"build/out.o":            "",
	"src/b.go":               "",
	"src/.ignore":            "gen/\n",
	"src/gen/g.go":           "",
	"src/.quiverignore":      "secret*\n",
	"src/secret.txt":         "",
	"src/deep/.gitignore":    "/local.txt\n",
	"src/deep/local.txt":     "",
	"src/deep/c/local.txt":   "",
	".hidden.txt":            "",
	".config/x.txt":          "",
	"link-to-a":              "->a.go",
	"link-to-src":            "->src",
	"link-outside":           "->/etc/passwd",
	"caf\xe9/na\xefve.txt":   "",
	"dir with space/f [1].x": "",
}

func TestWalkHonoursIgnoreFilesAndHiddenNames(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, walkTree)
	ws := openWS(t, dir)
	got, _ := walkList(t, ws, ".", WalkOptions{})
	want := []string{
		"a.go", "caf\xe9/na\xefve.txt", "dir with space/f [1].x", "keep.log",
		"link-outside@", "link-to-a@", "link-to-src@",
		"src/b.go", "src/deep/c/local.txt",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestWalkVisitsHiddenNamesWhenAsked(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, walkTree)
	got, _ := walkList(t, openWS(t, dir), ".", WalkOptions{Hidden: true})
	for _, name := range []string{".gitignore", ".hidden.txt", ".config/x.txt", "src/.ignore"} {
		if !contains(got, name) {
			t.Errorf("%s not visited with Hidden", name)
		}
	}
	for _, name := range got {
		if name == ".git/config" || name == ".git/info/exclude" {
			t.Errorf("%s visited: .git is never walked", name)
		}
	}
}

func TestWalkWithoutIgnoreFiles(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, walkTree)
	got, _ := walkList(t, openWS(t, dir), ".", WalkOptions{NoIgnore: true})
	for _, name := range []string{"debug.log", "build/out.o", "src/gen/g.go", "src/secret.txt", "excluded.txt"} {
		if !contains(got, name) {
			t.Errorf("%s not visited with NoIgnore", name)
		}
	}
}

func TestWalkFromASubdirectoryKeepsAncestorRules(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, walkTree)
	got, _ := walkList(t, openWS(t, dir), "src", WalkOptions{})
	want := []string{"src/b.go", "src/deep/c/local.txt"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	// An ignored directory named as the start is walked: it was asked for.
	got, _ = walkList(t, openWS(t, dir), "build", WalkOptions{})
	if diff := cmp.Diff([]string{"build/out.o"}, got); diff != "" {
		t.Errorf("explicit ignored start (-want +got):\n%s", diff)
	}
}

func TestWalkFollowsSymlinksOnlyInsideAndEndsLoops(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{
		"a/f.txt":         "",
		"a/loop":          "->..",
		"a/self":          "->.",
		"b/to-a":          "->../a",
		"outside":         "->" + t.TempDir(),
		"outside-file":    "->/etc/hostname",
		"dangling":        "->nowhere",
		"a/deeper/g.txt":  "",
		"a/deeper/up":     "->../../b",
		"chain1":          "->chain2",
		"chain2":          "->chain1",
		"link-to-file.md": "->a/f.txt",
	})
	got, st := walkList(t, openWS(t, dir), ".", WalkOptions{FollowSymlinks: true})
	// Every link back to a directory the walk came through is left alone:
	// a/loop, a/self, b/to-a/loop, b/to-a/deeper/up and a/deeper/up/to-a.
	want := []string{"a/deeper/g.txt", "a/f.txt", "b/to-a/deeper/g.txt", "b/to-a/f.txt", "link-to-file.md"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	// outside, outside-file, dangling and the chain cannot be followed.
	if st.Unreadable != 5 {
		t.Errorf("Unreadable = %d, want 5 (two links out, a dangling link, a link cycle of two)", st.Unreadable)
	}
}

func TestWalkStartPaths(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{"d/f.txt": "", "g.txt": "", "escape": "->/tmp"})
	ws := openWS(t, dir)
	got, _ := walkList(t, ws, "g.txt", WalkOptions{})
	if diff := cmp.Diff([]string{"g.txt"}, got); diff != "" {
		t.Errorf("file start (-want +got):\n%s", diff)
	}
	got, _ = walkList(t, ws, filepath.Join(dir, "d"), WalkOptions{})
	if diff := cmp.Diff([]string{"d/f.txt"}, got); diff != "" {
		t.Errorf("absolute start inside (-want +got):\n%s", diff)
	}
	for start, code := range map[string]tool.Code{
		"../x":    tool.CodeSandboxViolation,
		"/etc":    tool.CodeSandboxViolation,
		"escape":  tool.CodeSandboxViolation,
		"missing": tool.CodeNotFound,
	} {
		_, err := Walk(context.Background(), ws, start, WalkOptions{}, func() VisitFunc { return func(*Entry) error { return nil } })
		if tool.CodeOf(err) != code {
			t.Errorf("start %q: %v, want code %s", start, err, code)
		}
	}
}

func TestWalkStaysInsideAnUnrestrictedWorkspace(t *testing.T) {
	ws, err := workspace.Open(t.TempDir(), workspace.Options{AllowOutside: true})
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	_, err = Walk(context.Background(), ws, "/etc", WalkOptions{}, func() VisitFunc { return func(*Entry) error { return nil } })
	if tool.CodeOf(err) != tool.CodeInvalidArguments {
		t.Errorf("walk of /etc: %v, want INVALID_ARGUMENTS", err)
	}
}

func TestWalkSpreadsABigDirectoryOverWorkers(t *testing.T) {
	dir := t.TempDir()
	const n = 3 * batchSize
	for i := 0; i < n; i++ {
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%05d", i)), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, st := walkList(t, openWS(t, dir), ".", WalkOptions{Threads: 4})
	if len(got) != n || st.Entries != n {
		t.Errorf("visited %d entries (stats %d), want %d", len(got), st.Entries, n)
	}
}

func TestWalkStopsOnSkipAllAndCancel(t *testing.T) {
	dir := t.TempDir()
	for i := 0; i < 2000; i++ {
		writeTree(t, dir, map[string]string{fmt.Sprintf("d%d/f", i%50) + fmt.Sprint(i): ""})
	}
	ws := openWS(t, dir)
	var mu sync.Mutex
	seen := 0
	_, err := Walk(context.Background(), ws, ".", WalkOptions{}, func() VisitFunc {
		return func(*Entry) error {
			mu.Lock()
			defer mu.Unlock()
			seen++
			return errSkipAll
		}
	})
	if err != nil || seen == 0 || seen > 8 {
		t.Errorf("SkipAll: err %v, %d visits, want a few", err, seen)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err = Walk(ctx, ws, ".", WalkOptions{}, func() VisitFunc { return func(*Entry) error { return nil } })
	if !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled walk: %v", err)
	}
}

var errSkipAll = fs.SkipAll

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// BenchmarkWalkHundredThousandFiles walks one directory of 100,000 files.
func BenchmarkWalkHundredThousandFiles(b *testing.B) {
	dir := b.TempDir()
	for i := 0; i < 100_000; i++ {
		f, err := os.Create(filepath.Join(dir, fmt.Sprintf("file-%06d.txt", i)))
		if err != nil {
			b.Fatal(err)
		}
		f.Close()
	}
	ws := openWS(b, dir)
	b.ResetTimer()
	for b.Loop() {
		got, _ := walkList(b, ws, ".", WalkOptions{})
		if len(got) != 100_000 {
			b.Fatalf("visited %d", len(got))
		}
	}
}

func TestGrepCountsSkippedFiles(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{
		"small.txt":  "needle\n",
		"big.txt":    strings.Repeat("needle\n", 1000),
		"binary.dat": "\x00needle\n",
	})
	ws := openWS(t, dir)
	m, _ := Compile("needle", PatternOptions{Fixed: true})
	c := NewCollector(ModeCount, 10, 0)
	st, err := Grep(context.Background(), ws, GrepRequest{Matcher: m, Start: ".", MaxFileSize: 100}, c)
	if err != nil {
		t.Fatal(err)
	}
	if st.TooLarge != 1 || st.Binary != 1 || st.Searched != 2 {
		t.Errorf("stats %+v, want 1 too large, 1 binary, 2 searched", st)
	}
	if r := c.Result(); r.TotalFiles != 1 || r.Files[0].Path != "small.txt" {
		t.Errorf("result %+v, want small.txt only", r)
	}
}
