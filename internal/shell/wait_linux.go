package shell

import (
	"fmt"
	"os"
	"strconv"
	"syscall"
	"unsafe"
)

// canLead: on Linux a program can lead its run's process group, its exit
// status read without reaping it (see group).
const canLead = true

const (
	pPID      = 1         // P_PID
	wExited   = 0x4       // WEXITED
	wNoWait   = 0x1000000 // WNOWAIT
	cldExited = 1         // CLD_EXITED
	cldKilled = 2         // CLD_KILLED
	cldDumped = 3         // CLD_DUMPED
)

// siginfo is the SIGCHLD view of the kernel's siginfo_t on 64-bit Linux.
type siginfo struct {
	signo, errno, code int32
	_                  int32
	pid                int32
	uid                uint32
	status             int32
	_                  [100]byte
}

// waitLeader waits for the process pid to end and returns its shell exit
// status without reaping it: the zombie keeps the process group's id
// reserved until group.reap.
func waitLeader(pid int) (int, error) {
	var info siginfo
	for {
		_, _, e := syscall.Syscall6(syscall.SYS_WAITID, pPID, uintptr(pid), uintptr(unsafe.Pointer(&info)), wExited|wNoWait, 0, 0)
		if e == syscall.EINTR {
			continue
		}
		if e != 0 {
			return 0, fmt.Errorf("waitid %d: %w", pid, e)
		}
		break
	}
	switch info.code {
	case cldExited:
		return int(info.status), nil
	case cldKilled, cldDumped:
		return 128 + int(info.status), nil
	}
	return 0, fmt.Errorf("waitid %d: unexpected child state %d", pid, info.code)
}

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

// ownPIDNamespace reports whether a process started with sys is the init of
// a PID namespace of its own (a confined program's launcher).
func ownPIDNamespace(sys *syscall.SysProcAttr) bool {
	return sys.Cloneflags&syscall.CLONE_NEWPID != 0
}
