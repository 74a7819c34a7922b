package sandbox_test

import (
	"bufio"
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/quiverkit/quiver/sandbox"
	"github.com/quiverkit/quiver/sandbox/sandboxtest"
)

// TestOtherCallsTempDirIsUnreachable (an attacker's view): while one
// confined call holds a file in its TMPDIR, a second, concurrent call
// tries every way to read it — by its path, listing and searching where
// TMPDIRs live, a symbolic link, the first call's processes in /proc —
// and gets nothing; its own TMPDIR works. Afterwards neither directory is
// left. Reads open (the mount namespace hides the other TMPDIR) and
// narrowed to the workspace (Landlock, besides).
func TestOtherCallsTempDirIsUnreachable(t *testing.T) {
	for _, read := range []sandbox.ReadScope{{}, {Workspace: true}} {
		t.Run("read="+read.String(), func(t *testing.T) { otherCallsTempDir(t, read) })
	}
}

func otherCallsTempDir(t *testing.T, read sandbox.ReadScope) {
	p, ws, _ := profile(t, sandbox.WorkspaceWrite, sandbox.Config{Read: read})
	mark := randomMark(t)
	first, removeFirst, err := p.WithTempDir()
	if err != nil {
		t.Fatal(err)
	}
	private, err := sandbox.PrivateDir()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(first.TempDir, private+string(filepath.Separator)) {
		t.Fatalf("the call's TMPDIR %s is not in Quiver's private directory %s", first.TempDir, private)
	}
	holder := exec.Command("bash", "-c", `echo `+mark+` > "$TMPDIR/secret-`+mark+`" && cd "$TMPDIR" && echo started && exec sleep 1000`)
	holder.Dir = ws
	holder.Env = []string{"PATH=" + os.Getenv("PATH")}
	out, err := holder.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := first.Wrap(holder); err != nil {
		t.Fatal(err)
	}
	if err := holder.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		holder.Process.Kill()
		holder.Wait()
		removeFirst()
		if _, err := os.Stat(first.TempDir); !os.IsNotExist(err) {
			t.Errorf("the first call's TMPDIR is left: %v", err)
		}
	}()
	if line, err := bufio.NewReader(out).ReadString('\n'); line != "started\n" {
		t.Fatalf("the first call said %q, %v", line, err)
	}
	secret := filepath.Join(first.TempDir, "secret-"+mark) // its name gives it away too
	if b, err := os.ReadFile(secret); err != nil || !bytes.Contains(b, []byte(mark)) {
		t.Fatalf("the first call's file, read by the host: %q, %v", b, err)
	}
	hostPID := strconv.Itoa(holder.Process.Pid)
	attacks := []struct{ name, script string }{
		{"cat", "cat " + secret},
		{"ls", "ls -laR " + filepath.Dir(first.TempDir) + " " + private + " " + first.TempDir},
		{"find tmp", "find " + os.TempDir() + " -name 'secret*' -exec cat {} + 2>/dev/null; find " + private + " -exec cat {} + 2>/dev/null"},
		// go test's own log, testlog.txt under go-build*, names the files the
		// test opened: the host's read of the secret is not the call's.
		{"grep", "grep -rsa --exclude-dir='go-build*' " + mark + " " + os.TempDir() + " " + private},
		{"symlink", `ln -s ` + secret + ` "$TMPDIR/l" && cat "$TMPDIR/l"; ln -s ` + first.TempDir + ` "$TMPDIR/d" && cat "$TMPDIR/d/secret-` + mark + `"`},
		{"proc cwd", "cat /proc/" + hostPID + "/cwd/secret-" + mark + " /proc/" + hostPID + "/root" + secret + "; for p in /proc/[0-9]*; do cat $p/cwd/secret-" + mark + " $p/root" + secret + "; done"},
		{"cd", "cd " + first.TempDir + " && cat secret-" + mark},
	}
	for _, a := range attacks {
		t.Run(a.name, func(t *testing.T) {
			second, removeSecond, err := p.WithTempDir()
			if err != nil {
				t.Fatal(err)
			}
			defer func() {
				removeSecond()
				if _, err := os.Stat(second.TempDir); !os.IsNotExist(err) {
					t.Errorf("the second call's TMPDIR is left: %v", err)
				}
			}()
			// Errors are dropped: they name the paths tried, the mark too.
			got, _ := run(t, second, ws, "bash", "-c", "exec 2>/dev/null; "+a.script)
			if strings.Contains(got, mark) {
				t.Errorf("the second call read the first call's TMPDIR:\n%s", got)
			}
			// Its own TMPDIR works, at the path its environment names.
			own, err := run(t, second, ws, "bash", "-c", `echo mine > "$TMPDIR/f" && cat "$TMPDIR/f" && test "$TMPDIR" = `+second.TempDir)
			if err != nil || own != "mine\n" {
				t.Errorf("the second call's own TMPDIR: %q, %v", own, err)
			}
		})
	}
	// The first call still reads its own.
	if got, err := run(t, first, ws, "cat", secret); err != nil || !strings.Contains(got, mark) {
		t.Errorf("the first call's own file: %q, %v", got, err)
	}
}

