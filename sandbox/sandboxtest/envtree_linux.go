package sandboxtest

import (
	"bytes"
	"os"
	"strconv"
	"syscall"
	"testing"
	"time"
)

// EnvTree marks the processes of one test's program by an environment
// entry that every process it starts inherits, and finds them on the host
// whatever PID namespace they run in. Unlike [Tree] it needs no file
// written, so it serves read-only profiles too.
type EnvTree struct {
	// Env is the entry to put in the program's environment.
	Env    string
	needle []byte
}

// NewEnvTree returns an EnvTree with a mark of its own; processes still marked
// when the test ends are killed, and fail it.
func NewEnvTree(t testing.TB) *EnvTree {
	tr := &EnvTree{Env: "QUIVER_TEST_TREE=" + randomHex(t)}
	tr.needle = append([]byte(tr.Env), 0)
	t.Cleanup(func() {
		if left := tr.Live(); len(left) > 0 {
			for _, pid := range left {
				syscall.Kill(pid, syscall.SIGKILL)
			}
			t.Errorf("processes %v of the tree outlived the test", left)
		}
	})
	return tr
}

// Live returns the host pids of the tree's processes that have not died.
func (tr *EnvTree) Live() []int {
	pids, _ := tr.live()
	return pids
}

// live returns the host pids of the tree's live processes and how many of
// them are TreeLine's daemon.
func (tr *EnvTree) live() (pids []int, daemons int) {
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		env, err := os.ReadFile("/proc/" + e.Name() + "/environ")
		if err != nil || !bytes.Contains(append([]byte{0}, env...), append([]byte{0}, tr.needle...)) {
			continue
		}
		if stat, err := os.ReadFile("/proc/" + e.Name() + "/stat"); err == nil && bytes.Contains(stat, []byte(") Z ")) {
			continue
		}
		pids = append(pids, pid)
		if cmdline, _ := os.ReadFile("/proc/" + e.Name() + "/cmdline"); bytes.Contains(cmdline, []byte("\x00tree-daemon\x00")) {
			daemons++
		}
	}
	return pids, daemons
}

// WaitStarted waits until n programs that ran TreeLine have each left
// their daemon and child running; it fails the test after a minute, which
// only a tree that never started takes.
func (tr *EnvTree) WaitStarted(t testing.TB, n int) {
	t.Helper()
	tr.await(t, func(live, daemons int) bool { return daemons >= n && live >= 3*n }, "started")
}

// WaitGone waits until none of the tree's processes is left; it fails the
// test after a minute, which only a process that was never killed takes.
func (tr *EnvTree) WaitGone(t testing.TB) {
	t.Helper()
	tr.await(t, func(live, _ int) bool { return live == 0 }, "killed")
}

func (tr *EnvTree) await(t testing.TB, ok func(live, daemons int) bool, what string) {
	t.Helper()
	for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if pids, daemons := tr.live(); ok(len(pids), daemons) {
			return
		}
	}
	t.Fatalf("the tree was not %s: live %v", what, tr.Live())
}
