package shell

import (
	"os"
	"path"
	"strings"
)

// BaseEnvNames are the variables passed on from the host's environment to
// every command: enough for programs to find each other, know the user,
// the locale and the terminal, and nothing that tends to hold a secret.
var BaseEnvNames = []string{
	"PATH", "HOME", "USER", "LOGNAME", "SHELL",
	"LANG", "LANGUAGE", "LC_ALL", "LC_CTYPE", "LC_MESSAGES", "LC_COLLATE", "LC_NUMERIC", "LC_TIME",
	"TERM", "COLORTERM", "NO_COLOR", "TMPDIR", "TZ",
}

// DefaultPath is PATH when the host's environment has none.
const DefaultPath = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"

// BaseEnv returns the environment commands start from: the variables of
// the host's environment (environ, as os.Environ gives it) named by
// BaseEnvNames or matched by one of allow (names or path.Match patterns such
// as "GO*"), with PATH defaulted. Secrets in the host's environment are not
// passed on unless allow names them.
func BaseEnv(environ []string, allow []string) []string {
	var out []string
	hasPath := false
	for _, kv := range environ {
		name, _, ok := strings.Cut(kv, "=")
		if !ok || !validName(name) {
			continue
		}
		if contains(BaseEnvNames, name) || contains(raceEnvNames, name) || matchesAny(allow, name) {
			out = append(out, kv)
			hasPath = hasPath || name == "PATH"
		}
	}
	if !hasPath {
		out = append(out, "PATH="+DefaultPath)
	}
	return out
}

// HostEnv is BaseEnv of the running process's environment.
func HostEnv(allow []string) []string { return BaseEnv(os.Environ(), allow) }

func matchesAny(patterns []string, name string) bool {
	for _, p := range patterns {
		if ok, _ := path.Match(p, name); ok {
			return true
		}
	}
	return false
}

// MergeEnv returns base with the KEY=VALUE entries of extra set, replacing
// base's values of the same names.
func MergeEnv(base, extra []string) []string {
	out := make([]string, 0, len(base)+len(extra))
	set := map[string]bool{}
	for _, kv := range extra {
		name, _, _ := strings.Cut(kv, "=")
		set[name] = true
	}
	for _, kv := range base {
		name, _, _ := strings.Cut(kv, "=")
		if !set[name] {
			out = append(out, kv)
		}
	}
	return append(out, extra...)
}

// ValidEnvEntry reports whether kv is NAME=VALUE with a valid name and no
// NUL byte.
func ValidEnvEntry(kv string) bool {
	name, _, ok := strings.Cut(kv, "=")
	return ok && validName(name) && strings.IndexByte(kv, 0) < 0
}

// UnsafeEnv reports whether setting the variable name can make an ordinary
// program run or load code it would not otherwise run: the dynamic loader's
// variables, interpreters' startup and library paths, pagers and editors,
// git's configuration and helpers, HOME and XDG_CONFIG_HOME (where
// configuration is read from), and the like. A command run with such a
// variable changed is checked by the policy with the assignment in front of
// it (GIT_CONFIG_COUNT=1 git status), so a rule for `git status` alone does
// not let it through. PATH is not among them: a program that a changed PATH
// finds somewhere else is checked by its full path instead.
func UnsafeEnv(name string) bool {
	for _, p := range unsafeEnvPrefixes {
		if strings.HasPrefix(name, p) {
			return true
		}
	}
	return contains(unsafeEnvNames, name)
}

var unsafeEnvPrefixes = []string{"LD_", "DYLD_", "GIT_", "CGO_", "NPM_CONFIG_", "npm_config_", "BASH_FUNC_"}

var unsafeEnvNames = []string{
	"HOME", "XDG_CONFIG_HOME", "XDG_CONFIG_DIRS", "XDG_DATA_HOME",
	"BASH_ENV", "ENV", "SHELLOPTS", "BASHOPTS", "PS4", "PROMPT_COMMAND", "IFS", "CDPATH", "POSIXLY_CORRECT",
	"PAGER", "MANPAGER", "EDITOR", "VISUAL", "BROWSER", "SSH_ASKPASS", "SUDO_ASKPASS",
	"LESSOPEN", "LESSCLOSE", "GCONV_PATH", "MAKEFLAGS", "MFLAGS",
	"PYTHONPATH", "PYTHONSTARTUP", "PYTHONHOME", "PYTHONUSERBASE",
	"NODE_OPTIONS", "NODE_PATH", "PERL5OPT", "PERL5LIB", "PERLLIB", "RUBYOPT", "RUBYLIB",
	"JAVA_TOOL_OPTIONS", "_JAVA_OPTIONS", "JDK_JAVA_OPTIONS", "CLASSPATH",
	"GOFLAGS", "GOENV", "GOTOOLCHAIN", "GOPROXY", "CC", "CXX",
	"RIPGREP_CONFIG_PATH", "FZF_DEFAULT_COMMAND",
}
