package launch

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestProtectedLinks: a protected path that is a symbolic link, or lies
// beyond one, keeps its link and what it points to: neither can be
// replaced, removed, renamed or written by a confined process, for links
// in the workspace and out of it, chains, links to directories and links
// on the way. A link whose target is missing and could be created is
// refused at start.
func TestProtectedLinks(t *testing.T) {
	attacks := []string{
		"echo x > {P}",
		"rm -f {P}; echo x > {P}",
		"mv {P} moved; echo x > {P}",
		"ln -sfn /etc/hostname {P}",
		"rm -rf {P}",
		"cd $(dirname {P}) && mv $(basename {P}) m && ln -s m $(basename {P})",
		"P={P}; rm -f ${P%%/*} && mkdir -p $(dirname {P}) && echo x > {P}", // the first component, a link on the way
		"echo x > {T}", "rm -f {T}; echo x > {T}", "mv $(dirname {T}) gone",
	}
	for _, tc := range []struct {
		name      string
		protected string            // workspace-relative
		links     map[string]string // link -> target, workspace-relative unless absolute
		files     []string          // workspace-relative files holding "kept"
		outside   bool              // the target lies outside the workspace
		target    string            // what {T} names: the file the chain ends at
	}{
		{"quiver.toml -> conf/quiver.toml", "quiver.toml", map[string]string{"quiver.toml": "conf/quiver.toml"},
			[]string{"conf/quiver.toml"}, false, "conf/quiver.toml"},
		{"a chain: quiver.toml -> a.toml -> conf/b.toml", "quiver.toml",
			map[string]string{"quiver.toml": "a.toml", "a.toml": "conf/b.toml"}, []string{"conf/b.toml"}, false, "conf/b.toml"},
		{".git/config -> ../shared/config", ".git/config", map[string]string{".git/config": "../shared/config"},
			[]string{"shared/config", ".git/HEAD"}, false, "shared/config"},
		{".git/hooks -> ../githooks (a directory)", ".git/hooks", map[string]string{".git/hooks": "../githooks"},
			[]string{"githooks/pre-commit", ".git/HEAD"}, false, "githooks/pre-commit"},
		{".quiver -> conf/quiver-dir (a directory)", ".quiver", map[string]string{".quiver": "conf/quiver-dir"},
			[]string{"conf/quiver-dir/tools.toml"}, false, "conf/quiver-dir/tools.toml"},
		{".git a link on the way: .git -> repo.git", ".git/config", map[string]string{".git": "repo.git"},
			[]string{"repo.git/config"}, false, "repo.git/config"},
		{"an operator's path: secrets/key.pem -> ../keys/key.pem", "secrets/key.pem",
			map[string]string{"secrets/key.pem": "../keys/key.pem"}, []string{"keys/key.pem", "secrets/other"}, false, "keys/key.pem"},
		{"a link out of the workspace", "quiver.toml", map[string]string{"quiver.toml": "{OUT}/quiver.toml"},
			nil, true, "{OUT}/quiver.toml"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, attack := range attacks {
				ws, out := t.TempDir(), t.TempDir()
				expand := strings.NewReplacer("{OUT}", out).Replace
				for _, f := range tc.files {
					writeKept(t, filepath.Join(ws, f))
				}
				if tc.outside {
					writeKept(t, expand(tc.target))
				}
				for link, target := range tc.links {
					mkdirs(t, filepath.Dir(filepath.Join(ws, link)))
					if err := os.Symlink(expand(target), filepath.Join(ws, link)); err != nil {
						t.Fatal(err)
					}
				}
				target := expand(tc.target)
				if !filepath.IsAbs(target) {
					target = filepath.Join(ws, target)
				}
				line := strings.NewReplacer("{P}", tc.protected, "{T}", target).Replace(attack)
				s := Spec{Workspace: ws, Protected: []string{filepath.Join(ws, tc.protected)}}
				outp, err := runConfined(t, s, "bash", "-c", line)
				for link, want := range tc.links {
					if got, lerr := os.Readlink(filepath.Join(ws, link)); lerr != nil || got != expand(want) {
						t.Errorf("%s: the link %s now reads %q, %v (exit %v)\n%s", line, link, got, lerr, err, outp)
					}
				}
				if b, rerr := os.ReadFile(target); rerr != nil || string(b) != "kept\n" {
					t.Errorf("%s: the target %s now holds %q, %v (exit %v)\n%s", line, target, b, rerr, err, outp)
				}
			}
		})
	}
}

// TestProtectedDanglingLinkRefused: a protected link whose target is
// missing where a confined process could create it refuses the start,
// saying why; one whose target is missing where nothing confined writes
// starts.
func TestProtectedDanglingLinkRefused(t *testing.T) {
	ws, out := t.TempDir(), t.TempDir()
	if err := os.Symlink("conf/quiver.toml", filepath.Join(ws, "quiver.toml")); err != nil {
		t.Fatal(err)
	}
	s := Spec{Workspace: ws, Protected: []string{filepath.Join(ws, "quiver.toml")}}
	outp, err := runConfined(t, s, "true")
	if err == nil || !strings.Contains(outp, "does not exist and could be created") {
		t.Errorf("a dangling protected link in the workspace started: %v\n%s", err, outp)
	}
	if _, serr := os.Stat(filepath.Join(ws, "conf/quiver.toml")); serr == nil {
		t.Error("the target was created")
	}
	os.Remove(filepath.Join(ws, "quiver.toml"))
	if err := os.Symlink(filepath.Join(out, "none.toml"), filepath.Join(ws, "quiver.toml")); err != nil {
		t.Fatal(err)
	}
	if outp, err := runConfined(t, s, "true"); err != nil {
		t.Errorf("a link to a missing file outside every writable tree refused the start: %v\n%s", err, outp)
	}
}

func writeKept(t *testing.T, path string) {
	t.Helper()
	mkdirs(t, filepath.Dir(path))
	if err := os.WriteFile(path, []byte("kept\n"), 0o644); err != nil {
		t.Fatal(err)
	}
}
