//go:build unix

package sandbox

import (
	"os"
	"strconv"
	"syscall"
)

// userTag names the user in the private directory's name.
func userTag() string { return strconv.Itoa(os.Getuid()) }

// ownedByUser reports whether fi belongs to this process's user.
func ownedByUser(fi os.FileInfo) bool {
	st, ok := fi.Sys().(*syscall.Stat_t)
	return ok && int(st.Uid) == os.Getuid()
}

// openToOthers reports whether fi's mode lets anyone but its owner in.
func openToOthers(fi os.FileInfo) bool { return fi.Mode().Perm()&0o077 != 0 }
