package sandbox

import (
	"fmt"
	"syscall"
	"unsafe"
)

// canLead: on Linux a program can lead its run's process group, its exit
// status read without reaping it (see Group).
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
// reserved until the group closes.
func waitLeader(pid int) (int, error) {
	info, err := waitNoReap(pid)
	if err != nil {
		return 0, err
	}
	switch info.code {
	case cldExited:
		return int(info.status), nil
	case cldKilled, cldDumped:
		return 128 + int(info.status), nil
	}
	return 0, fmt.Errorf("waitid %d: unexpected child state %d", pid, info.code)
}

// waitExited waits for the process pid to end without reaping it; os/exec
// reaps it afterwards. An error leaves that to os/exec's own wait.
func waitExited(pid int) { waitNoReap(pid) }

func waitNoReap(pid int) (siginfo, error) {
	var info siginfo
	for {
		_, _, e := syscall.Syscall6(syscall.SYS_WAITID, pPID, uintptr(pid), uintptr(unsafe.Pointer(&info)), wExited|wNoWait, 0, 0)
		if e == syscall.EINTR {
			continue
		}
		if e != 0 {
			return info, fmt.Errorf("waitid %d: %w", pid, e)
		}
		return info, nil
	}
}

// ownPIDNamespace reports whether a process started with sys is the init of
// a PID namespace of its own (a confined program's launcher).
func ownPIDNamespace(sys *syscall.SysProcAttr) bool {
	return sys.Cloneflags&syscall.CLONE_NEWPID != 0
}
