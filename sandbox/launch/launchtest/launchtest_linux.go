package launchtest

import (
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"

	"github.com/quiverkit/quiver/sandbox/launch"
)

// InstallLauncher builds quiver-sandbox, without the race detector, into
// dir, as `go install ./cmd/quiver ./cmd/quiver-sandbox` puts it beside
// quiver, and returns its path. A binary in dir then starts it for every
// confined process instead of re-executing itself: in a race-enabled test
// binary, the race runtime's start-up and the package initialisation of a
// large program cost several times the launcher's own work, and the escape
// tables start hundreds of confined processes.
//
// It fails unless the launcher it installed is one Quiver would trust
// there (launch's TrustedSibling): a test must not believe it runs the
// sibling while Quiver quietly re-executes itself, or the other way round.
// It never replaces a file that is there already (an error wrapping
// fs.ErrExist). Call it from TestMain. The launcher's own code is tested under the race
// detector by package sandbox/launch, which re-executes itself.
func InstallLauncher(dir string) (string, error) {
	path := filepath.Join(dir, launch.SiblingName)
	if _, err := os.Lstat(path); err == nil {
		return "", fmt.Errorf("%s exists already: %w", path, fs.ErrExist)
	}
	build := exec.Command("go", "build", "-o", path, "github.com/quiverkit/quiver/cmd/quiver-sandbox")
	if out, err := build.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build ./cmd/quiver-sandbox: %w\n%s", err, out)
	}
	ws, err := os.MkdirTemp("", "sandboxtest-ws")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(ws)
	if err := (launch.Spec{Workspace: ws}).TrustedSibling(path); err != nil {
		return "", fmt.Errorf("the launcher installed for the tests would not be started: %w", err)
	}
	return path, nil
}
