//go:build unix

package workspace

import (
	"io/fs"
	"os"
	"syscall"
)

// links returns how many hard links fi's file has.
func links(fi fs.FileInfo) uint64 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Nlink)
	}
	return 1
}

func sameFile(a, b fs.FileInfo) bool { return os.SameFile(a, b) }
