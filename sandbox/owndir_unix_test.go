//go:build unix

package sandbox

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// TestSweepLegacyLeavesLinks: a link named as Quiver's, old, planted so
// that the sweep removes what it points at, is not the user's directory:
// the link stays, and so does its target.
func TestSweepLegacyLeavesLinks(t *testing.T) {
	t.Setenv("TMPDIR", t.TempDir())
	private, err := PrivateDir()
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	old := unix.NsecToTimespec(now.Add(-legacyAfter - time.Hour).UnixNano())
	target := filepath.Join(t.TempDir(), "kept")
	if err := os.Mkdir(target, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(target, "f"), []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, link := range []string{filepath.Join(filepath.Dir(private), "quiver-call-link"), filepath.Join(private, "jobs-link")} {
		if err := os.Symlink(target, link); err != nil {
			t.Fatal(err)
		}
		for _, p := range []string{filepath.Join(target, "f"), target, link} {
			if err := unix.UtimesNanoAt(unix.AT_FDCWD, p, []unix.Timespec{old, old}, unix.AT_SYMLINK_NOFOLLOW); err != nil {
				t.Fatal(err)
			}
		}
	}
	sweepLegacy(private, now)
	if _, err := os.Stat(filepath.Join(target, "f")); err != nil {
		t.Errorf("the sweep went through a link: %v", err)
	}
	for _, link := range []string{filepath.Join(filepath.Dir(private), "quiver-call-link"), filepath.Join(private, "jobs-link")} {
		if _, err := os.Lstat(link); err != nil {
			t.Errorf("the link %s was removed: %v", filepath.Base(link), err)
		}
	}
}
