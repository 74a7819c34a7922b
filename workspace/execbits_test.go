package workspace_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/quiverkit/quiver/workspace"
)

// TestWritesNeverLeaveHooksOrScriptsExecutable is the write half of breach 7
// of issue 18 (and breach 8's move): an approved rewrite of an executable in
// .git/hooks or .quiver/tools kept its exec bits, so one approved write
// became a program that the next commit or call ran unasked. Elsewhere the
// mode is kept, as docs/design.md section 5 says.
func TestWritesNeverLeaveHooksOrScriptsExecutable(t *testing.T) {
	tests := []struct {
		name  string
		setup func(t *testing.T, root string)
		write string      // the path written
		perm  fs.FileMode // the mode asked for, when the file is new
		file  string      // where the mode is checked (the write's target)
		want  fs.FileMode
	}{
		{"a hook rewritten loses its exec bits", existing(".git/hooks/pre-commit", 0o755), ".git/hooks/pre-commit", 0o644, ".git/hooks/pre-commit", 0o644},
		{"so does a script rewritten", existing(".quiver/tools/count.sh", 0o755), ".quiver/tools/count.sh", 0o644, ".quiver/tools/count.sh", 0o644},
		{"only the exec bits go", existing(".quiver/tools/count.sh", 0o750), ".quiver/tools/count.sh", 0o644, ".quiver/tools/count.sh", 0o640},
		{"a new file given an executable mode (a move) gets none", dirs(".git/hooks"), ".git/hooks/pre-commit", 0o755, ".git/hooks/pre-commit", 0o644},
		{"below the directory too", existing(".quiver/tools/lib/run", 0o755), ".quiver/tools/lib/run", 0o644, ".quiver/tools/lib/run", 0o644},
		{"in another spelling", existing(".quiver/tools/count.sh", 0o755), "./.quiver//tools/../tools/count.sh", 0o644, ".quiver/tools/count.sh", 0o644},
		{"through a symbolic link to the directory", linked("tools", ".quiver/tools", ".quiver/tools/count.sh"), "tools/count.sh", 0o644, ".quiver/tools/count.sh", 0o644},
		{"when the directory is a symbolic link to another", linked(".quiver/tools", "../scripts", "scripts/count.sh"), "scripts/count.sh", 0o644, "scripts/count.sh", 0o644},
		{"through a symbolic link to the file, in the hooks directory", linked(".git/hooks/pre-commit", "../../scripts/hook.sh", "scripts/hook.sh"), ".git/hooks/pre-commit", 0o644, "scripts/hook.sh", 0o644},
		{"in a repository nested in the workspace", existing("vendor/lib/.git/hooks/post-checkout", 0o755), "vendor/lib/.git/hooks/post-checkout", 0o644, "vendor/lib/.git/hooks/post-checkout", 0o644},
		{"whatever the case of the names", existing(".GIT/Hooks/pre-commit", 0o755), ".GIT/Hooks/pre-commit", 0o644, ".GIT/Hooks/pre-commit", 0o644},
		{"elsewhere an executable stays executable", existing("scripts/build.sh", 0o755), "scripts/build.sh", 0o644, "scripts/build.sh", 0o755},
		{"as does one beside the hooks", existing(".git/hooks-backup/pre-commit", 0o755), ".git/hooks-backup/pre-commit", 0o644, ".git/hooks-backup/pre-commit", 0o755},
		{"and a new file elsewhere gets the mode asked for", dirs("bin"), "bin/tool", 0o755, "bin/tool", 0o755},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := t.TempDir()
			tt.setup(t, root)
			ws, err := workspace.Open(root, workspace.Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer ws.Close()
			if err := ws.WriteFile(tt.write, []byte("#!/bin/sh\necho new\n"), tt.perm); err != nil {
				t.Fatal(err)
			}
			fi, err := os.Lstat(filepath.Join(root, tt.file))
			if err != nil {
				t.Fatal(err)
			}
			if got := fi.Mode(); got != tt.want {
				t.Errorf("mode %v, want %v", got, tt.want)
			}
			if data, _ := os.ReadFile(filepath.Join(root, tt.file)); string(data) != "#!/bin/sh\necho new\n" {
				t.Errorf("content %q: the write did not land in %s", data, tt.file)
			}
		})
	}
}

// existing makes a file with mode perm (and its directories).
func existing(rel string, perm fs.FileMode) func(*testing.T, string) {
	return func(t *testing.T, root string) {
		t.Helper()
		p := filepath.Join(root, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("#!/bin/sh\necho old\n"), perm); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(p, perm); err != nil { // past the umask
			t.Fatal(err)
		}
	}
}

func dirs(rels ...string) func(*testing.T, string) {
	return func(t *testing.T, root string) {
		t.Helper()
		for _, rel := range rels {
			if err := os.MkdirAll(filepath.Join(root, rel), 0o755); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// linked makes the executable file target and a symbolic link at link
// pointing to to (relative to the link's directory).
func linked(link, to, target string) func(*testing.T, string) {
	return func(t *testing.T, root string) {
		t.Helper()
		existing(target, 0o755)(t, root)
		p := filepath.Join(root, link)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(to, p); err != nil {
			t.Fatal(err)
		}
	}
}
