package policy

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestProtectedPaths(t *testing.T) {
	p, err := New(Config{ConfigFiles: []string{"/etc/quiver/team.toml", "./conf/quiver.toml"},
		Protected: []string{"secrets/**", "deploy/", "Makefile", "./ci/*.yml"}}, WorkspaceWrite)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"quiver.toml", "quorum.toml", ".quiver", ".git",
		"/etc/quiver/team.toml", "conf/quiver.toml", "secrets", "deploy", "Makefile", "ci/*.yml"}
	if diff := cmp.Diff(want, p.ProtectedPaths()); diff != "" {
		t.Errorf("ProtectedPaths (-want +got):\n%s", diff)
	}
}

func TestBadProtectedPaths(t *testing.T) {
	for _, bad := range []string{"", " ", ".", "./", "**", "/", "..", "../x", "a/../../x", "[x"} {
		if _, err := New(Config{Protected: []string{bad}}, WorkspaceWrite); err == nil {
			t.Errorf("protected %q accepted", bad)
		}
	}
}
