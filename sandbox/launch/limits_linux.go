package launch

import (
	"encoding/json"
	"fmt"
	"os"
	"runtime"
	"syscall"
	"unsafe"
)

// rlimitNproc is RLIMIT_NPROC, which package syscall does not name.
const rlimitNproc = 6

// set applies l to this process, soft and hard limits equal: a process may
// lower a hard limit but never raise it without CAP_SYS_RESOURCE in the
// host's user namespace, which nothing confined has, so no descendant can
// take a limit back. A limit the host already set lower is kept.
func (l Limits) set() error {
	for _, r := range []struct {
		name     string
		resource int
		value    int64
	}{{"processes", rlimitNproc, int64(l.Processes)}, {"memory", syscall.RLIMIT_DATA, l.MemoryBytes}, {"cpu time", syscall.RLIMIT_CPU, l.CPUSeconds}} {
		if r.value <= 0 {
			continue
		}
		var cur syscall.Rlimit
		if err := syscall.Getrlimit(r.resource, &cur); err != nil {
			return fmt.Errorf("reading the %s limit: %w", r.name, err)
		}
		v := min(uint64(r.value), cur.Max)
		if err := syscall.Setrlimit(r.resource, &syscall.Rlimit{Cur: v, Max: v}); err != nil {
			return fmt.Errorf("setting the %s limit: %w", r.name, err)
		}
	}
	return nil
}

// cpuExceeded reports whether a process that ended with ws after using ru
// was killed at the CPU time limit. rusage's user and system times are
// sampled, and may add up to less than the run time the kernel holds
// against the limit (0.95 s, once, for a limit of 1 s): a SIGKILL after
// half the limit counts. Nothing else in the namespace sends SIGKILL but
// the program itself.
func (l Limits) cpuExceeded(ws syscall.WaitStatus, ru *syscall.Rusage) bool {
	if l.CPUSeconds <= 0 || !ws.Signaled() || (ws.Signal() != syscall.SIGKILL && ws.Signal() != syscall.SIGXCPU) {
		return false
	}
	used := (ru.Utime.Sec+ru.Stime.Sec)*1e6 + ru.Utime.Usec + ru.Stime.Usec // µs
	return used >= l.CPUSeconds*1e6/2
}

// reportCPU tells the program's standard error that the CPU limit ended
// it, naming the setting, as the last thing the call prints.
func (l Limits) reportCPU() {
	fmt.Fprintf(os.Stderr, "quiver-sandbox: %s\n", CPULimitMessage(l.CPUSeconds))
}

// The memory limit (RLIMIT_DATA) cannot be set on the launcher itself, as
// the others are: its Go runtime, and in a race-enabled build the race
// runtime, map memory on their own after the program has started, and
// would die at a limit lower than what they already hold. Nor can it be
// set on the program once started: it could fork first. So a launcher with
// a memory limit starts a second stage instead of the program: itself
// again, which inherits every layer of confinement, sets the limits as its
// last act — nothing between that and the exec allocates — and execs the
// program in its own place.

// secondStage returns the path, argv and environment that start the second
// stage for s.
func (s *Spec) secondStage() (string, []string, []string, error) {
	stage := Spec{Workspace: s.Workspace, Path: s.Path, Args: s.Args, Env: s.Env, Limits: s.Limits, LimitOnly: true}
	raw, err := json.Marshal(stage)
	if err != nil {
		return "", nil, nil, err
	}
	return selfLauncher, []string{"quiver-sandbox"}, append([]string{specEnv + "=" + string(raw)}, RaceEnv...), nil
}

// execLimited is the second stage: it sets the limits and execs the
// program, and returns only when the exec failed, with the status a shell
// reports for that.
func (s *Spec) execLimited() int {
	runtime.LockOSThread()
	path, err := syscall.BytePtrFromString(s.Path)
	if err != nil {
		return exitCannotExec
	}
	argv, err := syscall.SlicePtrFromStrings(s.Args)
	if err != nil {
		return exitCannotExec
	}
	envv, err := syscall.SlicePtrFromStrings(s.Env)
	if err != nil {
		return exitCannotExec
	}
	if err := s.Limits.set(); err != nil {
		fmt.Fprintf(os.Stderr, "quiver-sandbox: %v\n", err)
		return exitSetup
	}
	_, _, e := syscall.RawSyscall(syscall.SYS_EXECVE, uintptr(unsafe.Pointer(path)),
		uintptr(unsafe.Pointer(&argv[0])), uintptr(unsafe.Pointer(&envv[0])))
	fmt.Fprintf(os.Stderr, "%s: %v\n", s.Args[0], e)
	if e == syscall.ENOENT {
		return exitNotFound
	}
	return exitCannotExec
}
