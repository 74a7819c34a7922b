package sandbox

import (
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/quiverkit/quiver/sandbox/launch"
	"github.com/quiverkit/quiver/tool"
)

// Reached is a [Limits] limit a confined run reached.
type Reached struct {
	Key     string // the setting: "processes", "memory_mib" or "cpu_seconds"
	Limit   string // the limit, for a person: "processes", "memory", "CPU time"
	Setting string // the setting and its value: "[sandbox.limits] memory_mib = 256"
	How     string // what showed it
}

// Message says which limit the run reached and how that showed.
func (r Reached) Message() string {
	return fmt.Sprintf("the command reached its %s limit (%s): %s", r.Limit, r.Setting, r.How)
}

// ToolError is the LIMIT_EXCEEDED error of a run that reached r and
// exited with exitCode, for every tool that runs a confined program: its
// message names the limit and its setting and says the run's processes
// are gone (a run kills every process it started before it returns), its
// details are the limit's key ("limit") and the exit code ("exit_code").
// A caller adds what the run printed.
func (r Reached) ToolError(exitCode int) *tool.Error {
	e := tool.Errorf(tool.CodeLimitExceeded, "%s; it exited with %d, and every process it started was killed", r.Message(), exitCode)
	return e.WithDetail("limit", r.Key).WithDetail("exit_code", exitCode)
}

// HitTailLines and HitTailBytes bound the end of a failed run's output
// that [Limits.Hit] searches for the sign of a limit: a runtime's last
// words, under a screenful of a build's own.
const (
	HitTailLines = 40
	HitTailBytes = 16 << 10
)

// LimitEvents are what the kernel counted against a call's limits, read
// from its cgroup when it ends ([Group.LimitEvents]): the evidence a
// program cannot forge. The zero value says no cgroup held the limits.
type LimitEvents struct {
	// Counted says a cgroup held the call's processes limit (and its
	// memory limit when MemoryCounted): the counts below are the kernel's.
	Counted, MemoryCounted bool
	// Processes is how often a fork or a new thread was refused at the
	// processes limit.
	Processes int
	// OOMKills is how many of the call's processes the kernel killed at
	// the memory limit.
	OOMKills int
}

// enomem are the messages a program prints when an allocation fails with
// ENOMEM: the C library's, and the runtimes' of the languages agents run.
var enomem = []string{"Cannot allocate memory", "Out of memory", "out of memory", "MemoryError", "std::bad_alloc", "memory allocation of"}

// Hit reports which limit a confined run that failed (status is not 0)
// reached. Where a cgroup held a limit, the kernel's counters in ev say
// it, and nothing the run printed counts: the processes limit was reached
// when the cgroup refused a fork, the memory limit when the kernel killed
// a process at it. Where none did (resource limits alone, and the CPU
// time limit always), the kernel reports no event when it refuses a fork
// (EAGAIN) or an allocation (ENOMEM), and only the program learns of it;
// what the run printed last, tail, is the evidence: the launcher's own
// line for the CPU time limit, the C library's or a runtime's message for
// the others. That is a judgement: a program may print such a message for
// a reason of its own, which then reads as the limit (only ever failing
// its own call). The processes limit is not judged when Quiver runs as
// root without a cgroup, where it does not hold.
func (l Limits) Hit(ev LimitEvents, status int, tail string) (Reached, bool) {
	if status == 0 {
		return Reached{}, false
	}
	ll := l.launch()
	processes := Reached{Key: "processes", Limit: "processes", Setting: fmt.Sprintf("[sandbox.limits] processes = %d", ll.Processes),
		How: "a fork or a new thread beyond it failed (EAGAIN), and the program failed with it"}
	memory := Reached{Key: "memory_mib", Limit: "memory", Setting: fmt.Sprintf("[sandbox.limits] memory_mib = %d", l.MemoryMiB),
		How: "an allocation beyond it failed (ENOMEM), and the program failed with it"}
	switch {
	case ll.CPUSeconds > 0 && strings.Contains(tail, launch.CPULimitMessage(ll.CPUSeconds)):
		return Reached{Key: "cpu_seconds", Limit: "CPU time", Setting: fmt.Sprintf("[sandbox.limits] cpu_seconds = %d", ll.CPUSeconds),
			How: "a process used that much CPU time and was killed (SIGKILL)"}, true
	case ev.MemoryCounted && ev.OOMKills > 0:
		memory.How = fmt.Sprintf("the call's memory reached it, and the kernel killed %d of its processes there (its cgroup's oom_kill count)", ev.OOMKills)
		return memory, true
	case ev.Counted && ev.Processes > 0:
		processes.How = fmt.Sprintf("the kernel refused %s beyond it (its cgroup's pids.events), and the program failed", forks(ev.Processes))
		return processes, true
	case ll.MemoryBytes > 0 && !ev.MemoryCounted && containsAny(tail, enomem):
		return memory, true
	case !ev.Counted && os.Geteuid() != 0 && strings.Contains(tail, "Resource temporarily unavailable"):
		return processes, true
	}
	return Reached{}, false
}

// forks is "a fork or thread", or "n forks or threads".
func forks(n int) string {
	if n == 1 {
		return "a fork or thread"
	}
	return strconv.Itoa(n) + " forks or threads"
}

func containsAny(s string, subs []string) bool {
	for _, sub := range subs {
		if strings.Contains(s, sub) {
			return true
		}
	}
	return false
}
