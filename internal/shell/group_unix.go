//go:build unix

package shell

import (
	"os/exec"
	"syscall"
)

// OwnGroup puts a program started without the shell (git for
// git_status_summary) in a process group of its own and makes its context's
// cancellation kill the whole group, so that its children do not outlive
// it. Cancel runs before the leader is reaped, so the group id cannot have
// been reused.
func OwnGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
}
