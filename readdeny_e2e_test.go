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
)

// TestReadDenyMasksForProcesses: with deny = ["read_file(.env)"], every
// process a call starts reads nothing at .env — cat, grep -r, less, an
// interpreter, a symbolic link, a copy, a hard link made before the call —
// under each confined write scope, and a hard link to it cannot be made
// during the call. A denied directory reads empty.
func TestReadDenyMasksForProcesses(t *testing.T) {
	const secret = "SECRET_TOKEN=s3cr3t-value"
	for _, scope := range []policy.WriteScope{policy.WorkspaceWrite, policy.ReadOnly} {
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
			pol, err := policy.New(policy.Config{Default: policy.Allow, Deny: []string{"read_file(.env)", "read_file(keys)"}}, scope)
			if err != nil {
				t.Fatal(err)
			}
			tk, err := quiver.New(quiver.WithRoot(ws), builtin.Standard(), quiver.WithPolicy(pol), quiver.WithApprover(approve.Auto))
			if err != nil {
				t.Fatal(err)
			}
			defer tk.Close()
			lines := []string{
				"cat .env",
				"grep -r SECRET .",
				"less .env < /dev/null",
				`python3 -c "print(open('.env').read())"`,
				"cat envlink",
				"cat notes-old.txt",
				"grep -r s3cr3t notes-old.txt",
				"cat keys/id; ls -a keys",
				"cat " + filepath.Join(ws, ".env"),
				"cat notes.txt", // the rest of the workspace reads as ever
			}
			if scope == policy.WorkspaceWrite {
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
