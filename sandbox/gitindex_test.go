package sandbox

import (
	"encoding/binary"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// gitIndexRepo makes a repository with files in a few directories and two
// gitlinks, its index written in the given version, and returns its git
// directory.
func gitIndexRepo(t testing.TB, version string) string {
	dir := t.TempDir()
	git := func(args ...string) {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	git("init", "-q")
	for _, f := range []string{"a", "src/b", "src/deep/c", "src/deep/d"} {
		os.MkdirAll(filepath.Dir(filepath.Join(dir, f)), 0o755)
		os.WriteFile(filepath.Join(dir, f), []byte(f), 0o644)
	}
	git("add", ".")
	const commit = "1111111111111111111111111111111111111111"
	git("update-index", "--add", "--cacheinfo", "160000,"+commit+",src/deep/sub")
	git("update-index", "--add", "--cacheinfo", "160000,"+commit+",zz")
	git("update-index", "--index-version", version)
	return filepath.Join(dir, ".git")
}

// TestReadGitlinks: the gitlinks of indexes git itself wrote, in every
// version, are what git ls-files says they are.
func TestReadGitlinks(t *testing.T) {
	for _, v := range []string{"2", "3", "4"} {
		t.Run("version "+v, func(t *testing.T) {
			gitDir := gitIndexRepo(t, v)
			got, err := readGitlinks(gitDir, 20)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff([]string{"src/deep/sub", "zz"}, got); diff != "" {
				t.Errorf("gitlinks (-want +got):\n%s", diff)
			}
		})
	}
}

// FuzzParseIndex: no input makes the index reader panic or hang, and it
// never reports more gitlinks than the index says it has entries.
func FuzzParseIndex(f *testing.F) {
	for _, v := range []string{"2", "4"} {
		b, err := os.ReadFile(filepath.Join(gitIndexRepo(f, v), "index"))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte("DIRC\x00\x00\x00\x04\x00\x00\x00\x01"))
	f.Fuzz(func(t *testing.T, b []byte) {
		links, _, err := parseIndex(b, 20)
		if err != nil {
			return
		}
		if n := binary.BigEndian.Uint32(b[8:]); uint64(len(links)) > uint64(n) {
			t.Errorf("%d gitlinks from an index of %d entries", len(links), n)
		}
	})
}
