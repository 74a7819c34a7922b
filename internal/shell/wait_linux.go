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
			if link, err := os.Readlink("/proc/" + p.Name() + "/fd/" + fd.Name()); err == nil && link == target {
				syscall.Kill(pid, syscall.SIGKILL)
				break
			}
		}
	}
}
