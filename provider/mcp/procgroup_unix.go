//go:build unix

package mcp

import (
	"os/exec"
	"syscall"
)

// setGroup puts the command in a process group of its own, so that the
// servers it starts (npx starts node, sh starts anything) can be stopped
// with it.
func setGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

// killGroup kills the command's process group.
func killGroup(cmd *exec.Cmd) {
	if cmd.Process != nil {
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
}
