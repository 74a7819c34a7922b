package launch

import (
	"errors"
	"fmt"
	"os"
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
func (p *Spec) mask() error {
	for _, path := range p.Masked {
		fi, err := os.Stat(path)
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			return fmt.Errorf("masking %s: %w", path, err)
		}
		if fi.IsDir() {
			if err := syscall.Mount("tmpfs", path, "tmpfs",
				syscall.MS_RDONLY|syscall.MS_NOSUID|syscall.MS_NODEV|syscall.MS_NOEXEC, "size=4k,mode=555"); err != nil {
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
	return nil
}
