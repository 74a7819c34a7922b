package quiver_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/quiverkit/quiver"
	"github.com/quiverkit/quiver/policy"
	"github.com/quiverkit/quiver/policy/approve"
	"github.com/quiverkit/quiver/provider/builtin"
	"github.com/quiverkit/quiver/sandbox"
)

// TestReadDenyMasksForProcesses: with deny = ["read_file(.env)"], every
// process a call starts reads nothing at .env — cat, grep -r, less, an
// interpreter, a symbolic link, a copy, a hard link made before the call —
// under each confined write scope, and a hard link to it cannot be made
// during the call. A denied directory reads empty. A rule spelled as an
// absolute path (with ./ and //, as a glob, through a link to the
// workspace, from ~) masks what its relative form does, and one naming a
// file outside the workspace masks that file.
func TestReadDenyMasksForProcesses(t *testing.T) {
	const secret = "SECRET_TOKEN=s3cr3t-value"
	for _, scope := range []sandbox.WriteScope{sandbox.WorkspaceWrite, sandbox.ReadOnly} {
		t.Run(string(scope), func(t *testing.T) {
			ws := t.TempDir()
			mustWrite(t, filepath.Join(ws, ".env"), secret+"\n", 0o600)
			mustWrite(t, filepath.Join(ws, "keys/id"), secret+"\n", 0o600)
			mustWrite(t, filepath.Join(ws, "notes.txt"), "public\n", 0o644)
			if err := os.Symlink(".env", filepath.Join(ws, "envlink")); err != nil {
				t.Fatal(err)
			}
			// A hard link made before the deny: the launcher finds it by
			// the file's identity and masks it too.
			if err := os.Link(filepath.Join(ws, ".env"), filepath.Join(ws, "notes-old.txt")); err != nil {
				t.Fatal(err)
			}
			outside := filepath.Join(t.TempDir(), "secret.txt")
			mustWrite(t, outside, secret+"\n", 0o600)
			wsLink := filepath.Join(t.TempDir(), "wslink")
			if err := os.Symlink(ws, wsLink); err != nil {
				t.Fatal(err)
			}
			t.Setenv("HOME", filepath.Dir(ws))
			deny := []string{"read_file(.env)", "read_file(keys)", "read_file(" + outside + ")"}
			spelled := map[string]string{
				"abs.env":  ws + "/abs.env",
				"dots.env": "/" + ws + "//./dots.env",
				"glob.env": ws + "/g[l]ob.*",
				"link.env": wsLink + "/link.env",
				"home.env": "~/" + filepath.Base(ws) + "/home.env",
			}
			lines := []string{"cat " + outside}
			for name, rule := range spelled {
				mustWrite(t, filepath.Join(ws, name), secret+"\n", 0o600)
				deny = append(deny, "read_file("+rule+")")
				lines = append(lines, "cat "+name)
			}
			pol, err := policy.New(policy.Config{Default: policy.Allow, Deny: deny}, scope)
			if err != nil {
				t.Fatal(err)
			}
			tk, err := quiver.New(quiver.WithRoot(ws), builtin.Standard(), quiver.WithPolicy(pol), quiver.WithApprover(approve.Auto))
			if err != nil {
				t.Fatal(err)
			}
			defer tk.Close()
			lines = append(lines,
				"cat .env",
				"grep -r SECRET .",
				"less .env < /dev/null",
				`python3 -c "print(open('.env').read())"`,
				"cat envlink",
				"cat notes-old.txt",
				"grep -r s3cr3t notes-old.txt",
				"cat keys/id; ls -a keys",
				"cat "+filepath.Join(ws, ".env"),
				"cat notes.txt", // the rest of the workspace reads as ever
			)
			if scope == sandbox.WorkspaceWrite {
				lines = append(lines, "cp .env copy && cat copy", "ln -s .env l2 && cat l2", "ln .env hard; cat hard")
			}
			for _, line := range lines {
				out, _ := tk.Invoke(context.Background(), "exec_command", map[string]any{"command": line})
				if view := out.Content.String(); strings.Contains(view, "s3cr3t") {
					t.Errorf("%s printed the secret:\n%s", line, view)
				}
			}
			out, err := tk.Invoke(context.Background(), "exec_command", map[string]any{"command": "cat notes.txt"})
			if err != nil || !strings.Contains(out.Content.String(), "public") {
				t.Errorf("cat notes.txt: %v\n%s", err, out.Content)
			}
		})
	}
}

// TestReadWorkspaceForProcesses: with [sandbox] read = "workspace", a
// command a call runs reads the workspace but not a file outside it (one
// in the user's home), through the toolkit's one profile.
func TestReadWorkspaceForProcesses(t *testing.T) {
	ws, home := t.TempDir(), t.TempDir()
	mustWrite(t, filepath.Join(ws, "notes.txt"), "public\n", 0o644)
	mustWrite(t, filepath.Join(home, "somefile-outside"), "outside-secret\n", 0o600)
	t.Setenv("HOME", home)
	tk, err := quiver.New(quiver.WithRoot(ws), builtin.Standard(), quiver.WithPolicy(policy.AllowAll()),
		quiver.WithSandbox(sandbox.Config{Read: sandbox.ReadScope{Workspace: true}}))
	if err != nil {
		t.Fatal(err)
	}
	defer tk.Close()
	for line, want := range map[string]string{"cat notes.txt": "public", "cat ~/somefile-outside": "Permission denied"} {
		out, err := tk.Invoke(context.Background(), "exec_command", map[string]any{"command": line})
		if view := out.Content.String(); err != nil || !strings.Contains(view, want) || strings.Contains(view, "outside-secret") {
			t.Errorf("%s: %v\n%s", line, err, view)
		}
	}
}
