//go:build unix

package sandboxtest

import (
	"crypto/rand"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Tree is a process tree built to outlive a kill of its parent: a shell
// that ignores SIGTERM and SIGHUP and sleeps, and a grandchild it leaves
// behind through a double fork and setsid (another session and process
// group, its parent gone), ignoring them too. Each writes its pid to a file
// of the working directory. A background job that runs Argv and is killed
// must leave neither.
type Tree struct {
	dir, name string
	token     string // in both processes' command lines, telling this tree from another's
}

// NewTree returns a tree whose pid files go in dir, the workspace the
// command will run in, named after name.
func NewTree(t testing.TB, dir, name string) *Tree {
	return &Tree{dir: dir, name: name, token: "1000." + strconv.FormatUint(randomUint(t), 10)}
}

// Argv is the command that builds the tree, for exec_command's argv.
func (tr *Tree) Argv() []string {
	child, grandchild := tr.name+".child.pid", tr.name+".grandchild.pid"
	script := fmt.Sprintf(`trap '' TERM HUP
(setsid sh -c 'trap "" TERM HUP; echo $$ > %s; exec sleep %s' </dev/null >/dev/null 2>&1 &)
echo $$ > %s
exec sleep %s`, grandchild, tr.token, child, tr.token)
	return []string{"sh", "-c", script}
}

// PIDs waits for both processes to write their pids and returns them as the
// host sees them. A pid a PID namespace gave may be another namespace's too,
// even in the same directory: the host's is the one whose command line
// holds this tree's token.
func (tr *Tree) PIDs(t testing.TB) []int {
	t.Helper()
	var pids []int
	for _, f := range []string{tr.name + ".child.pid", tr.name + ".grandchild.pid"} {
		path := filepath.Join(tr.dir, f)
		deadline := time.Now().Add(30 * time.Second)
		for {
			b, err := os.ReadFile(path)
			pid, perr := strconv.Atoi(strings.TrimSuffix(string(b), "\n"))
			if err == nil && perr == nil && strings.HasSuffix(string(b), "\n") {
				// A process part-way through exec may show no command line:
				// look again until the deadline.
				if host := tr.hostPID(pid); host != 0 {
					pids = append(pids, host)
					break
				}
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s: no running process of tree %s with its pid %q within 30s (%v)", path, tr.name, b, err)
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
	return pids
}

// hostPID returns the host's pid of the process of the tree that calls
// itself pid, or 0.
func (tr *Tree) hostPID(pid int) int {
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		host, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		cmdline, _ := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		if !strings.Contains(string(cmdline), tr.token) {
			continue
		}
		status, _ := os.ReadFile("/proc/" + e.Name() + "/status")
		for line := range strings.Lines(string(status)) {
			if ids, ok := strings.CutPrefix(line, "NSpid:"); ok {
				if f := strings.Fields(ids); len(f) > 0 && f[len(f)-1] == strconv.Itoa(pid) {
					return host
				}
			}
		}
	}
	return 0
}

func randomUint(t testing.TB) uint64 {
	var b [8]byte
	if _, err := rand.Read(b[:]); err != nil {
		t.Fatal(err)
	}
	return binary.LittleEndian.Uint64(b[:]) % 1e12
}

// Alive reports whether process pid runs: it exists and is not a zombie
// (dead, waiting for a parent that may never reap it).
func Alive(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return syscall.Kill(pid, 0) == nil
	}
	_, rest, _ := strings.Cut(string(b), ") ")
	return !strings.HasPrefix(rest, "Z")
}

// WaitGone waits until none of pids runs, and fails the test, killing
// them, if one still does after a deadline; why says what should have
// ended them.
func WaitGone(t testing.TB, pids []int, why string) {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for {
		var left []int
		for _, pid := range pids {
			if Alive(pid) {
				left = append(left, pid)
			}
		}
		if len(left) == 0 {
			return
		}
		if time.Now().After(deadline) {
			for _, pid := range left {
				syscall.Kill(pid, syscall.SIGKILL)
			}
			t.Fatalf("processes %v still run 15s after %s", left, why)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// WantAlive fails the test if one of pids no longer runs.
func WantAlive(t testing.TB, pids []int, what string) {
	t.Helper()
	for _, pid := range pids {
		if !Alive(pid) {
			t.Errorf("process %d ended after %s; it should run", pid, what)
		}
	}
}
