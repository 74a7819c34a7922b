package sandbox

import (
	"fmt"

	"github.com/quiverkit/quiver/sandbox/launch"
)

// Limits is [sandbox.limits]: what one confined process tree may use. The
// launcher sets them as resource limits (setrlimit) just before it starts
// the program, soft and hard equal, so that the program and everything it
// starts inherit them and none can raise them again. Zero is the default;
// a negative value is an error.
//
// cgroup v2 would bound a call as a whole (its memory, its CPU time) where
// the machine delegates a cgroup to Quiver's user; Quiver does not use it
// yet, so memory and CPU time are bounded per process, and the processes
// limit per call (see Processes).
type Limits struct {
	// Processes bounds the tasks (processes and threads: the kernel counts
	// both) a call may have at once; default [DefaultProcesses]. A fork or
	// thread beyond it fails with EAGAIN. Each call has a user namespace
	// of its own, in which the kernel (Linux 5.14 and later) counts that
	// namespace's tasks alone, so the limit is the call's, not the user's.
	// The kernel never applies it to root's tasks: when Quiver runs as
	// root it does not hold (`quiver sandbox check` says so).
	Processes int `toml:"processes"`
	// MemoryMiB bounds each process's private writable memory
	// (RLIMIT_DATA: heap and anonymous mappings), in MiB; default none.
	// An allocation beyond it fails (ENOMEM). Not set by default: programs
	// built with AddressSanitizer or Go's race detector reserve terabytes
	// of shadow memory, which it counts.
	MemoryMiB int64 `toml:"memory_mib"`
	// CPUSeconds bounds each process's CPU time (RLIMIT_CPU); default
	// none, since a call's timeout bounds its time. A process that reaches
	// it is killed (SIGKILL, which it cannot catch), and the launcher
	// prints a line naming the limit on the program's standard error.
	CPUSeconds int64 `toml:"cpu_seconds"`
}

// DefaultProcesses is the processes limit when [sandbox.limits] sets none:
// generous, as a parallel build on a many-core machine runs thousands of
// threads, and still far below what exhausts a machine.
const DefaultProcesses = 4096

// launch is l, defaults filled in, as the launcher takes it.
func (l Limits) launch() launch.Limits {
	out := launch.Limits{Processes: l.Processes, MemoryBytes: l.MemoryMiB << 20, CPUSeconds: l.CPUSeconds}
	if out.Processes == 0 {
		out.Processes = DefaultProcesses
	}
	return out
}

// check refuses a negative limit, naming its key.
func (l Limits) check() error {
	for _, f := range []struct {
		key string
		v   int64
	}{{"processes", int64(l.Processes)}, {"memory_mib", l.MemoryMiB}, {"cpu_seconds", l.CPUSeconds}} {
		if f.v < 0 {
			return fmt.Errorf("sandbox.limits.%s = %d: want a positive number, or 0 for the default", f.key, f.v)
		}
	}
	if l.MemoryMiB > 1<<40 {
		return fmt.Errorf("sandbox.limits.memory_mib = %d: too large", l.MemoryMiB)
	}
	return nil
}

// String is the limits in force, as `quiver sandbox check` shows them.
func (l Limits) String() string {
	ll := l.launch()
	mem, cpu := "none", "none"
	if ll.MemoryBytes > 0 {
		mem = fmt.Sprintf("%d MiB per process", l.MemoryMiB)
	}
	if ll.CPUSeconds > 0 {
		cpu = fmt.Sprintf("%d s per process", ll.CPUSeconds)
	}
	return fmt.Sprintf("processes %d per call, memory %s, CPU time %s", ll.Processes, mem, cpu)
}
