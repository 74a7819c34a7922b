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
	"github.com/quiverkit/quiver/sandbox/cgroup"
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
// call's), and nothing it started outlives the call. Where a cgroup holds
// the limit it holds for root too; without one the kernel never counts
// root's tasks, so as root the test runs itself again as nobody.
func TestProcessLimit(t *testing.T) {
	if os.Geteuid() == 0 {
		// As nobody: resource limits alone, there being no cgroup a user
		// other than root may make here.
		t.Run("as nobody", func(t *testing.T) { sandboxtest.AsNobody(t, "TestProcessLimit") })
		if host := cgroup.Detect(); host.Version() == cgroup.None {
			t.Logf("as root, the processes limit holds only through a cgroup, and there is none here: %s", host.Why())
			return
		}
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
// Under a cgroup the kernel kills the program at the limit; under
// RLIMIT_DATA its allocation fails, and it says so.
func TestMemoryLimit(t *testing.T) {
	alloc := func(mib int) string {
		return `my $x = "a" x (` + strconv.Itoa(mib) + ` * 1024 * 1024); print "allocated\n"`
	}
	limits := sandbox.Limits{MemoryMiB: 256}
	if out, status := runLimited(t, limits, "perl", "-e", alloc(64)); status != 0 || !strings.Contains(out, "allocated") {
		t.Fatalf("64 MiB under a 256 MiB limit: status %d: %s", status, out)
	}
	out, status := runLimited(t, limits, "perl", "-e", alloc(2048))
	stopped := strings.Contains(out, "Out of memory")
	if cgroup.Detect().Memory() {
		stopped = status == 128+int(syscall.SIGKILL)
	}
	if status == 0 || strings.Contains(out, "allocated") || !stopped {
		t.Fatalf("2 GiB under a 256 MiB limit: status %d: %s", status, out)
	}
}

// sharedMap fills 1 GiB of a shared anonymous map (Python's mmap with no
// file is MAP_SHARED): shmem pages, which RLIMIT_DATA does not count.
const sharedMap = "import mmap\nm = mmap.mmap(-1, 1 << 30)\nfor i in range(0, 1 << 30, 4096): m[i] = 1\nprint('filled')"

// TestMemoryLimitCountsSharedMaps: where a cgroup bounds memory, a program
// that fills a shared map — what RLIMIT_DATA misses — is stopped at the
// limit, and the kernel's count says so.
func TestMemoryLimitCountsSharedMaps(t *testing.T) {
	if host := cgroup.Detect(); !host.Memory() {
		t.Skipf("no cgroup bounds memory here (%s); RLIMIT_DATA does not count a shared map", host.Why())
	}
	python := lookPath(t, "python3")
	out, status, ev := runGroup(t, sandbox.Limits{MemoryMiB: 128}, python, "-c", sharedMap)
	if status != 128+int(syscall.SIGKILL) || strings.Contains(out, "filled") {
		t.Errorf("1 GiB of shared map under 128 MiB: status %d: %s", status, out)
	}
	hit, ok := sandbox.Limits{MemoryMiB: 128}.Hit(ev, status, out)
	if !ok || hit.Key != "memory_mib" {
		t.Errorf("events %+v: Hit = %+v, %v; want the memory limit", ev, hit, ok)
	}
}

// lookPath is the absolute path of name, or the test is skipped.
func lookPath(t *testing.T, name string) string {
	t.Helper()
	path, err := exec.LookPath(name)
	if err != nil {
		t.Skipf("no %s here", name)
	}
	return path
}

// runGroup runs argv confined under limits in a group of its own, as
// exec_command runs a command, and returns its output, its status and
// what the kernel counted once the group closed. It fails the test if the
// call's cgroup (the program prints it) is left.
func runGroup(t *testing.T, limits sandbox.Limits, argv ...string) (string, int, sandbox.LimitEvents) {
	t.Helper()
	ws := t.TempDir()
	p, err := sandbox.New(sandbox.WorkspaceWrite, ws, sandbox.Config{Limits: limits}, sandbox.StandardProtected)
	if err != nil {
		t.Fatal(err)
	}
	tree := sandboxtest.NewTree(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute) // a hang guard
	defer cancel()
	g, err := sandbox.NewGroup(ctx, p)
	if err != nil {
		t.Fatal(err)
	}
	var cgroups, out bytes.Buffer
	where := g.Command("cat", "/proc/self/cgroup")
	where.Dir, where.Stdout = ws, &cgroups
	if err := where.Run(); err != nil {
		t.Fatalf("cat /proc/self/cgroup: %v", err)
	}
	proc := g.Command(argv[0], argv[1:]...)
	proc.Dir, proc.Env, proc.Stdout, proc.Stderr = ws, append(sandbox.HostEnv(nil), tree.Env), &out, &out
	err = proc.Run()
	if _, ok := err.(*exec.ExitError); err != nil && !ok {
		t.Fatalf("%v: %v", argv, err)
	}
	g.Close()
	if ctx.Err() != nil {
		t.Fatalf("%v hung: %s", argv, out.String())
	}
	if left := tree.Live(); len(left) > 0 {
		t.Errorf("processes %v outlived the call", left)
	}
	for _, dir := range callCgroups(t, cgroups.String()) {
		if _, err := os.Stat(dir); !os.IsNotExist(err) {
			t.Errorf("the call's cgroup %s is left (%v)", dir, err)
		}
	}
	return out.String(), proc.ExitStatus(), g.LimitEvents()
}

// callCgroups are the directories of the call's cgroups that a confined
// program's /proc/self/cgroup names: those under a Quiver's parent.
func callCgroups(t *testing.T, procSelf string) []string {
	t.Helper()
	var dirs []string
	for line := range strings.Lines(procSelf) {
		parts := strings.SplitN(strings.TrimSpace(line), ":", 3)
		if len(parts) != 3 || !strings.Contains(parts[2], "/quiver.") {
			continue
		}
		mount := "/sys/fs/cgroup/" + strings.TrimPrefix(parts[1], "name=")
		if parts[1] == "" {
			mount = "/sys/fs/cgroup"
			if _, err := os.Stat("/sys/fs/cgroup/unified/cgroup.procs"); err == nil {
				mount = "/sys/fs/cgroup/unified"
			}
		}
		dirs = append(dirs, mount+parts[2])
	}
	if host := cgroup.Detect(); host.Version() != cgroup.None && len(dirs) == 0 {
		t.Errorf("under %s the program is in no call's cgroup: %s", host.Version(), procSelf)
	}
	return dirs
}

// TestLimitHitFromTheKernel: where a cgroup holds the limits, a call is
// judged by the kernel's counters: a fork loop as root is stopped at the
// processes limit and reported, and a program that prints what a failed
// allocation prints and exits 1, with no limit reached, is not.
func TestLimitHitFromTheKernel(t *testing.T) {
	if host := cgroup.Detect(); host.Version() == cgroup.None {
		t.Skipf("no cgroup holds the limits here: %s", host.Why())
	}
	limits := sandbox.Limits{Processes: 32, MemoryMiB: 256}
	out, status, ev := runGroup(t, limits, "perl", "-e", forkLoop)
	if m := forkFailed.FindStringSubmatch(out); m == nil || status != 3 {
		t.Fatalf("the fork loop was not stopped (status %d): %s", status, out)
	}
	if hit, ok := limits.Hit(ev, status, out); !ok || hit.Key != "processes" || !strings.Contains(hit.Message(), "processes = 32") {
		t.Errorf("fork loop: events %+v: Hit = %+v, %v; want the processes limit", ev, hit, ok)
	}
	for _, fake := range []string{"Cannot allocate memory", "Out of memory!", "fork: Resource temporarily unavailable"} {
		out, status, ev := runGroup(t, limits, "sh", "-c", "echo '"+fake+"' >&2; exit 1")
		if hit, ok := limits.Hit(ev, status, out); ok || !ev.Counted {
			t.Errorf("%q: events %+v: Hit = %+v, %v; want no limit reached", fake, ev, hit, ok)
		}
	}
}

// TestCgroupOutOfReach: a confined process, uid 0 in its namespace and so
// the owner of the cgroup files when Quiver runs as root, can neither
// leave its call's cgroup, nor raise its limits, nor make a cgroup: the
// sandbox's read-only mounts and Landlock refuse every write under
// /sys/fs/cgroup.
func TestCgroupOutOfReach(t *testing.T) {
	if host := cgroup.Detect(); host.Version() == cgroup.None {
		t.Skipf("no cgroup holds the limits here: %s", host.Why())
	}
	// For each of its cgroups: write pids.max and the memory limit of its
	// own, move itself into its parent's and into the root's cgroup.procs,
	// make a cgroup beside its own; then say where it is.
	const attack = `for line in $(cat /proc/self/cgroup); do
  ctl=${line#*:}; ctl=${ctl%%:*}; path=${line#*:*:}
  case "$ctl" in "") dir=/sys/fs/cgroup/unified$path ;; name=*) continue ;; *) dir=/sys/fs/cgroup/$ctl$path ;; esac
  case "$path" in */quiver.*) echo "tried $dir" ;; *) continue ;; esac
  for f in pids.max memory.limit_in_bytes memory.memsw.limit_in_bytes memory.max; do
    [ -e "$dir/$f" ] && echo max > "$dir/$f" 2>/dev/null && echo "wrote $dir/$f"
  done
  echo $$ > "$dir/../cgroup.procs" 2>/dev/null && echo "left for $dir/.."
  root=${dir%$path}
  echo $$ > "$root/cgroup.procs" 2>/dev/null && echo "left for $root"
  mkdir "$dir/../escape" 2>/dev/null && echo "made $dir/../escape"
done
cat /proc/self/cgroup`
	out, status, _ := runGroup(t, sandbox.Limits{Processes: 64}, "sh", "-c", attack)
	if status != 0 || strings.Contains(out, "wrote") || strings.Contains(out, "left for") || strings.Contains(out, "made") {
		t.Fatalf("status %d: a confined process reached its cgroup:\n%s", status, out)
	}
	if !strings.Contains(out, "tried /sys/fs/cgroup/pids/") && !strings.Contains(out, "tried /sys/fs/cgroup/unified/") {
		t.Errorf("the attack found no cgroup of its call to try:\n%s", out)
	}
	if len(callCgroups(t, out)) == 0 {
		t.Errorf("the process is no longer in its call's cgroup:\n%s", out)
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
// set. Where a cgroup bounds memory there is no RLIMIT_DATA to raise (see
// TestCgroupOutOfReach for the cgroup's own limits).
func TestLimitsCannotBeRaised(t *testing.T) {
	limits := sandbox.Limits{Processes: 1000, MemoryMiB: 1024, CPUSeconds: 60}
	rlimits := []struct{ name, flag, want string }{{"cpu", "-t", "60"}, {"processes", "-u", "1000"}}
	if !cgroup.Detect().Memory() {
		rlimits = append(rlimits, struct{ name, flag, want string }{"memory", "-d", "1048576"})
	}
	for _, tc := range rlimits {
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
// force for each confined profile and what holds them: a cgroup per call
// where the machine gives Quiver one, else resource limits, saying when
// the processes limit does not hold.
func TestInspectReportsLimits(t *testing.T) {
	r := sandbox.Inspect(sandbox.Config{Limits: sandbox.Limits{Processes: 64, CPUSeconds: 5}})
	host := cgroup.Detect()
	for _, p := range r.Profiles {
		if p.Scope == sandbox.Unrestricted {
			continue
		}
		var line string
		for _, l := range p.Enforces {
			if strings.HasPrefix(l, "limits (") {
				line = l
			}
		}
		if !strings.Contains(line, "processes 64 per call, memory none, CPU time 5 s per process") {
			t.Errorf("%s: limits line %q", p.Scope, line)
		}
		if !strings.Contains(line, host.Why()) {
			t.Errorf("%s: limits line %q does not say why (%s)", p.Scope, line, host.Why())
		}
		if want := host.Version().String() + ", a cgroup per call"; host.Version() != cgroup.None && !strings.Contains(line, want) {
			t.Errorf("%s: limits line %q, want %q", p.Scope, line, want)
		}
		if root := os.Geteuid() == 0 && host.Version() == cgroup.None; root != strings.Contains(line, "does not hold") {
			t.Errorf("%s: as root without a cgroup %v, limits line %q", p.Scope, root, line)
		}
	}
}

// TestProcessLimitEvents: a Process made by Command reports, once waited
// for, what the kernel counted in its call's cgroup: the forks a fork
// loop had refused at the processes limit.
func TestProcessLimitEvents(t *testing.T) {
	if host := cgroup.Detect(); host.Version() == cgroup.None {
		t.Skipf("no cgroup holds the limits here: %s", host.Why())
	}
	ws := t.TempDir()
	p, err := sandbox.New(sandbox.WorkspaceWrite, ws, sandbox.Config{Limits: sandbox.Limits{Processes: 32}}, sandbox.StandardProtected)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute) // a hang guard
	defer cancel()
	var out bytes.Buffer
	proc := sandbox.Command(ctx, p, "perl", "-e", forkLoop)
	proc.Dir, proc.Stdout, proc.Stderr = ws, &out, &out
	if err := proc.Run(); err == nil || ctx.Err() != nil {
		t.Fatalf("the fork loop was not stopped (%v): %s", err, out.String())
	}
	if ev := proc.LimitEvents(); !ev.Counted || ev.Processes == 0 {
		t.Errorf("LimitEvents = %+v; want the refused forks counted: %s", ev, out.String())
	}
}
