//go:build !unix

package shell

import "os/exec"

// OwnGroup does nothing where there are no process groups: the context's
// cancellation kills the program alone.
func OwnGroup(*exec.Cmd) {}
