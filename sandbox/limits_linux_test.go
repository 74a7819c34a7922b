package sandbox_test

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/quiverkit/quiver/sandbox"
	"github.com/quiverkit/quiver/sandbox/launch"
	"github.com/quiverkit/quiver/sandbox/sandboxtest"
)

// runLimited runs argv under a workspace-write profile with limits, the
// test tree's mark in its environment, and returns its combined output
// and exit status. The tree's cleanup fails the test if a process of it
// survives.
func runLimited(t *testing.T, limits sandbox.Limits, argv ...string) (string, int) {
	t.Helper()
	return runIn(t, sandbox.Config{Limits: limits}, argv...)
}

// runIn is runLimited under cfg, in a new workspace.
func runIn(t *testing.T, cfg sandbox.Config, argv ...string) (string, int) {
	t.Helper()
	ws := t.TempDir()
	p, err := sandbox.New(sandbox.WorkspaceWrite, ws, cfg, sandbox.StandardProtected)
	if err != nil {
		t.Fatal(err)
	}
	tree := sandboxtest.NewTree(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute) // a hang guard
	defer cancel()
	proc := sandbox.Command(ctx, p, argv[0], argv[1:]...)
	var out bytes.Buffer
	proc.Dir, proc.Env, proc.Stdout, proc.Stderr = ws, append(sandbox.HostEnv(nil), tree.Env), &out, &out
	err = proc.Run()
	if ctx.Err() != nil {
		t.Fatalf("%v hung: %s", argv, out.String())
	}
	if _, ok := err.(*exec.ExitError); err != nil && !ok {
		t.Fatalf("%v: %v", argv, err)
	}
	if left := tree.Live(); len(left) > 0 {
		t.Errorf("processes %v outlived the call", left)
	}
	return out.String(), proc.ExitStatus()
}

// forkLoop forks up to 200 children that sleep, and says how many it had
// when a fork failed, and why.
const forkLoop = `for $i (1..200) { my $p = fork; if (!defined $p) { print "fork failed with $i: $!\n"; exit 3 } if ($p == 0) { sleep 60; exit 0 } } print "forked 200\n"`

var forkFailed = regexp.MustCompile(`fork failed with (\d+): Resource temporarily unavailable`)

// TestProcessLimit: a fork loop stops at [sandbox.limits] processes, also
// from a nested user namespace (the kernel counts its tasks in the
// call's), and nothing it started outlives the call. The kernel never
// counts root's tasks, so as root the test runs itself again as nobody.
func TestProcessLimit(t *testing.T) {
	if os.Geteuid() == 0 {
		sandboxtest.AsNobody(t, "TestProcessLimit")
		return
	}
	const limit = 32
	for _, tc := range []struct {
		name string
		argv []string
	}{
		{"fork loop", []string{"perl", "-e", forkLoop}},
		{"from a nested user namespace", []string{"unshare", "--user", "perl", "-e", forkLoop}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// With the network on: this machine refuses a user other than
			// root to bring up a new namespace's loopback, which is beside
			// the point here.
			out, status := runIn(t, sandbox.Config{Limits: sandbox.Limits{Processes: limit}, Network: sandbox.AnyHost}, tc.argv...)
			m := forkFailed.FindStringSubmatch(out)
			if m == nil || status != 3 {
				t.Fatalf("the fork loop was not stopped (status %d): %s", status, out)
			}
			if n, _ := strconv.Atoi(m[1]); n > limit {
				t.Errorf("%d processes started under a limit of %d", n, limit)
			}
		})
	}
}