// TestKilledHostsTempDirIsSwept: a Quiver killed outright (SIGKILL) cannot
// remove its calls' TMPDIRs; the next Quiver to make one removes them.
func TestKilledHostsTempDirIsSwept(t *testing.T) {
	t.Setenv("TMPDIR", t.TempDir()) // a private directory of the test's own
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	host := exec.Command(exe, "-test.run=^TestHelperHost$")
	host.Env = append(os.Environ(), hostEnv+`=echo left > "$TMPDIR/stale"; echo started; exec sleep 1000`)
	stdout, err := host.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	host.Stderr = &stderr
	if err := host.Start(); err != nil {
		t.Fatal(err)
	}
	if line, err := bufio.NewReader(stdout).ReadString('\n'); err != nil {
		host.Process.Kill()
		host.Wait()
		t.Fatalf("the host said %q (%v): %s", line, err, stderr.String())
	}
	host.Process.Signal(syscall.SIGKILL)
	host.Wait()
	private, err := sandbox.PrivateDir()
	if err != nil {
		t.Fatal(err)
	}
	pattern := filepath.Join(private, "own-*", "call-*", "stale")
	left, _ := filepath.Glob(pattern)
	if len(left) != 1 {
		t.Fatalf("the killed host left %v, want its call's file", left)
	}
	// What else a Quiver keeps in its own directory (exec_command's output
	// files, job logs) goes with it.
	deadOwn := filepath.Dir(filepath.Dir(left[0]))
	if err := os.MkdirAll(filepath.Join(deadOwn, "exec-1"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(deadOwn, "exec-1", "x.out"), []byte("output"), 0o600); err != nil {
		t.Fatal(err)
	}
	p, _, _ := profile(t, sandbox.WorkspaceWrite, sandbox.Config{})
	q, remove, err := p.WithTempDir()
	if err != nil {
		t.Fatal(err)
	}
	defer remove()
	if _, err := os.Stat(deadOwn); !os.IsNotExist(err) {
		t.Errorf("after a new call's TMPDIR, the killed host's own directory: %v", err)
	}
	if _, err := os.Stat(deadOwn + ".lock"); !os.IsNotExist(err) {
		t.Errorf("after a new call's TMPDIR, the killed host's lock file: %v", err)
	}
	if _, err := os.Stat(q.TempDir); err != nil {
		t.Errorf("the new call's TMPDIR: %v", err)
	}
}

// TestCallTempDirWorksForAnyUser: the launcher mounts a call's TMPDIR back
// inside the masked private directory as the user it runs as, without a
// capability over files of the user's group (unmapped in its namespace),
// so it works for a user who is not root: as root, the test runs itself
// again as nobody.
func TestCallTempDirWorksForAnyUser(t *testing.T) {
	if os.Geteuid() == 0 {
		sandboxtest.AsNobody(t, "TestCallTempDirWorksForAnyUser")
		return
	}
	p, ws, _ := profile(t, sandbox.WorkspaceWrite, sandbox.Config{})
	q, remove, err := p.WithTempDir()
	if err != nil {
		t.Fatal(err)
	}
	defer remove()
	out, err := run(t, q, ws, "bash", "-c", `echo mine > "$TMPDIR/f" && cat "$TMPDIR/f"`)
	if err != nil || out != "mine\n" {
		t.Errorf("the call's own TMPDIR: %q, %v", out, err)
	}
}
