package workspacetest_test

import (
	"io/fs"
	"os"
	"path"
	"testing"

	"github.com/quiverkit/quiver/workspace"
	"github.com/quiverkit/quiver/workspace/workspacetest"
)

// TestLocal runs the contract on a directory on disk: the reference
// against itself, which checks the table's expectations.
func TestLocal(t *testing.T) {
	dir := t.TempDir()
	if err := workspacetest.Materialize(dir, workspacetest.Files()); err != nil {
		t.Fatal(err)
	}
	ws, err := workspace.Open(dir, workspace.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	workspacetest.Run(t, ws)
}

// rootBackend serves a directory through the Backend interface: the
// workspace's code for backends (its own link resolution, the generic
// walker) over the files the local code reads natively.
type rootBackend struct {
	fs.FS
}

func (b rootBackend) ReadDir(name string) ([]fs.DirEntry, error) {
	return fs.ReadDir(b.FS, name)
}
func (b rootBackend) ReadLink(name string) (string, error) { return fs.ReadLink(b.FS, name) }

// Lstat reports a directory holding a .git file as a submodule, as a
// tree's gitlink is.
func (b rootBackend) Lstat(name string) (fs.FileInfo, error) {
	fi, err := fs.Lstat(b.FS, name)
	if err != nil || !fi.IsDir() {
		return fi, err
	}
	if gl, err := fs.Lstat(b.FS, path.Join(name, ".git")); err == nil && gl.Mode().IsRegular() {
		return submoduleInfo{fi}, nil
	}
	return fi, nil
}

type submoduleInfo struct{ fs.FileInfo }

func (submoduleInfo) Sys() any   { return workspace.Submodule{Commit: workspacetest.SubmoduleCommit} }
func (rootBackend) Name() string { return "the test's directory backend" }

// TestBackendOverDisk runs the contract on the files on disk served as a
// Backend.
func TestBackendOverDisk(t *testing.T) {
	dir := t.TempDir()
	if err := workspacetest.Materialize(dir, workspacetest.Files()); err != nil {
		t.Fatal(err)
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	workspacetest.Run(t, workspace.New(rootBackend{FS: root.FS()}))
}
