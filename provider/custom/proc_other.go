//go:build !unix

package custom

import "os/exec"

// ownGroup does nothing where there are no process groups: the context's
// cancellation kills the program alone.
func ownGroup(*exec.Cmd) {}

// killGroup does nothing where there are no process groups.
func killGroup(*exec.Cmd) {}
