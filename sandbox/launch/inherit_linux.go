package launch

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"syscall"
)

// What the launcher inherits from the host and must not pass on: the
// host's file descriptors, the host's lifetime, and access to the launcher
// itself.

const (
	prSetPdeathsig = 1
	prSetDumpable  = 4
)

// procSelf is the pid of this process as /proc names it (0 without /proc),
// which is how the launcher's /proc, still the host's when it looks, names
// its parent.
var procSelf = sync.OnceValue(func() int {
	link, err := os.Readlink("/proc/self")
	if err != nil {
		return 0
	}
	pid, _ := strconv.Atoi(link)
	return pid
})

// dieWithParent has the kernel kill the launcher — and with it, as the PID
// namespace's init, every process of the call — when the process that
// started it dies, even by SIGKILL. A parent that died before the request
// took hold is seen in /proc: the launcher has been handed to another
// process. (The kernel sends the signal when the thread that started the
// launcher ends, not the process: a host must not start confined processes
// from a goroutine locked to a thread that then exits.)
func dieWithParent(parent int) error {
	if err := errnoErr(prctl(prSetPdeathsig, uintptr(syscall.SIGKILL))); err != nil {
		return fmt.Errorf("parent death signal: %w", err)
	}
	if parent == 0 {
		return nil // no /proc on the host's side
	}
	stat, err := os.ReadFile("/proc/self/stat")
	if err != nil {
		return fmt.Errorf("reading the parent: %w", err)
	}
	// pid (comm) state ppid ...: comm may hold anything but its last ')'.
	fields := strings.Fields(string(stat[bytes.LastIndexByte(stat, ')')+1:]))
	if len(fields) < 2 || fields[1] != strconv.Itoa(parent) {
		return errors.New("the process that started the launcher has ended")
	}
	return nil
}

// closeInherited closes every descriptor from first up that the launcher
// inherited: the host's files and sockets opened without O_CLOEXEC, which
// the program would otherwise be handed. The Go runtime opens all of its
// own with close-on-exec, so a descriptor without the flag is inherited.
// The rest are closed when the program execs.
func closeInherited(first int) error {
	entries, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		return fmt.Errorf("listing the inherited descriptors: %w", err)
	}
	for _, e := range entries {
		fd, err := strconv.Atoi(e.Name())
		if err != nil || fd < first {
			continue
		}
		flags, _, errno := syscall.RawSyscall(syscall.SYS_FCNTL, uintptr(fd), syscall.F_GETFD, 0)
		if errno != 0 || flags&syscall.FD_CLOEXEC != 0 {
			continue // gone (the directory's own), or the runtime's
		}
		if err := syscall.Close(fd); err != nil {
			return fmt.Errorf("closing inherited descriptor %d: %w", fd, err)
		}
	}
	return nil
}

// undumpable makes the launcher non-dumpable: it lives as long as the
// program, and the program, a process of the same user in the same Landlock
// domain, could otherwise ptrace it or write its memory through
// /proc/1/mem — and the launcher's other threads are neither Landlocked
// nor without capabilities. A non-dumpable process can be traced only with
// CAP_SYS_PTRACE, which nothing in the sandbox has.
func undumpable() error {
	if err := errnoErr(prctl(prSetDumpable, 0)); err != nil {
		return fmt.Errorf("making the launcher non-dumpable: %w", err)
	}
	return nil
}
