package sandbox

import (
	"io/fs"
	"path/filepath"
	"slices"
	"syscall"
)

// maskedNow returns the paths to mask for a process starting now: the
// masked list with its globs expanded, Quiver's private directories
// ([PrivateDir]), and every other name inside the workspace of a masked
// regular file that has more than one hard link. A mount masks a path, not
// a file, so a hard link made before the call (a process of the call
// cannot make one: the mount is another file system) would otherwise read
// the secret. The workspace is walked only when such a file exists; a link
// outside the workspace, or one to a file inside a masked directory, is
// not looked for.
func (p *Profile) maskedNow() []string {
	paths := append(expandGlobs(p.Masked), privateMasks()...)
	type fileKey struct{ dev, ino uint64 }
	linked := map[fileKey]bool{}
	for _, m := range paths {
		var st syscall.Stat_t
		if syscall.Stat(m, &st) == nil && st.Mode&syscall.S_IFMT == syscall.S_IFREG && st.Nlink > 1 {
			linked[fileKey{uint64(st.Dev), uint64(st.Ino)}] = true
		}
	}
	if len(linked) == 0 || p.Workspace == "" {
		return paths
	}
	_ = filepath.WalkDir(p.Workspace, func(path string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return nil
		}
		var st syscall.Stat_t
		if syscall.Lstat(path, &st) == nil && linked[fileKey{uint64(st.Dev), uint64(st.Ino)}] && !slices.Contains(paths, path) {
			paths = append(paths, path)
		}
		return nil
	})
	return paths
}
