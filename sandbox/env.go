package sandbox

import (
	"os"
	"path"
	"slices"
	"strings"
)

// BaseEnvNames are the variables passed on from the host's environment to
// every process Quiver starts: enough for programs to find each other, know
// the user, the locale and the terminal, and nothing that tends to hold a
// secret.
var BaseEnvNames = []string{
	"PATH", "HOME", "USER", "LOGNAME", "SHELL",
	"LANG", "LANGUAGE", "LC_ALL", "LC_CTYPE", "LC_MESSAGES", "LC_COLLATE", "LC_NUMERIC", "LC_TIME",
	"TERM", "COLORTERM", "NO_COLOR", "TMPDIR", "TZ",
}

// DefaultPath is PATH when the host's environment has none.
const DefaultPath = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"

// BaseEnv returns the minimal environment processes start from: the
// variables of environ (as os.Environ gives it) named by BaseEnvNames or
// matched by one of allow (names or path.Match patterns such as "GO*"),
// with PATH defaulted. Secrets in the host's environment are not passed on
// unless allow names them.
func BaseEnv(environ []string, allow []string) []string {
	var out []string
	hasPath := false
	for _, kv := range environ {
		name, _, ok := strings.Cut(kv, "=")
		if !ok || !ValidEnvName(name) {
			continue
		}
		if slices.Contains(BaseEnvNames, name) || slices.Contains(raceEnvNames, name) || matchesAny(allow, name) {
			out = append(out, kv)
			hasPath = hasPath || name == "PATH"
		}
	}
	if !hasPath {
		out = append(out, "PATH="+DefaultPath)
	}
	return out
}

// HostEnv is BaseEnv of the running process's environment: what a
// [Process] whose Env is nil gets.
func HostEnv(allow []string) []string { return BaseEnv(os.Environ(), allow) }

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

// ValidEnvName reports whether s is a valid environment variable name.
func ValidEnvName(s string) bool {
	if s == "" {
		return false
	}
	for i, c := range s {
		switch {
		case c == '_', c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z':
		case c >= '0' && c <= '9' && i > 0:
		default:
			return false
		}
	}
	return true
}

func matchesAny(patterns []string, name string) bool {
	for _, p := range patterns {
		if ok, _ := path.Match(p, name); ok {
			return true
		}
	}
	return false
}
