package shell

import "testing"

// TestReadOnlyCannotUndoGitProtection: every git Quiver starts gets its
// protections through GIT_CONFIG_COUNT and GIT_PAGER (sandbox.GitEnv); a line
// that clears or overrides them, or names another launcher, is never
// read-only, so it is asked about and cannot run unapproved.
func TestReadOnlyCannotUndoGitProtection(t *testing.T) {
	for _, line := range []string{
		"GIT_CONFIG_COUNT=0 git status",
		"env -u GIT_CONFIG_COUNT git status",
		"env -i git status",
		"env GIT_CONFIG_PARAMETERS= git status",
		"unset GIT_CONFIG_COUNT; git status",
		"unset GIT_PAGER; git log",
		"export -n GIT_CONFIG_COUNT; git status",
		"declare +x GIT_CONFIG_COUNT; git status",
		"QUIVER_SANDBOX_LAUNCHER=/x git status",
		"QUIVER_SANDBOX_SPEC={} git status",
	} {
		if ReadOnlyCommand(line, judged(Classifier(nil))) {
			t.Errorf("%q is read-only; it must be asked about", line)
		}
	}
}
