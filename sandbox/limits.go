package sandbox

import (
	"fmt"

	"github.com/quiverkit/quiver/sandbox/cgroup"
	"github.com/quiverkit/quiver/sandbox/launch"
)

// Limits is [sandbox.limits]: what one confined call may use.
//
// Where the machine gives Quiver a cgroup (see package cgroup: a delegated
// cgroup v2, or cgroup v1 when Quiver runs as root), each call gets one of
// its own, which bounds the call as a whole: its tasks (pids.max) and its
// memory, every page the kernel charges to it. The kernel's counters then
// say whether the call reached a limit ([LimitEvents]). The launcher sets
// resource limits (setrlimit) as well, just before it starts the program,
// soft and hard equal, so that the program and everything it starts
// inherit them and none can raise them again: the processes limit (a
// second bound, counted per user namespace, which the cgroup reaches
// first) and the CPU time limit, which stays per process. Without a
// cgroup, resource limits are all there is, and memory is bounded per
// process. `quiver sandbox check` says which holds, and why. Zero is the
// default; a negative value is an error.
type Limits struct {
	// Processes bounds the tasks (processes and threads: the kernel counts
	// both) a call may have at once, the launcher's own included; default
	// [DefaultProcesses]. A fork or thread beyond it fails with EAGAIN.
	// With a cgroup it is the call's pids.max. Without one it is
	// RLIMIT_NPROC: each call has a user namespace of its own, in which the
	// kernel (Linux 5.14 and later) counts that namespace's tasks alone, so
	// the limit is the call's, not the user's; but the kernel never applies
	// it to root's tasks, so when Quiver runs as root without a cgroup it
	// does not hold (`quiver sandbox check` says so).
	Processes int `toml:"processes"`
	// MemoryMiB bounds the call's memory, in MiB; default none. With a
	// cgroup that bounds memory it is the memory the kernel charges to the
	// call as a whole (anonymous memory, shared maps, memfd and tmpfs
	// pages, page cache), with no swap beyond it: at the limit the kernel
	// reclaims what it can and then kills a process of the call (the OOM
	// killer). Without one it is each process's RLIMIT_DATA (heap and
	// private anonymous mappings, not shared ones), and an allocation
	// beyond it fails (ENOMEM). Not set by default: programs built with
	// AddressSanitizer or Go's race detector reserve terabytes of shadow
	// memory, which RLIMIT_DATA counts.
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

// launch is l, defaults filled in, as the launcher takes it without a
// cgroup.
func (l Limits) launch() launch.Limits {
	out := launch.Limits{Processes: l.Processes, MemoryBytes: l.MemoryMiB << 20, CPUSeconds: l.CPUSeconds}
	if out.Processes == 0 {
		out.Processes = DefaultProcesses
	}
	return out
}

// launchIn is l as the launcher takes it when cg (nil: none) holds the
// call's limits. A cgroup that bounds memory replaces RLIMIT_DATA: it
// counts all the call's memory that RLIMIT_DATA counts per process, and
// more, and a per-process limit at the same value would refuse a large
// allocation first with an ENOMEM that only the program's output tells,
// where the cgroup's OOM kill is counted by the kernel.
func (l Limits) launchIn(cg *cgroup.Call) launch.Limits {
	out := l.launch()
	if cg != nil && cg.Memory() {
		out.MemoryBytes = 0
	}
	return out
}

// cgroup is l as a call's cgroup takes it.
func (l Limits) cgroup() cgroup.Limits {
	ll := l.launch()
	return cgroup.Limits{Processes: ll.Processes, MemoryBytes: ll.MemoryBytes}
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

// String is the limits in force on this machine, as `quiver sandbox check`
// shows them: memory is per call where a cgroup bounds it.
func (l Limits) String() string { return l.describe(cgroup.Detect().Memory()) }

// describe is l for a person, memory per call when callMemory.
func (l Limits) describe(callMemory bool) string {
	ll := l.launch()
	mem, cpu := "none", "none"
	if ll.MemoryBytes > 0 {
		mem = fmt.Sprintf("%d MiB per process", l.MemoryMiB)
		if callMemory {
			mem = fmt.Sprintf("%d MiB per call", l.MemoryMiB)
		}
	}
	if ll.CPUSeconds > 0 {
		cpu = fmt.Sprintf("%d s per process", ll.CPUSeconds)
	}
	return fmt.Sprintf("processes %d per call, memory %s, CPU time %s", ll.Processes, mem, cpu)
}
