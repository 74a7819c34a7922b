//go:build unix

package search

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"time"

	"golang.org/x/sys/unix"

	"github.com/quiverkit/quiver/workspace"
)

// sysDir is an open directory. Children are opened relative to its
// descriptor, one name at a time, with O_NOFOLLOW: no path string is ever
// resolved, so neither a symlink nor a concurrent rename can lead a walk out
// of the directory it started in.
type sysDir struct {
	fd int
	f  *os.File // owns fd once the directory is listed (ReadDir types entries by fstatat on fd when the file system does not)
}

// openRootDir opens the start directory through the workspace's os.Root,
// which follows symlinks only while they stay inside the workspace.
func openRootDir(ws *workspace.Workspace, rel string) (sysDir, fileID, error) {
	if ws.Root() == nil {
		return sysDir{}, fileID{}, fmt.Errorf("open directory %s: %s has no directory on disk", rel, ws.ReadOnlyBackend())
	}
	f, err := ws.Root().Open(rel)
	if err != nil {
		return sysDir{}, fileID{}, fmt.Errorf("open directory %s: %w", rel, err)
	}
	defer f.Close()
	// Reopen it as a plain descriptor: Go stats every entry of a directory
	// opened through an os.Root when it lists it, which costs a system call
	// per entry that the listing's own types make unnecessary.
	root := sysDir{fd: int(f.Fd())}
	d, id, err := root.openDir(".", true)
	if err != nil {
		return sysDir{}, fileID{}, fmt.Errorf("open directory %s: %w", rel, err)
	}
	return d, id, nil
}

func (d *sysDir) openDir(name string, withID bool) (sysDir, fileID, error) {
	fd, err := openat(d.fd, name, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC)
	if err != nil {
		return sysDir{}, fileID{}, err
	}
	var id fileID
	if withID {
		var st unix.Stat_t
		if err := unix.Fstat(fd, &st); err != nil {
			unix.Close(fd)
			return sysDir{}, fileID{}, err
		}
		id = fileID{uint64(st.Dev), uint64(st.Ino)}
	}
	return sysDir{fd: fd}, id, nil
}

func (d *sysDir) list() ([]dirent, error) {
	if d.f == nil {
		d.f = os.NewFile(uintptr(d.fd), "")
	}
	entries, err := d.f.ReadDir(-1)
	out := make([]dirent, 0, len(entries))
	for _, e := range entries {
		out = append(out, dirent{name: e.Name(), typ: e.Type()})
	}
	return out, err
}

func (d *sysDir) close() {
	if d.f != nil {
		d.f.Close()
		return
	}
	unix.Close(d.fd)
}

// errNotRegular is returned when a name turns out not to be a regular file
// when opened (a FIFO swapped in after the listing, say).
var errNotRegular = errors.New("not a regular file")

// openFile opens the regular file name for reading. O_NONBLOCK keeps a FIFO
// from blocking the open; such a file is refused after fstat.
func (d *sysDir) openFile(name string) (*sysFile, error) {
	fd, err := openat(d.fd, name, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_CLOEXEC)
	if err != nil {
		return nil, err
	}
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		unix.Close(fd)
		return nil, err
	}
	if st.Mode&unix.S_IFMT != unix.S_IFREG {
		unix.Close(fd)
		return nil, errNotRegular
	}
	return &sysFile{fd: fd, size: st.Size, links: uint64(st.Nlink)}, nil
}

// modTime returns the modification time of name, not following a symlink.
func (d *sysDir) modTime(name string) (time.Time, error) {
	var st unix.Stat_t
	for {
		err := unix.Fstatat(d.fd, name, &st, unix.AT_SYMLINK_NOFOLLOW)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return time.Time{}, err
		}
		return time.Unix(st.Mtim.Unix()), nil
	}
}

func openat(dirfd int, name string, flags int) (int, error) {
	for {
		fd, err := unix.Openat(dirfd, name, flags, 0)
		if err != unix.EINTR {
			return fd, err
		}
	}
}

// sysFile is a regular file opened by descriptor, read without the
// bookkeeping of *os.File (poller, finalizer) that a search of thousands of
// small files would pay for on every one.
type sysFile struct {
	fd    int
	size  int64
	links uint64 // hard links to the file
}

func (f *sysFile) Read(p []byte) (int, error) {
	for {
		n, err := unix.Read(f.fd, p)
		switch {
		case err == unix.EINTR:
			continue
		case err != nil:
			return 0, &fs.PathError{Op: "read", Err: err}
		case n == 0 && len(p) > 0:
			return 0, io.EOF
		}
		return n, nil
	}
}

func (f *sysFile) Size() int64 { return f.size }

func (f *sysFile) Close() error { return unix.Close(f.fd) }
