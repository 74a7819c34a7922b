package shell

import (
	"os"
	"strconv"
)

// descriptorPath returns the path the kernel has for an open directory.
func descriptorPath(d *os.File) (string, error) {
	return os.Readlink("/proc/self/fd/" + strconv.Itoa(int(d.Fd())))
}
