//go:build unix

package custom

import (
	"os/exec"
	"syscall"
)

// ownGroup puts the program in its own process group and makes the
// context's cancellation kill the whole group, so that children (sleep
// under a script) do not outlive a timeout. Cancel runs before the leader is
// reaped, so the group id cannot have been reused.
func ownGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
}

// killGroup kills what is left of the program's process group after the
// program itself exited. The group's id cannot be taken by a new process
// while a member of the group lives, which is when this is called.
func killGroup(cmd *exec.Cmd) { syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
