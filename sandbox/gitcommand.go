package sandbox

import "context"

// GitCommand returns a git that reads only, under box, through the start
// path, run in dir: no optional locks, paths unquoted, messages in English,
// the minimal environment, and the protections every git Quiver starts gets
// (no fsmonitor, no pager, no hooks: see [GitEnv]). git_status_summary and
// the git ref workspace backend run their git through it.
func GitCommand(ctx context.Context, box *Profile, dir string, args ...string) *Process {
	full := append([]string{"-c", "core.quotepath=off", "--no-pager"}, args...)
	proc := Command(ctx, box, "git", full...)
	proc.Dir = dir
	proc.Env = append(HostEnv(nil), "GIT_OPTIONAL_LOCKS=0", "LC_ALL=C", "GIT_TERMINAL_PROMPT=0")
	return proc
}
