package sandboxtest

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// buildWorkspace makes, in dir, the workspace every attempt starts from:
// a.txt in a git repository (the user's) with a submodule, sub, whose
// gitdir is .git/modules/sub and whose .git is a file; and n8, a nested
// repository that is plain content of the workspace (a cloned project
// ships one), whose config names programs that print mark: an external
// diff, a diff driver's command and textconv, and an fsmonitor hook (on
// stderr: git reads its stdout). home is the user's HOME for git.
func buildWorkspace(t testing.TB, dir, mark, home string) {
	t.Helper()
	sub := filepath.Join(home, "subsrc")
	if err := os.MkdirAll(filepath.Join(home, "git-template"), 0o755); err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(dir, "a.txt"), "inside\n")
	write(t, filepath.Join(sub, "s.txt"), "sub\n")
	write(t, filepath.Join(dir, "n8/.gitattributes"), "*.t diff=tc\n")
	write(t, filepath.Join(dir, "n8/x.t"), "one\n")
	n8 := filepath.Join(dir, "n8")
	for _, step := range []struct {
		dir  string
		args []string
	}{
		{sub, []string{"init", "-q", "-b", "main"}},
		{sub, []string{"add", "-A"}},
		{sub, []string{"commit", "-q", "-m", "sub"}},
		{dir, []string{"init", "-q", "-b", "main"}},
		{dir, []string{"add", "a.txt"}},
		{dir, []string{"-c", "protocol.file.allow=always", "submodule", "add", "-q", sub, "sub"}},
		{dir, []string{"commit", "-q", "-m", "init"}},
		{n8, []string{"init", "-q", "-b", "main"}},
		{n8, []string{"add", "-A"}},
		{n8, []string{"commit", "-q", "-m", "n8"}},
		{n8, []string{"config", "diff.external", "echo " + mark}},
		{n8, []string{"config", "diff.tc.textconv", "echo " + mark}},
		{n8, []string{"config", "diff.tc.command", "echo " + mark}},
		{n8, []string{"config", "core.fsmonitor", "echo " + mark + " >&2"}},
	} {
		if out, err := userGit(home, step.dir, step.args...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", step.args, err, out)
		}
	}
	write(t, filepath.Join(n8, "x.t"), "two\n")
	write(t, filepath.Join(n8, "y.t"), "three\n")
}

// UserGit runs git in dir as the user would, unconfined, with none of
// Quiver's protections and the test's own environment, and returns what it
// wrote (both streams); a git that fails fails the test. The git tests set
// repositories up with it and read what a confined call left behind.
func UserGit(t testing.TB, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return string(out)
}

// userGit is git as the user runs it, unconfined, in dir. Its HOME, home,
// holds an empty template directory, so that new repositories get no
// sample hooks (fewer files to copy for each attempt).
func userGit(home, dir string, args ...string) *exec.Cmd {
	cmd := exec.Command("git", append([]string{"-c", "user.name=User", "-c", "user.email=user@example.invalid"}, args...)...)
	cmd.Dir = dir
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "GIT_CONFIG_NOSYSTEM=1", "LANG=C",
		"GIT_TEMPLATE_DIR=" + filepath.Join(home, "git-template")}
	return cmd
}

func write(t testing.TB, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// preloadSource is {PRELOAD}: a library whose constructor writes the file
// $ESCAPE_OUT names, in whatever process loads it (as LD_PRELOAD, or as
// LD_AUDIT, which also needs la_version).
const preloadSource = `#include <stdio.h>
#include <stdlib.h>
__attribute__((constructor)) static void escape(void) {
	const char *p = getenv("ESCAPE_OUT");
	FILE *f = p ? fopen(p, "a") : NULL;
	if (f) { fputs("loaded before the sandbox\n", f); fclose(f); }
}
unsigned int la_version(unsigned int v) { return v; }
`

// buildPreload compiles preloadSource with the system's C compiler, which
// a machine that builds Quiver with cgo (its default) has.
func buildPreload(t testing.TB) string {
	t.Helper()
	dir := t.TempDir()
	write(t, filepath.Join(dir, "escape.c"), preloadSource)
	lib := filepath.Join(dir, "escape.so")
	if out, err := exec.Command("cc", "-shared", "-fPIC", "-o", lib, filepath.Join(dir, "escape.c")).CombinedOutput(); err != nil {
		t.Fatalf("building {PRELOAD} needs a C compiler (cc): %v\n%s", err, out)
	}
	return lib
}
