package cgroup

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// v1Host is this machine's cgroup v1 host, freshly detected (so that it
// sweeps), or the test is skipped saying why there is none.
func v1Host(t *testing.T) *Host {
	t.Helper()
	h, why := detectV1()
	if h == nil {
		t.Skipf("cgroup v1 is not usable here: %s", why)
	}
	return h
}

// unifiedHost is a cgroup v2 host without controllers on this process's
// cgroup v2 hierarchy: placement and killing work there even where the
// controllers are cgroup v1's (a hybrid machine), limits do not.
func unifiedHost(t *testing.T) *Host {
	t.Helper()
	rel, mount := ownCgroups()[""], mountOf("cgroup2", "")
	if rel == "" || mount == "" {
		t.Skip("no cgroup v2 hierarchy is mounted here")
	}
	dir := filepath.Join(mount, rel)
	if syscall.Access(dir, 2) != nil {
		t.Skipf("cgroup v2 at %s is not writable here", dir)
	}
	return &Host{version: V2, bases: []string{dir}, name: parentName()}
}

// startIn starts sleep in call (placed as the sandbox places a launcher)
// and returns it.
func startIn(t *testing.T, call *Call) *exec.Cmd {
	t.Helper()
	cmd := exec.Command("sleep", "600")
	cmd.SysProcAttr = &syscall.SysProcAttr{}
	call.Prepare(cmd.SysProcAttr)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	if err := call.Place(cmd.Process.Pid); err != nil {
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatal(err)
	}
	return cmd
}

// cgroupOf is pid's cgroup in the hierarchy of controller ("" for v2).
func cgroupOf(t *testing.T, pid int, controller string) string {
	t.Helper()
	f, err := os.Open("/proc/" + strconv.Itoa(pid) + "/cgroup")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		parts := strings.SplitN(sc.Text(), ":", 3)
		if len(parts) == 3 && (parts[1] == controller || controller != "" && strings.Contains(","+parts[1]+",", ","+controller+",")) {
			return parts[2]
		}
	}
	return ""
}

// TestCallLifecycle: a process started in a call's cgroup is in it (v2:
// from its first instruction, CLONE_INTO_CGROUP; v1: once placed), Close
// kills it, and afterwards neither the call's cgroup nor this Quiver's
// parent is left.
func TestCallLifecycle(t *testing.T) {
	for _, tc := range []struct {
		name string
		host func(*testing.T) *Host
		ctl  string
	}{{"v1", v1Host, "pids"}, {"v2 placement (no controllers)", unifiedHost, ""}} {
		t.Run(tc.name, func(t *testing.T) {
			h := tc.host(t)
			call, err := h.New(Limits{})
			if err != nil {
				t.Fatal(err)
			}
			cmd := startIn(t, call)
			got := cgroupOf(t, cmd.Process.Pid, tc.ctl)
			if want := "/" + h.name + "/call."; !strings.Contains(got, want) {
				t.Errorf("the process is in %q, want a cgroup under %q", got, want)
			}
			if _, err := call.Close(); err != nil {
				t.Fatal(err)
			}
			err = cmd.Wait()
			var ee *exec.ExitError
			if !errors.As(err, &ee) || ee.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
				t.Errorf("the process ended with %v, want SIGKILL", err)
			}
			for _, base := range h.bases {
				if _, err := os.Stat(filepath.Join(base, h.name)); !errors.Is(err, os.ErrNotExist) {
					t.Errorf("%s: the parent is left (%v)", base, err)
				}
			}
		})
	}
}

