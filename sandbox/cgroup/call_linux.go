package cgroup

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// Call is one call's cgroup: under v2 one directory, under v1 one per
// hierarchy (pids first). Its methods are safe for concurrent use but
// Close, which ends it.
type Call struct {
	host    *Host
	version Version
	dirs    []string
	dir     *os.File // v2: the directory, for CLONE_INTO_CGROUP
	memory  bool
}

// New makes a call's cgroup under the limits l: a child of this Quiver's
// parent in each hierarchy, with pids.max and, when l bounds memory and
// the host can, the memory limit with no swap beyond it. Close removes it.
func (h *Host) New(l Limits) (*Call, error) {
	if h.version == None {
		return nil, errors.New("cgroup: " + h.why)
	}
	h.mu.Lock()
	if err := h.parents(); err != nil {
		h.mu.Unlock()
		return nil, err
	}
	h.next++
	name := "call." + strconv.Itoa(h.next)
	h.calls++
	h.mu.Unlock()
	c := &Call{host: h, version: h.version}
	for _, base := range h.bases {
		dir := filepath.Join(base, h.name, name)
		if err := os.Mkdir(dir, 0o755); err != nil {
			c.remove()
			return nil, &Error{"creating", dir, err}
		}
		c.dirs = append(c.dirs, dir)
	}
	if err := c.limit(l); err != nil {
		c.remove()
		return nil, err
	}
	if h.version == V2 {
		f, err := os.OpenFile(c.dirs[0], unix.O_DIRECTORY|unix.O_PATH|unix.O_CLOEXEC, 0)
		if err != nil {
			c.remove()
			return nil, &Error{"opening", c.dirs[0], err}
		}
		c.dir = f
	}
	return c, nil
}

// limit writes l into the call's cgroup files.
func (c *Call) limit(l Limits) error {
	var files [][2]string
	if l.Processes > 0 {
		files = append(files, [2]string{filepath.Join(c.dirs[0], "pids.max"), strconv.Itoa(l.Processes)})
	}
	if l.MemoryBytes > 0 && c.host.memory {
		c.memory = true
		mem, n := c.dirs[len(c.dirs)-1], strconv.FormatInt(l.MemoryBytes, 10)
		if c.version == V2 {
			files = append(files, [2]string{filepath.Join(mem, "memory.max"), n}, [2]string{filepath.Join(mem, "memory.swap.max"), "0"})
		} else {
			// memsw (memory and swap) must not be below the memory limit,
			// so it comes second.
			files = append(files, [2]string{filepath.Join(mem, "memory.limit_in_bytes"), n}, [2]string{filepath.Join(mem, "memory.memsw.limit_in_bytes"), n})
		}
	}
	for _, f := range files {
		err := write(f[0], f[1])
		if errors.Is(err, os.ErrNotExist) && strings.Contains(f[0], "sw") {
			continue // no swap accounting: nothing to bound beyond memory
		}
		if err != nil {
			return &Error{"limiting", f[0], err}
		}
	}
	return nil
}

// Memory reports whether the cgroup bounds the call's memory.
func (c *Call) Memory() bool { return c.memory }

// Held reports whether a process must be started held, and placed with
// Place before it goes on (v1, which cannot start a process into a
// cgroup).
func (c *Call) Held() bool { return c.version == V1 }

// Prepare makes a process started with sys start in the cgroup (v2:
// CLONE_INTO_CGROUP). Under v1 it does nothing: see Held.
func (c *Call) Prepare(sys *syscall.SysProcAttr) {
	if c.version == V2 {
		sys.UseCgroupFD, sys.CgroupFD = true, int(c.dir.Fd())
	}
}

// Place moves the process pid, all its threads, into the cgroup in every
// hierarchy (v1). The caller holds pid unreaped, so it names that process,
// and keeps it from starting anything until Place has returned.
func (c *Call) Place(pid int) error {
	if c.version != V1 {
		return nil
	}
	for _, dir := range c.dirs {
		if err := write(filepath.Join(dir, "cgroup.procs"), strconv.Itoa(pid)); err != nil {
			return &Error{"placing " + strconv.Itoa(pid) + " in", dir, err}
		}
	}
	return nil
}

// Kill kills every process in the cgroup: under v2 with cgroup.kill,
// which no fork escapes; under v1 (or a v2 kernel before 5.14) with
// SIGKILL to each process listed, which a process forking at that moment
// may outrun: Close kills again until none is left, and pids.max bounds
// how many there can be.
func (c *Call) Kill() {
	if c.version == V2 && write(filepath.Join(c.dirs[0], "cgroup.kill"), "1") == nil {
		return
	}
	for _, pid := range procs(c.dirs[0]) {
		syscall.Kill(pid, syscall.SIGKILL)
	}
}

// emptyWait bounds the wait, after Close's kill, for the cgroup's last
// process to exit: a process killed in uninterruptible sleep (a hung NFS
// read) may take its time, and the cgroup then stays for a later Quiver.
const emptyWait = 10 * time.Second

// Close kills what is left in the cgroup, waits for it to be empty, reads
// the kernel's counters and removes the cgroup.
func (c *Call) Close() (Events, error) {
	c.Kill()
	deadline := time.Now().Add(emptyWait)
	for delay := 100 * time.Microsecond; c.populated() && time.Now().Before(deadline); delay = min(2*delay, 10*time.Millisecond) {
		time.Sleep(delay)
		c.Kill()
	}
	ev := c.events()
	return ev, c.remove()
}

// populated reports whether a process is still in the cgroup.
func (c *Call) populated() bool {
	if c.version == V2 {
		raw, err := os.ReadFile(filepath.Join(c.dirs[0], "cgroup.events"))
		return err == nil && counter(raw, "populated") != 0
	}
	return len(procs(c.dirs[0])) > 0
}

// events reads the kernel's counters of the call's limits.
func (c *Call) events() Events {
	var ev Events
	if raw, err := os.ReadFile(filepath.Join(c.dirs[0], "pids.events")); err == nil {
		ev.Processes = counter(raw, "max")
	}
	if c.memory {
		file := "memory.events"
		if c.version == V1 {
			file = "memory.oom_control"
		}
		if raw, err := os.ReadFile(filepath.Join(c.dirs[len(c.dirs)-1], file)); err == nil {
			ev.OOMKills = counter(raw, "oom_kill")
		}
	}
	return ev
}

// counter is the value of key in a flat-keyed cgroup file ("key value"
// lines), 0 when absent.
func counter(raw []byte, key string) int {
	for line := range strings.Lines(string(raw)) {
		if k, v, ok := strings.Cut(strings.TrimSpace(line), " "); ok && k == key {
			n, _ := strconv.Atoi(strings.TrimSpace(v))
			return n
		}
	}
	return 0
}

// remove removes the cgroup's directories, retrying while the kernel
// still finishes off a dead process (EBUSY), and drops the call from its
// host.
func (c *Call) remove() error {
	if c.dir != nil {
		c.dir.Close()
	}
	var errs []error
	for _, dir := range c.dirs {
		err := unix.Rmdir(dir)
		for delay := time.Millisecond; errors.Is(err, unix.EBUSY) && delay < time.Second; delay *= 2 {
			time.Sleep(delay)
			err = unix.Rmdir(dir)
		}
		if err != nil && !errors.Is(err, unix.ENOENT) {
			errs = append(errs, &Error{"removing", dir, err})
		}
	}
	c.host.release()
	return errors.Join(errs...)
}
