package sandbox

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// TestSweepLegacy: what a Quiver of before own directories left — output
// files and job logs in the private directory, TMPDIRs beside it — goes
// once nothing in it changed for legacyAfter; what changed since stays.
func TestSweepLegacy(t *testing.T) {
	t.Setenv("TMPDIR", t.TempDir())
	private, err := PrivateDir()
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	old, recent := now.Add(-legacyAfter-time.Hour), now.Add(-time.Hour)
	tmp := filepath.Dir(private)
	plant := func(path string, dir bool, at time.Time) {
		t.Helper()
		if dir {
			if err := os.Mkdir(path, 0o700); err != nil {
				t.Fatal(err)
			}
			f := filepath.Join(path, "f")
			if err := os.WriteFile(f, []byte("x"), 0o600); err != nil {
				t.Fatal(err)
			}
			if err := os.Chtimes(f, at, at); err != nil {
				t.Fatal(err)
			}
		} else if err := os.WriteFile(path, []byte("x"), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(path, at, at); err != nil {
			t.Fatal(err)
		}
	}
	plant(filepath.Join(private, "exec-1.log"), false, old)
	plant(filepath.Join(private, "exec-2.log"), false, recent)
	plant(filepath.Join(private, "jobs-1"), true, old)
	plant(filepath.Join(private, "jobs-2"), true, recent)
	plant(filepath.Join(private, "other.log"), false, old) // not a name of Quiver's
	plant(filepath.Join(tmp, "quiver-call-1"), true, old)
	plant(filepath.Join(tmp, "quiver-call-2"), true, recent)
	// A directory whose entry changed lately is in use, however old it is.
	plant(filepath.Join(tmp, "quiver-call-3"), true, recent)
	if err := os.Chtimes(filepath.Join(tmp, "quiver-call-3"), old, old); err != nil {
		t.Fatal(err)
	}
	sweepLegacy(private, now)
	var left []string
	for _, dir := range []string{private, tmp} {
		entries, err := os.ReadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			left = append(left, e.Name())
		}
	}
	want := []string{"exec-2.log", "jobs-2", "other.log", "quiver-call-2", "quiver-call-3", filepath.Base(private)}
	if diff := cmp.Diff(want, left, cmpopts.SortSlices(func(a, b string) bool { return a < b })); diff != "" {
		t.Errorf("left (-want +got):\n%s", diff)
	}
}
