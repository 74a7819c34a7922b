//go:build unix

package sandbox_test

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/quiverkit/quiver/sandbox"
)

// TestPrivateDir: Quiver's private directory is made 0700 in the
// temporary directory, and one that is there already is used only when it
// is a directory of the user's own that no one else may enter: another
// user could have made it first, or made it a link to a place they read.
func TestPrivateDir(t *testing.T) {
	for _, tc := range []struct {
		name  string
		setup func(t *testing.T, path string)
		ok    bool
	}{
		{"missing", func(*testing.T, string) {}, true},
		{"the user's, 0700", func(t *testing.T, p string) { mustDo(t, os.Mkdir(p, 0o700)) }, true},
		{"open to the group", func(t *testing.T, p string) { mustDo(t, os.Mkdir(p, 0o700)); mustDo(t, os.Chmod(p, 0o750)) }, false},
		{"open to everyone", func(t *testing.T, p string) { mustDo(t, os.Mkdir(p, 0o700)); mustDo(t, os.Chmod(p, 0o777)) }, false},
		{"a link to a directory", func(t *testing.T, p string) {
			target := t.TempDir()
			mustDo(t, os.Chmod(target, 0o700))
			mustDo(t, os.Symlink(target, p))
		}, false},
		{"a file", func(t *testing.T, p string) { mustDo(t, os.WriteFile(p, nil, 0o600)) }, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tmp := t.TempDir()
			t.Setenv("TMPDIR", tmp)
			want := filepath.Join(tmp, "quiver-private-"+strconv.Itoa(os.Getuid()))
			tc.setup(t, want)
			got, err := sandbox.PrivateDir()
			if !tc.ok {
				if err == nil {
					t.Fatalf("PrivateDir = %s, want a refusal", got)
				}
				return
			}
			if err != nil || got != want {
				t.Fatalf("PrivateDir = %q, %v; want %q", got, err, want)
			}
			if fi, err := os.Lstat(got); err != nil || !fi.IsDir() || fi.Mode().Perm() != 0o700 {
				t.Errorf("%s: %v, %v; want a directory of mode 0700", got, fi.Mode(), err)
			}
		})
	}
}

func mustDo(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
