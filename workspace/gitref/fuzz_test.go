package gitref

import (
	"io/fs"
	"strings"
	"testing"
)

// FuzzCheckRef: a ref CheckRef accepts is never an option, a range, a
// reflog lookup or a path inside an object, and holds no byte git's
// command line or a batch request could read otherwise.
func FuzzCheckRef(f *testing.F) {
	for _, s := range []string{"main", "origin/feature", "v1.2.3", "HEAD~2", "HEAD^", "--output=x", "a..b", "x:y", "@{-1}", "a b", "a\x00b"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, ref string) {
		if CheckRef("ref", ref) != nil {
			return
		}
		if ref == "" || len(ref) > maxRef || ref[0] == '-' || strings.Contains(ref, "..") || strings.Contains(ref, "@{") ||
			strings.ContainsAny(ref, ": \t\n\r\x00\\*?[{}") {
			t.Fatalf("CheckRef accepted %q", ref)
		}
	})
}

// FuzzTreeEntry: whatever a record of ls-tree holds, parsing it never
// panics, and no name that could climb or hide a path reaches the tree.
func FuzzTreeEntry(f *testing.F) {
	oid := strings.Repeat("a", 40)
	for _, s := range []string{
		"100644 blob " + oid + "      12\tsrc/a.go",
		"120000 blob " + oid + "       5\tlink",
		"160000 commit " + oid + "       -\tvendor/lib",
		"040000 tree " + oid + "       -\tsrc",
		"100644 blob " + oid + "       1\t../x",
		"100644 blob " + oid + "       1\ta//b",
		"100644 blob " + oid + "       1\t./a",
		"100644 blob " + oid + "       1\t",
		"100644 blob zz 1\tx",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, rec []byte) {
		e, err := parseEntry(rec)
		if err != nil {
			return
		}
		root := &node{name: ".", mode: fs.ModeDir | 0o755, byName: map[string]*node{}}
		addEntry(root, e)
		var walk func(n *node)
		walk = func(n *node) {
			for _, c := range n.children {
				if c.name == "" || c.name == "." || c.name == ".." || strings.ContainsAny(c.name, "/\x00") {
					t.Fatalf("record %q put %q in the tree", rec, c.name)
				}
				walk(c)
			}
		}
		walk(root)
	})
}
