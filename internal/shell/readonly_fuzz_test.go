//go:build unix

package shell

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/quiverkit/quiver/workspace"
)

// FuzzReadOnlyCommand runs every line the classifier calls read-only in a
// harness that detects what a read-only line must not do: write anything in
// the workspace (a git repository) or in a directory outside it, or start a
// program that is not on the allowlist. Programs are found through a PATH
// of one directory: each allowlisted program is a link to the real one,
// and every other common program name (shells, interpreters, rm, touch,
// tee...) is a trap that records it ran. git's own child processes are seen
// through GIT_TRACE. Lines are run by the real runner, under a gate that
// allows everything, so that only the classifier stands between a line and
// the harness.
//
// A limit: a program started by absolute path (git runs a pager's shell
// line with /bin/sh) is caught by what it writes or by GIT_TRACE, not by a
// trap.
func FuzzReadOnlyCommand(f *testing.F) {
	h := newReadOnlyHarness(f)
	for _, tt := range redTeamReadOnly {
		f.Add(tt.line)
	}
	f.Fuzz(func(t *testing.T, line string) {
		if !ReadOnlyCommand(line, judged(Classifier(nil))) {
			return
		}
		for _, problem := range h.check(t, line) {
			t.Error(problem)
		}
	})
}

// TestReadOnlyHarnessDetects shows the harness catches what the red team
// did, run past the classifier: a write, a trap, a program git runs.
func TestReadOnlyHarnessDetects(t *testing.T) {
	h := newReadOnlyHarness(t)
	for _, line := range []string{"git grep -Orm needle", "sort -S 100k --compress-program=sh cmds.txt",
		"git stash show -p --output=F", "sort --output=../outside/x names.txt", "git grep -Oid needle"} {
		if len(h.check(t, line)) == 0 {
			t.Errorf("%q: the harness saw nothing", line)
		}
	}
}

// trapNames are programs a read-only line must never start.
var trapNames = strings.Fields("sh bash dash zsh ksh ash busybox touch rm rmdir cp mv ln mkdir chmod chown " +
	"truncate install tee dd python python3 perl ruby node php lua awk gawk mawk sed make env xargs less more " +
	"vi vim nano ed gzip gunzip zcat xz bzip2 pr curl wget ssh gpg man sudo id")

type readOnlyHarness struct {
	root, ws, outside string
	trapLog, gitTrace string
	env               []string
	w                 *workspace.Workspace
}

func newReadOnlyHarness(f testing.TB) *readOnlyHarness {
	if _, err := exec.LookPath("git"); err != nil {
		f.Fatalf("the harness needs git: %v", err)
	}
	root := f.TempDir()
	h := &readOnlyHarness{root: root, ws: filepath.Join(root, "ws"), outside: filepath.Join(root, "outside"),
		trapLog: filepath.Join(root, "trap.log"), gitTrace: filepath.Join(root, "git-trace.log")}
	bin, home := filepath.Join(root, "bin"), filepath.Join(root, "home")
	for _, d := range []string{h.ws, h.outside, bin, home} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			f.Fatal(err)
		}
	}
	h.linkPrograms(f, bin)
	h.env = []string{"PATH=" + bin, "HOME=" + home, "LANG=C", "GIT_CONFIG_NOSYSTEM=1", "GIT_OPTIONAL_LOCKS=0",
		"GIT_TRACE=" + h.gitTrace, "QUIVER_TRAP_LOG=" + h.trapLog, "GOPROXY=off", "GOTOOLCHAIN=local",
		"GOFLAGS=-mod=readonly", "GOCACHE=" + filepath.Join(root, "cache", "build"),
		"GOMODCACHE=" + filepath.Join(root, "cache", "mod"), "GOPATH=" + filepath.Join(root, "cache", "gopath")}
	h.setUpRepo(f)
	w, err := workspace.Open(h.ws, workspace.Options{})
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { w.Close() })
	h.w = w
	return h
}

// linkPrograms fills bin: links to the allowlisted programs found on the
// host, traps for trapNames.
func (h *readOnlyHarness) linkPrograms(f testing.TB, bin string) {
	names := []string{"git", "go", "find"}
	for name := range programs() {
		names = append(names, name)
	}
	for _, name := range names {
		if contains(trapNames, name) {
			continue
		}
		if real, err := exec.LookPath(name); err == nil {
			if err := os.Symlink(real, filepath.Join(bin, name)); err != nil {
				f.Fatal(err)
			}
		}
	}
	trap := "#!/bin/sh\necho \"$0 $*\" >> \"$QUIVER_TRAP_LOG\"\nexit 1\n"
	for _, name := range trapNames {
		if err := os.WriteFile(filepath.Join(bin, name), []byte(trap), 0o755); err != nil {
			f.Fatal(err)
		}
	}
}

