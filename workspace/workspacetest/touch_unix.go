//go:build unix

package workspacetest

import (
	"os"

	"golang.org/x/sys/unix"
)

// touch sets p's modification time (a link's own) to ModTime.
func touch(p string, link bool) error {
	if !link {
		return os.Chtimes(p, ModTime, ModTime)
	}
	tv := unix.NsecToTimeval(ModTime.UnixNano())
	return unix.Lutimes(p, []unix.Timeval{tv, tv})
}
