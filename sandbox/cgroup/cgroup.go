// Package cgroup bounds one confined call as a whole through a cgroup of
// its own: the call's tasks (pids.max) and, when asked, its memory, every
// page the kernel charges to it (anonymous memory, shared maps, memfd and
// tmpfs pages, page cache) — what per-process resource limits miss. It is
// Linux's; elsewhere [Detect] reports none.
//
// # Which cgroup
//
// [Detect] picks, once per process:
//
//   - cgroup v2 where the machine delegates to Quiver's user a cgroup
//     offering the memory and pids controllers (Quiver's own, 0:: in
//     /proc/self/cgroup, writable). A process is started straight into its
//     call's cgroup (clone3's CLONE_INTO_CGROUP, os/exec's
//     SysProcAttr.UseCgroupFD): it never runs outside it.
//   - else cgroup v1 where Quiver runs as root and the pids hierarchy is
//     mounted and writable (the memory hierarchy too, for the memory
//     limit). v1 cannot start a process into a cgroup, so the caller
//     starts it held ([Call.Held]): Quiver writes its pid into the call's
//     cgroup.procs ([Call.Place]) before the process starts anything, and
//     only then lets it go on.
//   - else none: the caller keeps to resource limits alone.
//
// # Layout, and what a killed Quiver leaves
//
// Every call's cgroup lies under one parent per Quiver process, in
// Quiver's own cgroup: quiver.PID.START/call.N, where START is the
// process's start time (/proc/PID/stat), so that a reused pid is not
// mistaken for the Quiver that made it. The parent goes with the last of
// its calls. A Quiver killed outright (SIGKILL) leaves its parent behind,
// its calls' processes dead with it (each launcher dies with its parent);
// the next Quiver to use the same cgroup removes every parent whose
// Quiver is gone, as far as it is empty.
package cgroup

import "fmt"

// Version is the cgroup interface in use.
type Version int

// The versions [Detect] may pick.
const (
	None Version = iota // no cgroup: resource limits alone
	V1                  // cgroup v1, Quiver being root
	V2                  // a delegated cgroup v2
)

func (v Version) String() string {
	switch v {
	case V1:
		return "cgroup v1"
	case V2:
		return "cgroup v2"
	}
	return "none"
}

// Limits are what one call's cgroup bounds; zero leaves a limit unset.
type Limits struct {
	Processes   int   // tasks at once: pids.max
	MemoryBytes int64 // memory charged to the call: memory.max, memory.limit_in_bytes
}

// Events are what the kernel counted against a call's cgroup: the
// evidence that a call reached a limit, which its programs cannot forge.
type Events struct {
	// Processes is how often a fork or a new thread was refused at the
	// processes limit (pids.events max).
	Processes int
	// OOMKills is how many processes the kernel killed at the memory
	// limit (memory.events or memory.oom_control, oom_kill).
	OOMKills int
}

// Error is a failure of the cgroup layer, naming the file it concerned.
type Error struct {
	Op   string // what was being done: "creating", "limiting", "placing"...
	Path string
	Err  error
}

func (e *Error) Error() string { return fmt.Sprintf("cgroup: %s %s: %v", e.Op, e.Path, e.Err) }

func (e *Error) Unwrap() error { return e.Err }
