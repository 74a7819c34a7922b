package tools

import (
	"context"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/quiverkit/quiver/tool"
	"github.com/quiverkit/quiver/tool/tooltest"
)

// spellingFixture is a workspace with a file, a directory holding a file,
// and nothing else.
func spellingFixture(t testing.TB) *fileEnv {
	root := t.TempDir()
	env := newFileEnv(t, root)
	env.write("a.txt", "alpha\n")
	env.write("d/b.txt", "beta\n")
	return env
}

// TestFileToolsRefuseDirectorySpellings: a path spelled as a directory — a
// trailing slash, a last element "." or ".." — names no file, whatever the
// workspace's lexical cleaning would make of it. read_file, edit and
// multi_edit refuse it with INVALID_ARGUMENTS naming the field, and write
// nothing.
func TestFileToolsRefuseDirectorySpellings(t *testing.T) {
	env := spellingFixture(t)
	abs := filepath.Join(env.root, "a.txt")
	refused := []string{"a.txt/", "a.txt//", "a.txt/.", "a.txt/./", "d/b.txt/", "d/../a.txt/", abs + "/", abs + "/.", "d/b.txt/..", "d/", "./", "new.txt/"}
	accepted := []string{"a.txt", "./a.txt", "d/../a.txt", "d//b.txt", abs}
	before := snapshot(t, env.root)
	for _, p := range refused {
		for _, tl := range []struct {
			name string
			tool *tool.Tool
			args string
		}{
			{"read_file", newReadFile(), jsonArgs(map[string]any{"path": p})},
			{"edit", newEdit(), editArgs(p, "alpha", "ALPHA")},
			{"edit creating", newEdit(), editArgs(p, "", "new\n")},
			{"multi_edit", newMultiEdit(), jsonArgs(map[string]any{"path": p, "edits": []map[string]any{{"old_string": "alpha", "new_string": "ALPHA"}}})},
		} {
			t.Run(tl.name+" refuses "+p, func(t *testing.T) {
				_, err := env.run(tl.tool, tl.args)
				te := wantToolError(t, err, tool.CodeInvalidArguments, `field "path"`, "names a directory")
				if te.Details["field"] != "path" {
					t.Errorf("details.field = %v, want path", te.Details["field"])
				}
			})
		}
	}
	if diff := cmp.Diff(before, snapshot(t, env.root)); diff != "" {
		t.Errorf("refused calls changed the workspace (-before +after):\n%s", diff)
	}
	for _, p := range accepted {
		t.Run("read_file reads "+p, func(t *testing.T) {
			if got := env.runOK(newReadFile(), jsonArgs(map[string]any{"path": p})).String(); !strings.Contains(got, "\t") {
				t.Errorf("read_file %s: %q", p, got)
			}
		})
	}
}

// FuzzReadFileSpelling checks read_file against the system: it reads a
// relative path exactly when the kernel opens that path as a regular file,
// so that no spelling means one thing to Quiver and another to the programs
// the model runs. Paths with a ".." element are left out: the workspace
// resolves them lexically ("x/../a.txt" is a.txt even without a directory
// x), a difference of the workspace's own, not of the spelling of a file.
func FuzzReadFileSpelling(f *testing.F) {
	for _, s := range []string{"a.txt", "a.txt/", "a.txt/.", "a.txt//", "d/b.txt", "d/b.txt/", "d/../a.txt", "d/", ".", "./a.txt", "d/./b.txt/.", "a.txt/..", "d/.//b.txt"} {
		f.Add(s)
	}
	env := spellingFixture(f)
	rf := newReadFile()
	f.Fuzz(func(t *testing.T, p string) {
		if p == "" || path.IsAbs(p) || slices.Contains(strings.Split(p, "/"), "..") || strings.ContainsRune(p, 0) {
			return
		}
		raw, err := tooltest.Validate(rf, jsonArgs(map[string]any{"path": p}))
		if err == nil {
			_, err = rf.Execute(context.Background(), env.context(rf.Name), raw)
		}
		fi, serr := os.Stat(env.root + "/" + p) // not filepath.Join, which cleans p
		kernel := serr == nil && fi.Mode().IsRegular()
		if (err == nil) != kernel {
			t.Fatalf("path %q: read_file error %v, but the system opens it as a file: %v", p, err, kernel)
		}
	})
}
