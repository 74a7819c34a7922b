package search

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestFilterAgreesWithTheWalker asks the filter about every file of the
// tree and requires the walker's answers, from the root and from a
// subdirectory.
func TestFilterAgreesWithTheWalker(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, walkTree)
	writeTree(t, dir, map[string]string{
		"src/deep/.quiverignore":     "*.q\n",
		"src/deep/c/x.q":             "",
		"src/link-ignore/.gitignore": "->../../.gitignore",
		"src/link-ignore/a.log":      "",
	})
	ws := openWS(t, dir)
	for _, start := range []string{".", "src", "src/deep"} {
		all, _ := walkList(t, ws, start, WalkOptions{Hidden: true, NoIgnore: true})
		want, _ := walkList(t, ws, start, WalkOptions{Hidden: true})
		f := NewFilter(ws, start)
		var got []string
		for _, rel := range all {
			rel = trimLinkMark(rel)
			if f.Keep(rel) {
				got = append(got, rel)
			}
		}
		f.Close()
		for i := range want {
			want[i] = trimLinkMark(want[i])
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("start %s (-walker +filter):\n%s", start, diff)
		}
	}
}

func trimLinkMark(s string) string {
	if n := len(s); n > 0 && s[n-1] == '@' {
		return s[:n-1]
	}
	return s
}

func TestFilterRefusesPathsTheWalkerCannotReach(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{"src/a.go": "", "b.go": ""})
	f := NewFilter(openWS(t, dir), "src")
	defer f.Close()
	for _, p := range []string{"/etc/passwd", "/", "../x", "src/../b.go", "b.go", "src", "./src/a.go", "src//a.go", ""} {
		if f.Keep(p) {
			t.Errorf("Keep(%q) = true", p)
		}
	}
	if !f.Keep("src/a.go") {
		t.Error("Keep(src/a.go) = false")
	}
}
