//go:build !unix

package tools

// noRun is why the command tools are left out here: package shell runs
// commands only where it can keep its guarantees (every process in one
// group, killed whole at the end of the call).
const noRun = "runs shell commands, which needs a unix system (process groups)"

// Unavailable names the built-in tools that cannot work on this system, each
// with the reason; [All] leaves them out.
func Unavailable() map[string]string {
	return map[string]string{
		"exec_command": noRun,
		"exec_output":  noRun,
		"exec_kill":    noRun,
		"write_stdin":  noRun,
	}
}
