//go:build unix

package shell

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/quiverkit/quiver/workspace"
)

// errSwapped is a write refused because the path changed between the gate's
// look at it and the open: a process of the same line moved a link.
var errSwapped = errors.New("the path changed while it was being opened (a symbolic link moved); refused")

// openChecked opens rel, a workspace path the shell opens for writing, after
// the gate has allowed both the path as written and the file it resolves
// to, and makes sure the file opened is that file. The gate looks at the
// links on disk; a process the same line started (in the background, say)
// may move one between that look and the open. So the resolved path's
// directory is opened and its real path read back from the descriptor
// (Linux: /proc/self/fd), which must be the directory the gate was asked
// about, and the last name is opened in it without following a link.
// Elsewhere the descriptor's path cannot be read back, and the directory is
// trusted as opened: a race with the line's own processes remains there.
//
// A refusal (the gate's, a path that cannot be resolved, or a swap) is
// returned as refusal; err is an error of the open itself.
func (st *runState) openChecked(ctx context.Context, rel string, flag int, perm os.FileMode) (f *os.File, refusal, err error) {
	ws := st.spec.Workspace
	if err := st.spec.Gate.CheckWrite(ctx, rel); err != nil {
		return nil, err, nil
	}
	resolved, err := ws.Resolve(rel)
	if err != nil {
		return nil, err, nil
	}
	if resolved != rel {
		// Resolved again now: the gate's own resolution was a moment ago.
		if err := st.spec.Gate.CheckWrite(ctx, resolved); err != nil {
			return nil, err, nil
		}
	}
	if filepath.IsAbs(resolved) {
		f, err = openForWriting(ws.Root(), resolved, flag, perm)
	} else {
		f, err = openInDir(ws, resolved, flag, perm)
	}
	if errors.Is(err, errSwapped) {
		return nil, err, nil
	}
	return f, nil, err
}

// openInDir opens resolved (a workspace-relative path with no link in it,
// as the gate saw it) through a descriptor of its directory whose real path
// is checked.
func openInDir(ws *workspace.Workspace, resolved string, flag int, perm os.FileMode) (*os.File, error) {
	dir, base := path.Split(resolved)
	if base == "" || base == "." || base == ".." {
		return nil, errors.New("is a directory")
	}
	if dir = path.Clean(dir); dir == "" {
		dir = "."
	}
	d, err := ws.Root().Open(dir)
	if err != nil {
		return nil, err
	}
	defer d.Close()
	want := filepath.Join(ws.Dir(), filepath.FromSlash(dir))
	if real, err := descriptorPath(d); err != nil {
		return nil, fmt.Errorf("cannot check where %s leads: %w", dir, err)
	} else if real != "" && real != want {
		return nil, errSwapped
	}
	fd, err := unix.Openat(int(d.Fd()), base, flag|unix.O_NOFOLLOW|unix.O_CLOEXEC|unix.O_NONBLOCK, uint32(perm.Perm()))
	if errors.Is(err, syscall.ELOOP) {
		return nil, errSwapped
	}
	if err != nil {
		return nil, err
	}
	f := os.NewFile(uintptr(fd), filepath.Join(want, base))
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		f.Close()
		return nil, errors.New("not a regular file")
	}
	return f, nil
}
