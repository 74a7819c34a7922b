package shell

import (
	"fmt"
	"os"
	"strconv"
	"syscall"
)

// killPipeHolders kills every other process that holds an end of the pipe
// f belongs to: what is left of a run after its process group is dead are
// programs that left the group (setsid, daemons) while keeping the run's
// output, and they would otherwise hold the output open, and run, for ever.
func killPipeHolders(f *os.File) {
	var st syscall.Stat_t
	rc, err := f.SyscallConn()
	if err != nil {
		return
	}
	var serr error
	// Not f.Fd(): it would make the pipe blocking, and Close could no longer
	// interrupt the copy's read.
	if err := rc.Control(func(fd uintptr) { serr = syscall.Fstat(int(fd), &st) }); err != nil || serr != nil {
		return
	}
	target := fmt.Sprintf("pipe:[%d]", st.Ino)
	killHolders(func(fd string) bool {
		link, err := os.Readlink(fd)
		return err == nil && link == target
	})
}

// killTTYHolders kills every other process that holds the terminal's slave
// side, for the reason killPipeHolders kills a pipe's holders. The slave is
// known by its device and inode, not by its name: another mount
// namespace's /dev/pts has names of its own.
func killTTYHolders(t *TTY) {
	var want syscall.Stat_t
	if err := syscall.Stat(t.slave.Name(), &want); err != nil {
		return
	}
	killHolders(func(fd string) bool {
		var st syscall.Stat_t
		return syscall.Stat(fd, &st) == nil && st.Dev == want.Dev && st.Ino == want.Ino && st.Rdev == want.Rdev
	})
}

// killHolders kills every other process with a descriptor (named by its
// path in /proc) that holds matches.
func killHolders(holds func(fd string) bool) {
	procs, err := os.ReadDir("/proc")
	if err != nil {
		return
	}
	self := os.Getpid()
	for _, p := range procs {
		pid, err := strconv.Atoi(p.Name())
		if err != nil || pid == self {
			continue
		}
		fds, err := os.ReadDir("/proc/" + p.Name() + "/fd")
		if err != nil {
			continue
		}
		for _, fd := range fds {
			if holds("/proc/" + p.Name() + "/fd/" + fd.Name()) {
				syscall.Kill(pid, syscall.SIGKILL)
				break
			}
		}
	}
}