// setUpRepo makes the workspace a git repository with a commit, a stash,
// a tag and a remote, and puts a file outside it.
func (h *readOnlyHarness) setUpRepo(f testing.TB) {
	files := map[string]string{"f.txt": "needle\nhay\n", "names.txt": "b\na\nb\n", "sub/g.go": "package sub\n",
		// big enough for sort -S 100k to spill, and so run its compressor
		"cmds.txt": strings.Repeat("touch PWNED # a line sort has to keep\n", 8000)}
	for name, body := range files {
		p := filepath.Join(h.ws, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			f.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			f.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(h.outside, "secret"), []byte("s\n"), 0o644); err != nil {
		f.Fatal(err)
	}
	for _, args := range [][]string{{"init", "-q", "-b", "main"}, {"add", "."}, {"-c", "user.name=t", "-c", "user.email=t@t",
		"commit", "-qm", "one"}, {"tag", "v1"}, {"remote", "add", "origin", "https://example.invalid/x"}} {
		cmd := exec.Command("git", args...)
		cmd.Dir, cmd.Env = h.ws, h.env
		if out, err := cmd.CombinedOutput(); err != nil {
			f.Fatalf("git %s: %v\n%s", args, err, out)
		}
	}
	if err := os.WriteFile(filepath.Join(h.ws, "f.txt"), []byte("needle\nchanged\n"), 0o644); err != nil {
		f.Fatal(err)
	}
	for _, args := range [][]string{{"-c", "user.name=t", "-c", "user.email=t@t", "stash", "-q"}, {"status"}} {
		cmd := exec.Command("git", args...)
		cmd.Dir, cmd.Env = h.ws, h.env
		if out, err := cmd.CombinedOutput(); err != nil {
			f.Fatalf("git %s: %v\n%s", args, err, out)
		}
	}
}

// check runs line and returns what it did that a read-only line must not.
func (h *readOnlyHarness) check(t *testing.T, line string) []string {
	for _, log := range []string{h.trapLog, h.gitTrace} {
		os.Remove(log)
	}
	before := h.snapshot(t)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	var out syncBuffer
	spec := Spec{Command: line, Dir: h.ws, Env: h.env, BaseEnv: h.env, Workspace: h.w, Gate: allowAllGate{}, Output: &out}
	if _, err := Run(ctx, spec); err != nil {
		t.Fatalf("%q: %v", line, err)
	}
	var problems []string
	if diff := cmp.Diff(before, h.snapshot(t)); diff != "" {
		problems = append(problems, fmt.Sprintf("%q changed files (-before +after):\n%s\noutput: %s", line, diff, out.String()))
	}
	if b, err := os.ReadFile(h.trapLog); err == nil {
		problems = append(problems, fmt.Sprintf("%q ran %s", line, b))
	}
	for _, run := range gitRuns(h.gitTrace) {
		problems = append(problems, fmt.Sprintf("%q made git run %s", line, run))
	}
	return problems
}

// gitRuns returns the programs other than git that GIT_TRACE says git ran.
func gitRuns(trace string) []string {
	fh, err := os.Open(trace)
	if err != nil {
		return nil
	}
	defer fh.Close()
	var out []string
	sc := bufio.NewScanner(fh)
	for sc.Scan() {
		_, cmd, ok := strings.Cut(sc.Text(), "run_command: ")
		if ok && !strings.HasPrefix(cmd, "git ") && !strings.HasPrefix(cmd, "'git' ") {
			out = append(out, cmd)
		}
	}
	return out
}

// snapshot describes every file of the workspace and the outside directory:
// path, mode, size, modification time and content hash.
func (h *readOnlyHarness) snapshot(t *testing.T) []string {
	var out []string
	for _, dir := range []string{h.ws, h.outside} {
		err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			fi, err := os.Lstat(p)
			if err != nil {
				return err
			}
			sum := ""
			if fi.Mode().IsRegular() {
				b, err := os.ReadFile(p)
				if err != nil {
					return err
				}
				s := sha256.Sum256(b)
				sum = hex.EncodeToString(s[:8])
			}
			rel, _ := filepath.Rel(h.root, p)
			out = append(out, fmt.Sprintf("%s %v %d %d %s", rel, fi.Mode(), fi.Size(), fi.ModTime().UnixNano(), sum))
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	sort.Strings(out)
	return out
}

// allowAllGate lets everything run: the harness tests the classifier alone.
type allowAllGate struct{}

func (allowAllGate) CheckCommand(context.Context, []string) error { return nil }
func (allowAllGate) CheckWrite(context.Context, string) error     { return nil }
