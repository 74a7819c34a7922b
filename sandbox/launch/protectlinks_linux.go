package launch

import (
	"fmt"
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"
)

// maxLinkHops bounds the links followed from one protected path, as the
// kernel's own ELOOP does.
const maxLinkHops = 40

// protectPath keeps path read-only (step 2 of protect), links included: a
// protected path, or a directory on its way, that is a symbolic link is
// pinned itself — a mount on the link makes it a mount point, which cannot
// be removed or renamed (EBUSY), so `rm quiver.toml && echo ... >
// quiver.toml` fails — and what it points to is protected in turn, through
// chains of links and into other directories. A bind mount of the link's
// path alone would follow the link, protect the target and leave the link
// replaceable. A link whose target does not exist where a confined process
// could create it is refused: nothing could keep that target from being
// made. pinned holds what is already mounted.
func (p *Spec) protectPath(path string, pinned map[string]bool, hops int) error {
	if hops > maxLinkHops {
		return fmt.Errorf("protecting %s: more than %d symbolic links", path, maxLinkHops)
	}
	root := p.writableRootOf(path)
	if root == "" {
		// Not writable as written; a link on the way may still lead into a
		// writable tree.
		if real, err := filepath.EvalSymlinks(path); err == nil && real != path {
			return p.protectPath(real, pinned, hops+1)
		}
		return nil
	}
	for _, dir := range between(root, path) {
		fi, err := os.Lstat(dir)
		if err != nil {
			return nil // missing: nothing to mount over (see the package doc)
		}
		if fi.Mode()&os.ModeSymlink != 0 {
			rest, _ := filepath.Rel(dir, path)
			return p.followLink(dir, rest, pinned, hops)
		}
		if !pinned[dir] {
			pinned[dir] = true
			if err := bindSelf(dir, false, ""); err != nil {
				return err
			}
		}
	}
	fi, err := os.Lstat(path)
	if err != nil {
		return nil
	}
	if fi.Mode()&os.ModeSymlink != 0 {
		return p.followLink(path, ".", pinned, hops)
	}
	if pinned[path] {
		return nil // already read-only as part of a protected parent
	}
	pinned[path] = true
	return bindSelf(path, true, "")
}

// followLink pins the link at link and protects rest beneath its target.
func (p *Spec) followLink(link, rest string, pinned map[string]bool, hops int) error {
	if !pinned[link] {
		pinned[link] = true
		if err := pinLink(link); err != nil {
			return err
		}
	}
	target, err := os.Readlink(link)
	if err != nil {
		return fmt.Errorf("protecting %s: %w", link, err)
	}
	if !filepath.IsAbs(target) {
		target = filepath.Join(filepath.Dir(link), target)
	}
	next := filepath.Join(target, rest)
	if _, err := os.Lstat(next); err != nil && p.MayWrite(next) {
		return fmt.Errorf("protected path %s is a symbolic link to %s, which does not exist and could be created: "+
			"create it, or remove the link", link, next)
	}
	return p.protectPath(next, pinned, hops+1)
}

// pinLink mounts the symbolic link at path over itself, not following it,
// so that the link can be neither removed nor renamed.
func pinLink(path string) error {
	fd, err := unix.OpenTree(unix.AT_FDCWD, path, unix.OPEN_TREE_CLONE|unix.OPEN_TREE_CLOEXEC|unix.AT_SYMLINK_NOFOLLOW)
	if err != nil {
		return fmt.Errorf("protecting the link %s: open_tree: %w", path, err)
	}
	defer unix.Close(fd)
	if err := unix.MoveMount(fd, "", unix.AT_FDCWD, path, unix.MOVE_MOUNT_F_EMPTY_PATH); err != nil {
		return fmt.Errorf("protecting the link %s: move_mount: %w", path, err)
	}
	return nil
}
