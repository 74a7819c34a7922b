package sandbox

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sync"
)

// PrivateDir returns the directory where Quiver keeps files of its own
// that no confined process may read, whichever call or session wrote
// them: background jobs' logs, exec_command's output files. Reads are open
// in the sandbox (see What the sandbox does not do), so a file the host's
// temporary directory holds, however private its mode, would be one `cat`
// away from every session's commands; this directory is masked instead, in
// every confined profile of every Quiver process of the user
// ([Profile.Masked]'s way: an empty directory mounted over it).
//
// It is quiver-private-UID in the temporary directory, made 0700 on first
// use. One that exists already must be a directory of the user's own, not a
// link, and open to no one else: another user of the machine could have
// made it first, to read what Quiver puts there.
func PrivateDir() (string, error) {
	dir := privateDirName()
	if err := os.Mkdir(dir, 0o700); err != nil && !errors.Is(err, os.ErrExist) {
		return "", fmt.Errorf("sandbox: Quiver's private directory: %w", err)
	}
	fi, err := os.Lstat(dir)
	switch {
	case err != nil:
		return "", fmt.Errorf("sandbox: Quiver's private directory: %w", err)
	case !fi.IsDir() || !ownedByUser(fi):
		return "", fmt.Errorf("sandbox: Quiver's private directory %s is not a directory of this user's; remove it", dir)
	case openToOthers(fi):
		return "", fmt.Errorf("sandbox: Quiver's private directory %s is open to others (mode %v); remove it", dir, fi.Mode().Perm())
	}
	privateDirs.Lock()
	defer privateDirs.Unlock()
	if !slices.Contains(privateDirs.made, dir) {
		privateDirs.made = append(privateDirs.made, dir)
	}
	return dir, nil
}

// privateDirs are the private directories this process has used: the
// temporary directory may have changed since (TMPDIR), and each stays
// masked.
var privateDirs struct {
	sync.Mutex
	made []string
}

func privateDirName() string { return filepath.Join(os.TempDir(), "quiver-private-"+userTag()) }

// privateMasks returns the private directories to mask: the one the
// temporary directory names now (another Quiver process of the user may
// have made it) and every one this process used.
func privateMasks() []string {
	privateDirs.Lock()
	defer privateDirs.Unlock()
	out := []string{privateDirName()}
	for _, d := range privateDirs.made {
		if !slices.Contains(out, d) {
			out = append(out, d)
		}
	}
	return out
}
