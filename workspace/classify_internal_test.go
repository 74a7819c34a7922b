package workspace

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/quiverkit/quiver/tool"
)

// TestClassifyKnowsEscapesByIdentity: an escape is recognised as os.Root's
// own error, however it is wrapped, and an error that merely reads the same
// is not taken for one.
func TestClassifyKnowsEscapesByIdentity(t *testing.T) {
	dir, outside := t.TempDir(), t.TempDir()
	if err := os.Symlink(outside, filepath.Join(dir, "out")); err != nil {
		t.Fatal(err)
	}
	w, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if errPathEscapes == nil {
		t.Fatal("opening a workspace did not learn os.Root's escape error")
	}
	_, rootErr := w.root.Open("out/secret")
	if !errors.Is(rootErr, errPathEscapes) {
		t.Fatalf("os.Root's error for a link out = %v, not the escape error learnt", rootErr)
	}
	cases := []struct {
		name string
		err  error
		want tool.Code
	}{
		{"os.Root's error", rootErr, tool.CodeSandboxViolation},
		{"wrapped again", &os.PathError{Op: "open", Path: "x", Err: errPathEscapes}, tool.CodeSandboxViolation},
		{"a look-alike", errors.New(errPathEscapes.Error()), tool.CodeExecutionFailed},
	}
	for _, c := range cases {
		got := classify("open", "out/secret", c.err)
		if tool.CodeOf(got) != c.want || !errors.Is(got, c.err) {
			t.Errorf("%s: classify = %v (%s), want %s keeping its cause", c.name, got, tool.CodeOf(got), c.want)
		}
	}
}
