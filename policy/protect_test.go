package policy

import (
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/quiverkit/quiver/sandbox"
)

func TestProtectedPaths(t *testing.T) {
	p, err := New(Config{ConfigFiles: []string{"/etc/quiver/team.toml", "./conf/quiver.toml"},
		Protected: []string{"secrets/**", "deploy/", "Makefile", "./ci/*.yml"}}, sandbox.WorkspaceWrite)
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
		if _, err := New(Config{Protected: []string{bad}}, sandbox.WorkspaceWrite); err == nil {
			t.Errorf("protected %q accepted", bad)
		}
	}
}

// TestSandboxMasksReadDenied: every profile built from a policy (the
// toolkit's, MCP servers', quiver-models') masks what the policy denies
// to read_file, so no process started for Quiver reads it.
func TestSandboxMasksReadDenied(t *testing.T) {
	p, err := New(Config{Deny: []string{"read_file(.env)", "read_file(keys/**)", "*(secrets)", "write_file(out)", "web_fetch(domain:x.example)"}}, sandbox.WorkspaceWrite)
	if err != nil {
		t.Fatal(err)
	}
	ws := t.TempDir()
	box, err := p.Sandbox(ws, sandbox.Config{})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{filepath.Join(ws, ".env"), filepath.Join(ws, "keys/**"), filepath.Join(ws, "secrets")}
	if diff := cmp.Diff(want, box.Masked); diff != "" {
		t.Errorf("Masked (-want +got):\n%s", diff)
	}
	for rel, denied := range map[string]bool{".env": true, "./.env": true, "sub/../.env": true, "keys/a/b": true, "keys": true, "secrets/x": true, "out": false, "sub/.env": false} {
		if _, got := p.DeniesRead(rel); got != denied {
			t.Errorf("DeniesRead(%q) = %v, want %v", rel, got, denied)
		}
	}
}