// TestV1Limits: under cgroup v1 the call's pids.max holds for root, and
// the kernel counts the refused fork; the memory limit kills a process
// that fills a shared map (which RLIMIT_DATA misses), and the kernel
// counts the kill.
func TestV1Limits(t *testing.T) {
	h := v1Host(t)
	call, err := h.New(Limits{Processes: 8, MemoryBytes: 64 << 20})
	if err != nil {
		t.Fatal(err)
	}
	defer call.Close()
	run := func(argv ...string) error {
		cmd := exec.Command(argv[0], argv[1:]...)
		cmd.SysProcAttr = &syscall.SysProcAttr{}
		call.Prepare(cmd.SysProcAttr)
		// Started held as the launcher is: by a shell that waits for its
		// placement on standard input.
		cmd.Args = []string{"sh", "-c", "read go && exec \"$@\"", "sh"}
		cmd.Args = append(cmd.Args, argv...)
		cmd.Path, _ = exec.LookPath("sh")
		in, err := cmd.StdinPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		if err := call.Place(cmd.Process.Pid); err != nil {
			t.Fatal(err)
		}
		fmt.Fprintln(in, "go")
		return cmd.Wait()
	}
	if err := run("perl", "-e", `for (1..50) { my $p = fork; defined $p or exit 3; $p or do { sleep 60; exit 0 } }`); err == nil {
		t.Error("50 forks under pids.max 8 succeeded")
	}
	if ev := call.events(); ev.Processes == 0 {
		t.Errorf("events %+v: want the refused fork counted", ev)
	}
	call.Kill()
	if !h.Memory() {
		t.Skip("no cgroup v1 memory hierarchy here")
	}
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("no python3 for the shared map")
	}
	err = run("python3", "-c", "import mmap\nm = mmap.mmap(-1, 512 << 20)\nfor i in range(0, 512 << 20, 4096): m[i] = 1\nprint('filled')")
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
		t.Errorf("512 MiB of shared map under 64 MiB ended with %v, want SIGKILL", err)
	}
	if ev := call.events(); ev.OOMKills == 0 {
		t.Errorf("events %+v: want the OOM kill counted", ev)
	}
}

// staleEnv marks the test binary run as a Quiver that TestStaleSwept
// kills.
const staleEnv = "QUIVER_CGROUP_TEST_STALE"

// TestStaleSwept: a Quiver killed with SIGKILL while a call ran leaves its
// parent and the call's cgroup behind; the next Quiver to make a call
// removes both.
func TestStaleSwept(t *testing.T) {
	if which := os.Getenv(staleEnv); which != "" {
		staleQuiver(which)
		return
	}
	for _, tc := range []struct {
		name string
		host func(*testing.T) *Host
	}{{"v1", v1Host}, {"v2", unifiedHost}} {
		t.Run(tc.name, func(t *testing.T) {
			h := tc.host(t)
			cmd := exec.Command(os.Args[0], "-test.run=^TestStaleSwept$")
			cmd.Env = append(os.Environ(), staleEnv+"="+tc.name)
			out, err := cmd.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			line, _ := bufio.NewReader(out).ReadString('\n')
			parent := strings.TrimSpace(line)
			if !strings.HasPrefix(parent, "quiver.") {
				cmd.Process.Kill()
				cmd.Wait()
				t.Fatalf("the killed Quiver said %q", line)
			}
			cmd.Process.Kill()
			cmd.Wait()
			for _, base := range h.bases {
				if kids, err := os.ReadDir(filepath.Join(base, parent)); err != nil || len(kids) == 0 {
					t.Fatalf("%s: the killed Quiver left no call behind (%v): nothing to sweep", base, err)
				}
			}
			call, err := h.New(Limits{})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := call.Close(); err != nil {
				t.Fatal(err)
			}
			for _, base := range h.bases {
				if _, err := os.Stat(filepath.Join(base, parent)); !errors.Is(err, os.ErrNotExist) {
					t.Errorf("%s: the killed Quiver's %s is left (%v)", base, parent, err)
				}
			}
		})
	}
}

