//go:build unix

package sandbox

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// fakeGit puts a git that runs script first on PATH and returns its path.
func fakeGit(t *testing.T, script string) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "git"), []byte("#!/bin/sh\n"+script+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", dir+string(os.PathListSeparator)+os.Getenv("PATH"))
	path, err := exec.LookPath("git")
	if err != nil {
		t.Fatal(err)
	}
	return path
}

// A git that hangs is killed at the probe's timeout, and the probe says so;
// the hang guard is the timeout itself (the test asserts the error).
func TestGitExecutablesHungGit(t *testing.T) {
	path := fakeGit(t, "sleep 3600 & sleep 3600")
	list, err := gitExecutables(path, 200*time.Millisecond)
	if !errors.Is(err, ErrGitProbeTimeout) {
		t.Fatalf("gitExecutables = %q, %v; want an error wrapping ErrGitProbeTimeout", list, err)
	}
	if _, ok := gitExecMemo.Load(path); ok {
		t.Error("a git that timed out was remembered")
	}
}

// A git that answers gives itself and its exec path.
func TestGitExecutablesAnsweringGit(t *testing.T) {
	execPath := t.TempDir()
	path := fakeGit(t, "echo "+execPath)
	list, err := gitExecutables(path, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{path, execPath}, list); diff != "" {
		t.Errorf("gitExecutables (-want +got):\n%s", diff)
	}
}
