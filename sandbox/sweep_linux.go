package sandbox

import (
	"bytes"
	"os"
	"strconv"
	"syscall"
)

// canSweep: on Linux /proc shows every process's initial environment, so
// an unconfined group's processes can be found by its token.
const canSweep = true

// sweep kills every process (of this user) whose environment holds the
// variable kv, until none is left: one may be forking another. It is how an
// unconfined group reaches what left its process group (setsid, a daemon
// that forked twice); see Group.
func sweep(kv string) {
	needle := append([]byte(kv), 0)
	self := os.Getpid()
	for range 100 {
		pids := marked(needle, self)
		if len(pids) == 0 {
			return
		}
		for _, pid := range pids {
			syscall.Kill(pid, syscall.SIGKILL)
		}
	}
}

// marked returns the live processes whose environment holds needle, a
// whole NUL-terminated entry.
func marked(needle []byte, self int) []int {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	var pids []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == self {
			continue
		}
		env, err := os.ReadFile("/proc/" + e.Name() + "/environ")
		if err != nil || !(bytes.HasPrefix(env, needle) || bytes.Contains(env, append([]byte{0}, needle...))) {
			continue
		}
		if stat, err := os.ReadFile("/proc/" + e.Name() + "/stat"); err == nil && bytes.Contains(stat, []byte(") Z ")) {
			continue // dead already, waiting for its parent
		}
		pids = append(pids, pid)
	}
	return pids
}