// staleQuiver is the Quiver TestStaleSwept kills: it makes a call with
// itself in it, says its parent's name and waits to be killed.
func staleQuiver(which string) {
	h, _ := detectV1()
	if which != "v1" {
		rel, mount := ownCgroups()[""], mountOf("cgroup2", "")
		h = &Host{version: V2, bases: []string{filepath.Join(mount, rel)}, name: parentName()}
	}
	call, err := h.New(Limits{})
	if err != nil {
		fmt.Println(err)
		os.Exit(1)
	}
	// Like a launcher, this process itself sits in the call's cgroup; so
	// its death empties it.
	if call.version == V2 {
		write(filepath.Join(call.dirs[0], "cgroup.procs"), strconv.Itoa(os.Getpid()))
	} else {
		call.Place(os.Getpid())
	}
	fmt.Println(h.name)
	select {}
}

// TestStaleOnlyTheDead: a parent is stale only when its Quiver is gone:
// this process's, a live process's and names that are not Quiver's are
// not.
func TestStaleOnlyTheDead(t *testing.T) {
	self := parentName()
	live := fmt.Sprintf("quiver.%d.%s", os.Getppid(), startTime(os.Getppid()))
	reused := fmt.Sprintf("quiver.%d.%s", os.Getppid(), "1")
	for _, tc := range []struct {
		name string
		want bool
	}{
		{self, false}, {live, false}, {reused, true}, {"quiver.999999999.5", true},
		{"system.slice", false}, {"quiver.x.5", false}, {"quiver.12", false}, {"quiver.-1.3", false},
	} {
		if got := stale(tc.name, self); got != tc.want {
			t.Errorf("stale(%q) = %v, want %v", tc.name, got, tc.want)
		}
	}
}

// TestCounter reads the flat-keyed files the kernel writes.
func TestCounter(t *testing.T) {
	for _, tc := range []struct {
		raw, key string
		want     int
	}{
		{"max 3\n", "max", 3},
		{"low 0\nhigh 0\nmax 12\noom 1\noom_kill 2\noom_group_kill 0\n", "oom_kill", 2},
		{"oom_kill_disable 0\nunder_oom 0\noom_kill 7\n", "oom_kill", 7},
		{"populated 1\nfrozen 0\n", "populated", 1},
		{"max 3\n", "oom_kill", 0},
		{"", "max", 0},
	} {
		if got := counter([]byte(tc.raw), tc.key); got != tc.want {
			t.Errorf("counter(%q, %q) = %d, want %d", tc.raw, tc.key, got, tc.want)
		}
	}
}

// TestV2Limits runs only where this machine delegates a cgroup v2 with
// the memory and pids controllers; see TestV1Limits for what it checks.
func TestV2Limits(t *testing.T) {
	h, why := detectV2()
	if h == nil {
		t.Skipf("cgroup v2 limits cannot be exercised here: %s", why)
	}
	call, err := h.New(Limits{Processes: 8, MemoryBytes: 64 << 20})
	if err != nil {
		t.Fatal(err)
	}
	defer call.Close()
	cmd := exec.Command("perl", "-e", `for (1..50) { my $p = fork; defined $p or exit 3; $p or do { sleep 60; exit 0 } }`)
	cmd.SysProcAttr = &syscall.SysProcAttr{}
	call.Prepare(cmd.SysProcAttr)
	if err := cmd.Run(); err == nil {
		t.Error("50 forks under pids.max 8 succeeded")
	}
	if ev := call.events(); ev.Processes == 0 {
		t.Errorf("events %+v: want the refused fork counted", ev)
	}
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("no python3 for the shared map")
	}
	fill := exec.Command("python3", "-c", "import mmap\nm = mmap.mmap(-1, 512 << 20)\nfor i in range(0, 512 << 20, 4096): m[i] = 1\nprint('filled')")
	fill.SysProcAttr = &syscall.SysProcAttr{}
	call.Prepare(fill.SysProcAttr)
	err = fill.Run()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
		t.Errorf("512 MiB of shared map under 64 MiB ended with %v, want SIGKILL", err)
	}
	if ev := call.events(); ev.OOMKills == 0 {
		t.Errorf("events %+v: want the OOM kill counted", ev)
	}
}
