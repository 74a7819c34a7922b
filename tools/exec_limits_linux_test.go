package tools

import (
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"

	"github.com/quiverkit/quiver/sandbox"
	"github.com/quiverkit/quiver/sandbox/cgroup"
	"github.com/quiverkit/quiver/sandbox/sandboxtest"
	"github.com/quiverkit/quiver/tool"
)

// limitedEnv is an execEnv whose commands run confined under limits, with
// the network on (a user other than root may not bring a new network
// namespace's loopback up on every machine, which is beside the point).
func limitedEnv(t *testing.T, limits sandbox.Limits, allow ...string) *execEnv {
	t.Helper()
	e := newExecEnv(t, allow...)
	box, err := sandbox.New(sandbox.WorkspaceWrite, e.root, sandbox.Config{Limits: limits, Network: sandbox.AnyHost}, sandbox.StandardProtected)
	if err != nil {
		t.Fatal(err)
	}
	e.box = box
	return e
}

// wantLimit runs argv with the tree's mark under e and wants LIMIT_EXCEEDED
// naming the limit's setting, with key in its details, and nothing of the
// tree left running.
func wantLimit(t *testing.T, e *execEnv, argv []string, key, setting string) {
	t.Helper()
	tree := sandboxtest.NewTree(t)
	args := `{"argv":[` + quoteAll(argv) + `],"env":["` + tree.Env + `"],"timeout_secs":120}`
	_, err := e.exec(args)
	te := wantToolError(t, err, tool.CodeLimitExceeded, setting, "every process it started was killed")
	if te.Details["limit"] != key {
		t.Errorf("details: %v, want limit %q", te.Details, key)
	}
	if left := tree.Live(); len(left) > 0 {
		t.Errorf("processes %v outlived the call", left)
	}
}

func quoteAll(argv []string) string {
	q := make([]string, len(argv))
	for i, a := range argv {
		q[i] = strconv.Quote(a)
	}
	return strings.Join(q, ",")
}

// TestExecCommandLimits: a 2 GiB allocation under a 256 MiB limit and a
// busy loop under a CPU time limit each fail the call with LIMIT_EXCEEDED
// naming the limit, and leave nothing running; within the limits, the
// same programs' work succeeds.
func TestExecCommandLimits(t *testing.T) {
	alloc := func(mib int) []string {
		return []string{"perl", "-e", `my $x = "a" x (` + strconv.Itoa(mib) + ` * 1024 * 1024); print "allocated\n"`}
	}
	t.Run("memory", func(t *testing.T) {
		e := limitedEnv(t, sandbox.Limits{MemoryMiB: 256}, "perl")
		if out := e.execOK(`{"argv":[` + quoteAll(alloc(64)) + `]}`); out.ExitCode != 0 || !strings.Contains(out.Output, "allocated") {
			t.Fatalf("64 MiB under 256: %+v", out)
		}
		wantLimit(t, e, alloc(2048), "memory_mib", "[sandbox.limits] memory_mib = 256")
	})
	t.Run("cpu time", func(t *testing.T) {
		e := limitedEnv(t, sandbox.Limits{CPUSeconds: 1}, "sh")
		wantLimit(t, e, []string{"sh", "-c", "while :; do :; done"}, "cpu_seconds", "[sandbox.limits] cpu_seconds = 1")
	})
}

// forkLoop forks up to 200 children that sleep, and fails when a fork
// fails, saying why.
const forkLoop = `for $i (1..200) { my $p = fork; if (!defined $p) { print "fork $i failed: $!\n"; exit 3 } if ($p == 0) { sleep 60; exit 0 } } print "forked 200\n"`

// TestExecCommandProcessLimit: a bounded fork loop stops at the processes
// limit, and the call fails with LIMIT_EXCEEDED naming it, its sleeping
// children gone. Where a cgroup holds the limit it holds for root; without
// one the kernel never counts root's tasks, so as root the test runs
// itself again as nobody (resource limits alone) in any case.
func TestExecCommandProcessLimit(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Run("as nobody", func(t *testing.T) { sandboxtest.AsNobody(t, "TestExecCommandProcessLimit") })
		if host := cgroup.Detect(); host.Version() == cgroup.None {
			t.Logf("as root, the processes limit holds only through a cgroup, and there is none here: %s", host.Why())
			return
		}
	}
	e := limitedEnv(t, sandbox.Limits{Processes: 32}, "perl")
	wantLimit(t, e, []string{"perl", "-e", forkLoop}, "processes", "[sandbox.limits] processes = 32")
}

// wantJobLimit wants err to be the LIMIT_EXCEEDED a job's end reports:
// naming the limit's setting, with key, the exit code and the job in its
// details, and nothing of tree left running.
func wantJobLimit(t *testing.T, err error, id, key, setting string, tree *sandboxtest.Tree) {
	t.Helper()
	te := wantToolError(t, err, tool.CodeLimitExceeded, setting, "every process it started was killed")
	if te.Details["limit"] != key || te.Details["job_id"] != id || te.Details["exit_code"] == nil || te.Details["exit_code"] == 0 {
		t.Errorf("details: %v, want limit %q, job_id %q and a failing exit_code", te.Details, key, id)
	}
	if left := tree.Live(); len(left) > 0 {
		t.Errorf("processes %v outlived the job", left)
	}
}

