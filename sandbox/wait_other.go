//go:build unix && !linux

package sandbox

import (
	"errors"
	"syscall"
)

// canLead: elsewhere every program gets a process group of its own, killed
// once it has been waited for, and again when the group is killed.
const canLead = false

func waitLeader(int) (int, error) {
	return 0, errors.New("waitLeader: not supported on this system")
}

// waitExited does nothing here: os/exec's wait reaps at once.
func waitExited(int) {}

// ownPIDNamespace reports whether a process started with sys is the init of
// a PID namespace of its own: never, where there are none.
func ownPIDNamespace(*syscall.SysProcAttr) bool { return false }

// canSweep: without /proc, what leaves an unconfined group's process
// group is beyond its reach.
const canSweep = false

func sweep(string) {}
