//go:build !unix

package search

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"time"

	"github.com/quiverkit/quiver/workspace"
)

// sysDir is an open directory as an os.Root: every child is opened through
// it, so nothing below can lead out. Symlinks are checked with Lstat before a
// directory is entered (os.Root would follow one that stays inside).
type sysDir struct{ root *os.Root }

func openRootDir(ws *workspace.Workspace, rel string) (sysDir, fileID, error) {
	if ws.Root() == nil {
		return sysDir{}, fileID{}, fmt.Errorf("open directory %s: %s has no directory on disk", rel, ws.ReadOnlyBackend())
	}
	r, err := ws.Root().OpenRoot(rel)
	if err != nil {
		return sysDir{}, fileID{}, fmt.Errorf("open directory %s: %w", rel, err)
	}
	return sysDir{root: r}, fileID{}, nil
}

func (d *sysDir) openDir(name string, _ bool) (sysDir, fileID, error) {
	fi, err := d.root.Lstat(name)
	if err != nil {
		return sysDir{}, fileID{}, err
	}
	if !fi.IsDir() {
		return sysDir{}, fileID{}, errors.New("not a directory")
	}
	r, err := d.root.OpenRoot(name)
	if err != nil {
		return sysDir{}, fileID{}, err
	}
	return sysDir{root: r}, fileID{}, nil
}

func (d *sysDir) list() ([]dirent, error) {
	entries, err := fs.ReadDir(d.root.FS(), ".")
	out := make([]dirent, 0, len(entries))
	for _, e := range entries {
		out = append(out, dirent{name: e.Name(), typ: e.Type()})
	}
	return out, err
}

func (d *sysDir) close() { d.root.Close() }

var errNotRegular = errors.New("not a regular file")

func (d *sysDir) openFile(name string) (*sysFile, error) {
	f, fi, err := statOpened(d.root.Open(name))
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		f.Close()
		return nil, errNotRegular
	}
	return &sysFile{File: f, size: fi.Size(), links: 1}, nil
}

func (d *sysDir) modTime(name string) (time.Time, error) {
	fi, err := d.root.Lstat(name)
	if err != nil {
		return time.Time{}, err
	}
	return fi.ModTime(), nil
}

// sysFile is an open regular file.
type sysFile struct {
	fs.File
	size  int64
	links uint64 // 1: this platform's FileInfo does not count hard links
}

func (f *sysFile) Size() int64 { return f.size }