// TestMemoryLimit: a 2 GiB allocation under a 256 MiB limit fails, while
// 64 MiB under it succeeds (the limit is not simply refusing everything).
func TestMemoryLimit(t *testing.T) {
	alloc := func(mib int) string {
		return `my $x = "a" x (` + strconv.Itoa(mib) + ` * 1024 * 1024); print "allocated\n"`
	}
	limits := sandbox.Limits{MemoryMiB: 256}
	if out, status := runLimited(t, limits, "perl", "-e", alloc(64)); status != 0 || !strings.Contains(out, "allocated") {
		t.Fatalf("64 MiB under a 256 MiB limit: status %d: %s", status, out)
	}
	out, status := runLimited(t, limits, "perl", "-e", alloc(2048))
	if status == 0 || strings.Contains(out, "allocated") || !strings.Contains(out, "Out of memory") {
		t.Fatalf("2 GiB under a 256 MiB limit: status %d: %s", status, out)
	}
}

// TestCPULimit: a busy loop under a CPU limit is killed, and the launcher
// names the limit; a busy loop in a child is killed as well.
func TestCPULimit(t *testing.T) {
	out, status := runLimited(t, sandbox.Limits{CPUSeconds: 1}, "sh", "-c", "while :; do :; done")
	if status != 128+int(syscall.SIGKILL) || !strings.Contains(out, launch.CPULimitMessage(1)) {
		t.Fatalf("status %d, output %q: want %d and the limit named", status, out, 128+int(syscall.SIGKILL))
	}
	out, status = runLimited(t, sandbox.Limits{CPUSeconds: 1}, "sh", "-c", "sh -c 'while :; do :; done'; echo child $?")
	if status != 0 || !strings.Contains(out, "child 137") {
		t.Fatalf("status %d, output %q: want the child killed", status, out)
	}
}

// TestLimitsCannotBeRaised: a confined process cannot raise a limit back,
// soft or hard, nor from a nested user namespace, where it holds every
// capability of that namespace; the hard limit it reads last is the one
// set.
func TestLimitsCannotBeRaised(t *testing.T) {
	limits := sandbox.Limits{Processes: 1000, MemoryMiB: 1024, CPUSeconds: 60}
	for _, tc := range []struct{ name, flag, want string }{{"cpu", "-t", "60"}, {"memory", "-d", "1048576"}, {"processes", "-u", "1000"}} {
		for _, nested := range []bool{false, true} {
			line := "ulimit -H " + tc.flag + " unlimited && echo raised; ulimit -S " + tc.flag + " unlimited; echo hard=$(ulimit -H " + tc.flag + ") soft=$(ulimit -S " + tc.flag + ")"
			argv := []string{"bash", "-c", line}
			name := tc.name
			if nested {
				argv = append([]string{"unshare", "--user"}, argv...)
				name += "/nested user namespace"
			}
			t.Run(name, func(t *testing.T) {
				out, _ := runLimited(t, limits, argv...)
				if strings.Contains(out, "raised") || !strings.Contains(out, "hard="+tc.want+" soft="+tc.want+"\n") {
					t.Errorf("the %s limit was raised, or is not %s: %s", tc.name, tc.want, out)
				}
			})
		}
	}
}

// TestInspectReportsLimits: `quiver sandbox check` names the limits in
// force for each confined profile, and says when the processes limit does
// not hold.
func TestInspectReportsLimits(t *testing.T) {
	r := sandbox.Inspect(sandbox.Config{Limits: sandbox.Limits{Processes: 64, CPUSeconds: 5}})
	for _, p := range r.Profiles {
		if p.Scope == sandbox.Unrestricted {
			continue
		}
		var line string
		for _, l := range p.Enforces {
			if strings.HasPrefix(l, "resource limits") {
				line = l
			}
		}
		if !strings.Contains(line, "processes 64 per call, memory none, CPU time 5 s per process") {
			t.Errorf("%s: limits line %q", p.Scope, line)
		}
		if !strings.Contains(line, "cgroup") {
			t.Errorf("%s: limits line %q says nothing of cgroup v2", p.Scope, line)
		}
		if root := os.Geteuid() == 0; root != strings.Contains(line, "does not hold") {
			t.Errorf("%s: as root %v, limits line %q", p.Scope, root, line)
		}
	}
}
