//go:build !unix

// Package procgroup puts a program Quiver starts in a process group of its
// own and kills the whole group. Where there are no process groups, Set and
// Own do nothing (a context's cancellation kills the program alone) and
// Kill kills the program itself.
package procgroup

import "os/exec"

// Set does nothing where there are no process groups.
func Set(*exec.Cmd) {}

// Own does nothing where there are no process groups.
func Own(*exec.Cmd) {}

// Kill kills the command's process itself.
func Kill(cmd *exec.Cmd) {
	if cmd.Process != nil {
		cmd.Process.Kill()
	}
}