// TestJobAndSessionLimits: a background job and an interactive session
// (with and without a terminal) that reach their CPU time limit after the
// call that started them returned report LIMIT_EXCEEDED to the call that
// observes their end — exec_output, write_stdin — as a command in the
// foreground does, and every process they started is gone. Later reads
// say so again, and exec_kill of the ended job too.
func TestJobAndSessionLimits(t *testing.T) {
	const setting = "[sandbox.limits] cpu_seconds = 1"
	t.Run("background job", func(t *testing.T) {
		e := limitedEnv(t, sandbox.Limits{CPUSeconds: 1}, "sh")
		tree := sandboxtest.NewTree(t)
		id := e.execOK(`{"argv":["sh","-c","while :; do :; done"],"background":true,"env":["` + tree.Env + `"]}`).JobID
		_, err := e.jobCall(newExecOutput(), `{"job_id":"`+id+`","wait_secs":120}`)
		wantJobLimit(t, err, id, "cpu_seconds", setting, tree)
		_, err = e.jobCall(newExecOutput(), `{"job_id":"`+id+`"}`)
		wantJobLimit(t, err, id, "cpu_seconds", setting, tree)
		_, err = e.jobCall(newExecKill(), `{"job_id":"`+id+`"}`)
		wantJobLimit(t, err, id, "cpu_seconds", setting, tree)
	})
	for _, tty := range []bool{false, true} {
		t.Run("session tty="+strconv.FormatBool(tty), func(t *testing.T) {
			e := limitedEnv(t, sandbox.Limits{CPUSeconds: 1}, "sh")
			tree := sandboxtest.NewTree(t)
			start := e.execOK(`{"argv":["sh"],"yield_time_ms":10,"tty":` + strconv.FormatBool(tty) + `,"env":["` + tree.Env + `"]}`)
			if start.SessionID == "" {
				t.Fatalf("no session: %+v", start)
			}
			// write_stdin answers as soon as the session ends: the long
			// yield is a hang guard.
			_, err := e.jobCall(newWriteStdin(), `{"session_id":"`+start.SessionID+`","chars":"while :; do :; done\n","yield_time_ms":120000}`)
			wantJobLimit(t, err, start.SessionID, "cpu_seconds", setting, tree)
		})
	}
}

// TestJobProcessLimit: a background fork loop stops at the processes
// limit, and exec_output reports LIMIT_EXCEEDED naming it, its sleeping
// children gone. As root it holds through a cgroup, and the test runs
// itself again as nobody in any case (see TestExecCommandProcessLimit).
func TestJobProcessLimit(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Run("as nobody", func(t *testing.T) { sandboxtest.AsNobody(t, "TestJobProcessLimit") })
		if host := cgroup.Detect(); host.Version() == cgroup.None {
			t.Logf("as root, the processes limit holds only through a cgroup, and there is none here: %s", host.Why())
			return
		}
	}
	e := limitedEnv(t, sandbox.Limits{Processes: 32}, "perl")
	tree := sandboxtest.NewTree(t)
	id := e.execOK(`{"argv":["perl","-e",` + strconv.Quote(forkLoop) + `],"background":true,"env":["` + tree.Env + `"]}`).JobID
	_, err := e.jobCall(newExecOutput(), `{"job_id":"`+id+`","wait_secs":120}`)
	wantJobLimit(t, err, id, "processes", "[sandbox.limits] processes = 32", tree)
}

// TestExecCommandLimitsFromTheKernel: where a cgroup holds the limits, a
// program that fills a shared map (what RLIMIT_DATA misses) fails the call
// at the memory limit, and one that only prints what a failed allocation
// or fork prints, and exits 1, is an ordinary failure: the kernel counted
// nothing.
func TestExecCommandLimitsFromTheKernel(t *testing.T) {
	host := cgroup.Detect()
	if host.Version() == cgroup.None {
		t.Skipf("no cgroup holds the limits here: %s", host.Why())
	}
	e := limitedEnv(t, sandbox.Limits{Processes: 64, MemoryMiB: 128}, "sh", "python3")
	for _, fake := range []string{"Cannot allocate memory", "Out of memory!", "fork: Resource temporarily unavailable"} {
		out := e.execOK(`{"argv":["sh","-c",` + strconv.Quote("echo '"+fake+"' >&2; exit 1") + `]}`)
		if out.ExitCode != 1 || !strings.Contains(out.Output, fake) {
			t.Errorf("%q: %+v", fake, out)
		}
	}
	if !host.Memory() {
		t.Skipf("the cgroup here does not bound memory: %s", host.Why())
	}
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("no python3 for the shared map")
	}
	fill := "import mmap\nm = mmap.mmap(-1, 1 << 30)\nfor i in range(0, 1 << 30, 4096): m[i] = 1\nprint('filled')"
	wantLimit(t, e, []string{"python3", "-c", fill}, "memory_mib", "[sandbox.limits] memory_mib = 128")
}
