package quiver_test

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/quiverkit/quiver/sandbox/launch/launchtest"
)

// TestMain installs quiver-sandbox beside the test binary, as a program
// embedding Quiver may install it beside its own: the confined processes
// of these tests (the escape tables run hundreds) then start it instead of
// re-executing the race-enabled test binary. The re-executed launcher, a
// library's default, is what the tests of packages sandbox, sandbox/launch,
// internal/shell and tools start.
func TestMain(m *testing.M) {
	exe, err := os.Executable()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	path, err := launchtest.InstallLauncher(filepath.Dir(exe))
	switch {
	case errors.Is(err, fs.ErrExist):
		path = "" // not ours to remove
	case err != nil:
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	code := m.Run()
	if path != "" {
		os.Remove(path)
	}
	os.Exit(code)
}
