//go:build unix && !linux

package shell

import (
	"errors"
	"os"
	"syscall"
)

// canLead: elsewhere every program gets a process group of its own, killed
// when it has been waited for, and again when the run ends.
const canLead = false

func waitLeader(pid int) (int, error) {
	return 0, errors.New("waitLeader: not supported on this system")
}

// killPipeHolders does nothing here: finding who holds a pipe needs /proc.
func killPipeHolders(*os.File) {}

// ownPIDNamespace reports whether a process started with sys is the init of
// a PID namespace of its own: never, where there are none.
func ownPIDNamespace(*syscall.SysProcAttr) bool { return false }
