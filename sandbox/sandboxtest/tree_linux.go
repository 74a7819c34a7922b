package sandboxtest

import (
	"bytes"
	"os"
	"strconv"
	"syscall"
	"testing"
	"time"
)

// Tree finds the processes that one test's program leaves behind — by
// running [TreeLine], a child that ignores SIGTERM and SIGHUP and a daemon
// that forked twice and called setsid — by a mark in their environment,
// which every process the program starts inherits. /proc shows it on the
// host whatever PID namespace they run in, and it needs no file written,
// so it serves read-only profiles too.
type Tree struct {
	// Env is the mark, an entry to put in the program's environment.
	Env     string
	needle  []byte
	started int // programs WaitStarted saw start
}

// NewTree returns a Tree with a mark of its own; processes still marked
// when the test ends are killed, and fail it.
func NewTree(t testing.TB) *Tree {
	tr := &Tree{Env: "QUIVER_TEST_TREE=" + randomHex(t)}
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

// Argv is a command that runs TreeLine with the mark in its environment,
// for a caller that takes an argv and no environment (exec_command).
func (tr *Tree) Argv() []string { return []string{"env", tr.Env, "sh", "-c", TreeLine} }

// Live returns the host pids of the tree's processes that have not died.
func (tr *Tree) Live() []int {
	pids, _ := tr.live()
	return pids
}

// live returns the host pids of the tree's live processes and how many of
// them are TreeLine's daemon.
func (tr *Tree) live() (pids []int, daemons int) {
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
			continue // dead, waiting for a parent that may never reap it
		}
		pids = append(pids, pid)
		if cmdline, _ := os.ReadFile("/proc/" + e.Name() + "/cmdline"); bytes.Contains(cmdline, []byte("\x00tree-daemon\x00")) {
			daemons++
		}
	}
	return pids, daemons
}

// running reports whether n programs' trees are whole: each one's daemon,
// and at least its child and the daemon's sleep beside it.
func running(n, live, daemons int) bool { return daemons >= n && live >= 3*n }

// WaitStarted waits until n programs that ran TreeLine have each left
// their daemon and child running; it fails the test after a minute, which
// only a tree that never started takes.
func (tr *Tree) WaitStarted(t testing.TB, n int) {
	t.Helper()
	tr.await(t, func(live, daemons int) bool { return running(n, live, daemons) }, "started")
	tr.started = n
}

// WantRunning fails the test unless the trees WaitStarted saw start still
// run whole: what says what must not have ended them.
func (tr *Tree) WantRunning(t testing.TB, what string) {
	t.Helper()
	if pids, daemons := tr.live(); tr.started == 0 || !running(tr.started, len(pids), daemons) {
		t.Errorf("the tree (%d started) no longer runs whole after %s: live %v, %d daemons", tr.started, what, pids, daemons)
	}
}

// WantGone fails the test if a process of the tree runs now, without
// waiting: for a caller that answers only once its processes have died.
func (tr *Tree) WantGone(t testing.TB, what string) {
	t.Helper()
	if left := tr.Live(); len(left) > 0 {
		t.Errorf("processes %v of the tree run after %s", left, what)
	}
}

// WaitGone waits until none of the tree's processes is left; it fails the
// test after a minute, which only a process that was never killed takes.
func (tr *Tree) WaitGone(t testing.TB) {
	t.Helper()
	tr.await(t, func(live, _ int) bool { return live == 0 }, "killed")
}

func (tr *Tree) await(t testing.TB, ok func(live, daemons int) bool, what string) {
	t.Helper()
	for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if pids, daemons := tr.live(); ok(len(pids), daemons) {
			return
		}
	}
	t.Fatalf("the tree was not %s within a minute: live %v", what, tr.Live())
}
