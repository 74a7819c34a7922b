//go:build unix

// Package procgroup puts a program Quiver starts in a process group of its
// own and kills the whole group, so that what the program starts in turn
// (a test runner's workers, an MCP server's children) does not outlive it.
// It is the one place that does so for every provider that starts programs
// without the shell (the shell's own jobs are managed by internal/shell).
package procgroup

import (
	"os/exec"
	"syscall"
)

// Set makes cmd the leader of a new process group when it starts.
func Set(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Setpgid = true
}

// Own is Set, and makes the cancellation of cmd's context (cmd must come
// from exec.CommandContext) kill the whole group. Cancel runs before the
// leader is reaped, so the group id cannot have been reused.
func Own(cmd *exec.Cmd) {
	Set(cmd)
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
}

// Kill kills the group of a command started after Set; a command that has
// not started is left alone.
func Kill(cmd *exec.Cmd) {
	if cmd.Process != nil {
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
}
