//go:build !unix

package mcp

import "os/exec"

// setGroup does nothing where process groups are not available.
func setGroup(*exec.Cmd) {}

// killGroup kills the command's process itself.
func killGroup(cmd *exec.Cmd) {
	if cmd.Process != nil {
		cmd.Process.Kill()
	}
}
