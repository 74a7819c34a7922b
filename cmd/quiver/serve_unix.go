//go:build unix

package main

import (
	"fmt"
	"os"

	"golang.org/x/sys/unix"
)

// reserveStdout keeps standard output for the MCP protocol alone: it
// returns a file for the protocol on a copy of descriptor 1, and points
// descriptor 1 itself at standard error, so that whatever else writes to
// "stdout" — a library, a child process that inherits it — ends up in the
// log instead of corrupting the stream.
func reserveStdout() (*os.File, error) {
	fd, err := unix.Dup(1)
	if err != nil {
		return nil, fmt.Errorf("reserve stdout: %w", err)
	}
	unix.CloseOnExec(fd)
	if err := unix.Dup2(2, 1); err != nil {
		unix.Close(fd)
		return nil, fmt.Errorf("reserve stdout: %w", err)
	}
	return os.NewFile(uintptr(fd), "mcp-stdout"), nil
}
