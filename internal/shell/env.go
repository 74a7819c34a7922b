package shell

import (
	"strings"
)

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
