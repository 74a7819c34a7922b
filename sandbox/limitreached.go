package sandbox

import (
	"fmt"
	"os"
	"strings"

	"github.com/quiverkit/quiver/sandbox/launch"
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

// enomem are the messages a program prints when an allocation fails with
// ENOMEM: the C library's, and the runtimes' of the languages agents run.
var enomem = []string{"Cannot allocate memory", "Out of memory", "out of memory", "MemoryError", "std::bad_alloc", "memory allocation of"}

// Hit reports which limit a confined run that failed (status is not 0)
// reached, judging by the tail of its output. Under rlimits the kernel
// reports no event when it refuses a fork (EAGAIN) or an allocation
// (ENOMEM), and only the program learns of it; what the run printed last
// is the evidence: the launcher's own line for the CPU time limit, the
// C library's or a runtime's message for the others. It is a judgement:
// a program may print such a message for a reason of its own, which then
// reads as the limit (only ever failing its own call). The processes limit
// is not judged when Quiver runs as root, where it does not hold.
func (l Limits) Hit(status int, tail string) (Reached, bool) {
	if status == 0 {
		return Reached{}, false
	}
	ll := l.launch()
	switch {
	case ll.CPUSeconds > 0 && strings.Contains(tail, launch.CPULimitMessage(ll.CPUSeconds)):
		return Reached{Key: "cpu_seconds", Limit: "CPU time", Setting: fmt.Sprintf("[sandbox.limits] cpu_seconds = %d", ll.CPUSeconds),
			How: "a process used that much CPU time and was killed (SIGKILL)"}, true
	case ll.MemoryBytes > 0 && containsAny(tail, enomem):
		return Reached{Key: "memory_mib", Limit: "memory", Setting: fmt.Sprintf("[sandbox.limits] memory_mib = %d", l.MemoryMiB),
			How: "an allocation beyond it failed (ENOMEM), and the program failed with it"}, true
	case os.Geteuid() != 0 && strings.Contains(tail, "Resource temporarily unavailable"):
		return Reached{Key: "processes", Limit: "processes", Setting: fmt.Sprintf("[sandbox.limits] processes = %d", ll.Processes),
			How: "a fork or a new thread beyond it failed (EAGAIN), and the program failed with it"}, true
	}
	return Reached{}, false
}

func containsAny(s string, subs []string) bool {
	for _, sub := range subs {
		if strings.Contains(s, sub) {
			return true
		}
	}
	return false
}
