package launch

import (
	"errors"
	"fmt"
	"os"
	"slices"
	"strconv"
	"syscall"
)

// mask mounts something empty over each path of Masked, so that no program
// of the call reads what is there, by any name: a regular file (or
// anything else that is no directory) gets /dev/null bind-mounted over it,
// read-only, and a directory an empty read-only tmpfs. A symbolic link
// that names a masked path reaches the mount; a hard link cannot be made
// to it (the mount is another file system: EXDEV), and one made before the
// call is a name of its own, masked only if listed. The mount points
// cannot be renamed or removed (EBUSY). A path that does not exist is
// skipped: there is nothing to read yet. It runs under every profile, the
// read-only one included, before the other mounts are made read-only.
//
// The call's TempDir may lie inside a masked directory (Quiver's private
// directory holds every call's, so that no call reads another's): it
// alone is mounted back, at its own path, inside the empty directory (see
// keepTempDir).
func (p *Spec) mask() error {
	keep, err := p.heldTempDir()
	if err != nil {
		return err
	}
	if keep != nil {
		defer keep.Close()
	}
	var over []string // the masks that hide TempDir, mounted writable until it is back
	for _, path := range p.Masked {
		fi, err := os.Stat(path)
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			return fmt.Errorf("masking %s: %w", path, err)
		}
		if fi.IsDir() {
			flags := uintptr(syscall.MS_RDONLY | syscall.MS_NOSUID | syscall.MS_NODEV | syscall.MS_NOEXEC)
			mode := "555"
			if keep != nil && within(path, p.TempDir) {
				// Writable by its owner, the launcher, until keepTempDir has
				// made the way to TempDir and remounted it read-only: a
				// launcher of a user other than root has no CAP_DAC_OVERRIDE
				// to write a directory of mode 555.
				flags &^= syscall.MS_RDONLY
				mode = "755"
				over = append(over, path)
			}
			if err := syscall.Mount("tmpfs", path, "tmpfs", flags, "size=4k,mode="+mode); err != nil {
				return fmt.Errorf("masking %s: empty directory: %w", path, err)
			}
			continue
		}
		if err := syscall.Mount("/dev/null", path, "", syscall.MS_BIND, ""); err != nil {
			return fmt.Errorf("masking %s: bind mount: %w", path, err)
		}
		if err := remount(path, true, ""); err != nil {
			return fmt.Errorf("masking %s: read-only remount: %w", path, err)
		}
	}
	if len(over) == 0 {
		return nil
	}
	return p.keepTempDir(keep, over)
}

// heldTempDir opens TempDir (O_PATH) when a masked directory holds it, so
// that it can be mounted back once the mask hides it; nil otherwise.
func (p *Spec) heldTempDir() (*os.File, error) {
	if p.TempDir == "" || !slices.ContainsFunc(p.Masked, func(m string) bool { return m != p.TempDir && within(m, p.TempDir) }) {
		return nil, nil
	}
	fd, err := syscall.Open(p.TempDir, oPath|syscall.O_DIRECTORY|syscall.O_NOFOLLOW|syscall.O_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("keeping the temporary directory %s: %w", p.TempDir, err)
	}
	return os.NewFile(uintptr(fd), p.TempDir), nil
}

// keepTempDir mounts the call's TempDir, held open as keep, back at its
// own path inside the masks over (each an empty tmpfs, still writable,
// that hides it), then makes those read-only: the program finds its
// TMPDIR where the environment says, and nothing else of the masked
// directory — not another call's TMPDIR, not Quiver's files. The
// directories on the way are made in the tmpfs, empty but for the next.
func (p *Spec) keepTempDir(keep *os.File, over []string) error {
	if err := os.MkdirAll(p.TempDir, 0o755); err != nil { // read-only once over is remounted
		return fmt.Errorf("keeping the temporary directory %s: %w", p.TempDir, err)
	}
	src := "/proc/self/fd/" + strconv.Itoa(int(keep.Fd()))
	if err := syscall.Mount(src, p.TempDir, "", syscall.MS_BIND|syscall.MS_REC, ""); err != nil {
		return fmt.Errorf("keeping the temporary directory %s: bind mount: %w", p.TempDir, err)
	}
	for _, path := range slices.Backward(over) {
		if err := remount(path, true, ""); err != nil && !errors.Is(err, syscall.ENOENT) {
			return fmt.Errorf("masking %s: read-only remount: %w", path, err)
		}
	}
	return nil
}
