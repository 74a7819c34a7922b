package launch

import "fmt"

// Limits are the resource limits the program and everything it starts
// inherit (see sandbox.Limits for what each means and its default): the
// launcher sets the processes and CPU time limits on itself just before it
// starts the program, and the memory limit in a second stage (see
// limits_linux.go). Zero leaves a limit as the host set it.
type Limits struct {
	// Processes is RLIMIT_NPROC: tasks (processes and threads) of the
	// user. The launcher runs in a user namespace of its own, where the
	// kernel (5.14 and later) counts the namespace's tasks alone, nested
	// namespaces included, so it bounds one call. The kernel does not
	// apply it to a host root's tasks.
	Processes int `json:"processes,omitempty"`
	// MemoryBytes is RLIMIT_DATA: each process's private writable memory
	// (heap, anonymous mappings).
	MemoryBytes int64 `json:"memory_bytes,omitempty"`
	// CPUSeconds is RLIMIT_CPU: each process's CPU time. Soft and hard
	// are equal, so the kernel's answer is SIGKILL, which cannot be caught.
	CPUSeconds int64 `json:"cpu_seconds,omitempty"`
}

// CPULimitMessage is what a launcher prints when its program reached the
// CPU time limit of seconds.
func CPULimitMessage(seconds int64) string {
	return fmt.Sprintf("the program was killed at its CPU time limit of %d s ([sandbox.limits] cpu_seconds)", seconds)
}
