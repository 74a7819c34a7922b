package sandbox

import (
	"errors"
	"fmt"
	"os"

	"golang.org/x/sys/unix"
)

// sealedPath is how a process that has the sealed program as its
// descriptor 3 (the first of exec.Cmd.ExtraFiles) names it.
const sealedPath = "/dev/fd/3"

// sealProgram returns a memfd holding exactly content, sealed against
// writes, growing, shrinking and further seals, so that nothing — the host,
// or the program reading its descriptor 3 — can change it once written,
// and the path that executes it in the process that inherits it as
// descriptor 3. Landlock leaves a memfd alone (it lives on no file system
// a path names), and the kernel resolves /dev/fd/3 in the launcher, or in
// the program's own exec, to the memfd.
func sealProgram(_ string, content []byte) (*os.File, string, func(), error) {
	const flags = unix.MFD_CLOEXEC | unix.MFD_ALLOW_SEALING
	fd, err := unix.MemfdCreate("quiver-program", flags|unix.MFD_EXEC)
	if errors.Is(err, unix.EINVAL) {
		// A kernel before 6.3 knows no MFD_EXEC; its memfds are executable.
		fd, err = unix.MemfdCreate("quiver-program", flags)
	}
	if err != nil {
		return nil, "", nil, fmt.Errorf("sandbox: sealing the program: memfd_create: %w", err)
	}
	f := os.NewFile(uintptr(fd), "quiver-program")
	if _, err := f.Write(content); err != nil {
		f.Close()
		return nil, "", nil, fmt.Errorf("sandbox: sealing the program: %w", err)
	}
	seals := unix.F_SEAL_SEAL | unix.F_SEAL_SHRINK | unix.F_SEAL_GROW | unix.F_SEAL_WRITE
	if _, err := unix.FcntlInt(f.Fd(), unix.F_ADD_SEALS, seals); err != nil {
		f.Close()
		return nil, "", nil, fmt.Errorf("sandbox: sealing the program: %w", err)
	}
	return f, sealedPath, func() {}, nil
}
