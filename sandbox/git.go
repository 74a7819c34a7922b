package sandbox

import (
	"slices"
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
// command through as one that only reads, so no program a repository's
// config names may run: no hook, no signature check (log.showSignature
// would run gpg.program). What config cannot switch off — the textconv and
// filter drivers a repository's config names under a name its attributes
// choose — [GitArgs] and the kernel ([Profile.ForProgram]) do.
var gitReadOnlyConfig = [][2]string{
	{"core.hooksPath", "/dev/null"},
	{"log.showSignature", "false"},
}

// gitWriteConfig is added for an approved git (see [Profile.ForProgram]):
// no automatic gc or maintenance, which would write the pinned
// objects/info.
var gitWriteConfig = [][2]string{
	{"gc.auto", "0"},
	{"maintenance.auto", "false"},
}

// gitReadOnlyUnset are environment variables a read-only git must not see:
// each names a program for git to run.
var gitReadOnlyUnset = []string{"GIT_EXTERNAL_DIFF", "GIT_EDITOR", "GIT_SEQUENCE_EDITOR", "GIT_SSH",
	"GIT_SSH_COMMAND", "GIT_ASKPASS", "GIT_EXEC_PATH"}

// GitEnv returns env with Quiver's git protections appended after any git
// config the environment already carries (so they win), and GIT_PAGER set to
// cat. readOnly adds the read-only ones (no hooks, no program named by the
// environment).
func GitEnv(env []string, readOnly bool) []string {
	extra := [][2]string(nil)
	if readOnly {
		extra = gitReadOnlyConfig
	}
	return gitEnv(env, readOnly, extra)
}

func gitEnv(env []string, readOnly bool, extra [][2]string) []string {
	n := 0
	out := make([]string, 0, len(env)+2*len(gitConfig)+4)
	for _, kv := range env {
		name, value, _ := strings.Cut(kv, "=")
		switch {
		case name == "GIT_CONFIG_COUNT":
			if c, err := strconv.Atoi(value); err == nil && c > 0 && c < 1000 {
				n = c
			}
			continue
		case name == "GIT_PAGER", readOnly && slices.Contains(gitReadOnlyUnset, name):
			continue
		}
		out = append(out, kv)
	}
	pairs := append(gitConfig[:len(gitConfig):len(gitConfig)], extra...)
	for _, kv := range pairs {
		i := strconv.Itoa(n)
		out = append(out, "GIT_CONFIG_KEY_"+i+"="+kv[0], "GIT_CONFIG_VALUE_"+i+"="+kv[1])
		n++
	}
	return append(out, "GIT_CONFIG_COUNT="+strconv.Itoa(n), "GIT_PAGER=cat")
}

// gitDiffSwitches are the switches GitArgs adds after the subcommand of a
// read-only git, by subcommand: they turn off the external diff (config's
// diff.external, a driver's diff.<name>.command) and textconv drivers,
// which config cannot turn off for a driver whose name the repository's
// attributes choose.
var gitDiffSwitches = map[string][]string{
	"diff": {"--no-ext-diff", "--no-textconv"}, "log": {"--no-ext-diff", "--no-textconv"},
	"show": {"--no-ext-diff", "--no-textconv"}, "whatchanged": {"--no-ext-diff", "--no-textconv"},
	"blame": {"--no-textconv"}, "annotate": {"--no-textconv"}, "grep": {"--no-textconv"},
}

// gitValueGlobals are git's global options that take the next argument as
// their value.
var gitValueGlobals = []string{"-c", "-C", "--git-dir", "--work-tree", "--namespace", "--config-env", "--super-prefix"}

// GitArgs returns the arguments of a git that the policy let through as
// read-only with gitDiffSwitches added after its subcommand (after `stash
// show` for stash): args as given when there is nothing to add.
func GitArgs(args []string) []string {
	for i := 1; i < len(args); i++ {
		a := args[i]
		switch {
		case slices.Contains(gitValueGlobals, a):
			i++
			continue
		case strings.HasPrefix(a, "-"):
			continue
		}
		at, sub := i+1, a
		if a == "stash" && i+1 < len(args) && args[i+1] == "show" {
			at, sub = i+2, "diff"
		}
		add := gitDiffSwitches[sub]
		if add == nil {
			return args
		}
		return slices.Concat(args[:at:at], add, args[at:])
	}
	return args
}
