package sandbox

import (
	"strconv"
	"strings"
)

// gitConfig is set, through git's environment (GIT_CONFIG_COUNT,
// GIT_CONFIG_KEY_n, GIT_CONFIG_VALUE_n), for every git that Quiver starts
// and every git that a program it starts runs in turn. These are git's
// command-line scope: they win over every config file, the untrusted
// repository's own included.
//
//   - core.fsmonitor=false: a repository's config (an embedded bare
//     repository that is plain content of the workspace, say) cannot name a
//     program for `git status` to run;
//   - safe.bareRepository=explicit: git ignores bare repositories it finds
//     by walking up from the working directory (`git -C evil status` on an
//     embedded bare repository), as git's own hardening recommends;
//   - core.pager=cat: no pager program is run, whatever the config says.
//
// git's safe.directory check (a repository owned by another user is
// refused) is left as git has it: Quiver never sets safe.directory.
var gitConfig = [][2]string{
	{"core.fsmonitor", "false"},
	{"safe.bareRepository", "explicit"},
	{"core.pager", "cat"},
}

// gitReadOnlyConfig is added for read-only profiles: the policy let the
// command through as one that only reads, so no hook may run.
var gitReadOnlyConfig = [][2]string{
	{"core.hooksPath", "/dev/null"},
}

// GitEnv returns env with Quiver's git protections appended after any git
// config the environment already carries (so they win), and GIT_PAGER set to
// cat. readOnly adds the read-only ones (no hooks).
func GitEnv(env []string, readOnly bool) []string {
	n := 0
	out := make([]string, 0, len(env)+2*len(gitConfig)+4)
	for _, kv := range env {
		name, value, _ := strings.Cut(kv, "=")
		switch name {
		case "GIT_CONFIG_COUNT":
			if c, err := strconv.Atoi(value); err == nil && c > 0 && c < 1000 {
				n = c
			}
			continue
		case "GIT_PAGER":
			continue
		}
		out = append(out, kv)
	}
	pairs := gitConfig
	if readOnly {
		pairs = append(pairs[:len(pairs):len(pairs)], gitReadOnlyConfig...)
	}
	for _, kv := range pairs {
		i := strconv.Itoa(n)
		out = append(out, "GIT_CONFIG_KEY_"+i+"="+kv[0], "GIT_CONFIG_VALUE_"+i+"="+kv[1])
		n++
	}
	return append(out, "GIT_CONFIG_COUNT="+strconv.Itoa(n), "GIT_PAGER=cat")
}
