package workspace_test

import (
	"errors"
	"io/fs"
	"slices"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/quiverkit/quiver/tool"
	"github.com/quiverkit/quiver/workspace"
)

// mapBackend is a Backend over an fstest.MapFS whose listings also hold
// forged entries, named as no real tree names them.
type mapBackend struct {
	fstest.MapFS
	forged []string
}

func (b mapBackend) Name() string { return "test map" }

func (b mapBackend) ReadDir(name string) ([]fs.DirEntry, error) {
	entries, err := b.MapFS.ReadDir(name)
	for _, f := range b.forged {
		entries = append(entries, fs.FileInfoToDirEntry(forgedInfo(f)))
	}
	return entries, err
}

type forgedInfo string

func (f forgedInfo) Name() string     { return string(f) }
func (forgedInfo) Size() int64        { return 1 }
func (forgedInfo) Mode() fs.FileMode  { return 0o644 }
func (forgedInfo) ModTime() time.Time { return time.Time{} }
func (forgedInfo) IsDir() bool        { return false }
func (forgedInfo) Sys() any           { return nil }

func newMapWorkspace(forged ...string) *workspace.Workspace {
	return workspace.New(mapBackend{MapFS: fstest.MapFS{
		"a.txt":     {Data: []byte("a\n")},
		"d/b.txt":   {Data: []byte("b\n")},
		"d/up":      {Data: []byte("../../x"), Mode: fs.ModeSymlink},
		"d/abs":     {Data: []byte("/etc/passwd"), Mode: fs.ModeSymlink},
		"d/sibling": {Data: []byte("../a.txt"), Mode: fs.ModeSymlink},
	}, forged: forged})
}

// TestBackendRefusesWrites: a backend's workspace writes nothing, and says
// which backend it is.
func TestBackendRefusesWrites(t *testing.T) {
	ws := newMapWorkspace()
	for name, err := range map[string]error{
		"WriteFile": ws.WriteFile("a.txt", []byte("x"), 0o644),
		"MkdirAll":  ws.MkdirAll("new", 0o755),
		"Remove":    ws.Remove("a.txt"),
		"Open":      func() error { _, err := ws.Open("a.txt"); return err }(),
	} {
		te := tool.AsError(err)
		if te.Code != tool.CodeToolNotAllowed || !errors.Is(err, workspace.ErrReadOnly) || !strings.Contains(te.Message, "test map") {
			t.Errorf("%s: %v (%s), want TOOL_NOT_ALLOWED naming the backend", name, err, te.Code)
		}
	}
	if ws.Dir() != "" || ws.Root() != nil || ws.ReadOnlyBackend() != "test map" {
		t.Errorf("Dir %q, Root %v, ReadOnlyBackend %q", ws.Dir(), ws.Root(), ws.ReadOnlyBackend())
	}
}

// TestBackendConfines: the workspace's rules hold in a backend — no
// climbing, no absolute paths, no link out, whatever the backend would
// answer.
func TestBackendConfines(t *testing.T) {
	ws := newMapWorkspace()
	for _, p := range []string{"../a.txt", "/a.txt", "d/../../a.txt", "d/up", "d/abs"} {
		if _, err := ws.OpenRead(p); tool.AsError(err).Code != tool.CodeSandboxViolation {
			t.Errorf("OpenRead(%q): %v, want SANDBOX_VIOLATION", p, err)
		}
	}
	f, err := ws.OpenRead("d/sibling")
	if err != nil {
		t.Fatalf("a link inside the tree: %v", err)
	}
	f.Close()
	if target, err := ws.Readlink("d/up"); err != nil || target != "../../x" {
		t.Errorf("Readlink: %q, %v; want the target as stored", target, err)
	}
}

// TestBackendForgedNames: an entry named "..", "../x", "a/b", "" or with a
// NUL byte, which no real tree holds, is never listed nor walked.
func TestBackendForgedNames(t *testing.T) {
	forged := []string{"..", "../x", "a/b", "", "x\x00y", "."}
	ws := newMapWorkspace(forged...)
	entries, err := ws.ReadDir(".")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if want := []string{"a.txt", "d"}; !slices.Equal(names, want) {
		t.Errorf("ReadDir: %q, want %q", names, want)
	}
	var walked []string
	err = ws.Walk(".", workspace.WalkOptions{Hidden: true}, func(rel string, d fs.DirEntry) error {
		walked = append(walked, rel)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"a.txt", "d", "d/abs", "d/b.txt", "d/sibling", "d/up"}; !slices.Equal(walked, want) {
		t.Errorf("Walk: %q, want %q", walked, want)
	}
}
