package cgroup

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"

	"golang.org/x/sys/unix"
)

// Host is where this Quiver makes its calls' cgroups: the interface in
// use, and Quiver's own cgroup in each hierarchy it uses. It is safe for
// concurrent use.
type Host struct {
	version Version
	why     string
	// bases are Quiver's own cgroups: under v2 the one; under v1 the
	// pids hierarchy's, then the memory hierarchy's when mounted.
	bases []string
	// controllers are the v2 controllers enabled for the calls' cgroups;
	// the tests' placement-only host has none.
	controllers []string
	memory      bool
	name        string // of the parent: quiver.PID.START

	mu    sync.Mutex
	calls int // live calls: the parent goes with the last
	next  int
	swept bool
}

// needed are the cgroup v2 controllers that bound a call: its tasks and
// its memory.
var needed = []string{"memory", "pids"}

var detect = sync.OnceValue(func() *Host {
	v2, why2 := detectV2()
	if v2 != nil {
		return v2
	}
	v1, why1 := detectV1()
	if v1 != nil {
		v1.why += "; not cgroup v2: " + why2
		return v1
	}
	return &Host{why: why2 + "; " + why1}
})

// Detect returns the cgroup setup this process uses for its calls, picked
// on first use (see the package doc); its Version is None, with the
// reason in Why, when the machine offers none.
func Detect() *Host { return detect() }

// Version is the cgroup interface in use, or None.
func (h *Host) Version() Version { return h.version }

// Why says which cgroup holds the limits and where, or why none does.
func (h *Host) Why() string { return h.why }

// Memory reports whether a call's cgroup bounds its memory: always under
// v2, under v1 when the memory hierarchy is mounted.
func (h *Host) Memory() bool { return h.version != None && h.memory }

// detectV2 returns the host of a delegated cgroup v2, or why there is none.
// Delegated means: Quiver's cgroup (0:: in /proc/self/cgroup) lies in a
// mounted cgroup2 hierarchy, offers the memory and pids controllers, and
// Quiver may create children there and enable them.
func detectV2() (*Host, string) {
	rel := ownCgroups()[""]
	mount := mountOf("cgroup2", "")
	if rel == "" || mount == "" {
		return nil, "no cgroup v2 hierarchy"
	}
	dir := filepath.Join(mount, rel)
	have, err := os.ReadFile(filepath.Join(dir, "cgroup.controllers"))
	if err != nil {
		return nil, fmt.Sprintf("cgroup v2 at %s is not readable: %v", dir, err)
	}
	offered := strings.Fields(string(have))
	var missing []string
	for _, c := range needed {
		if !slices.Contains(offered, c) {
			missing = append(missing, c)
		}
	}
	if len(missing) > 0 {
		return nil, fmt.Sprintf("cgroup v2 at %s offers no %s controller (they are cgroup v1's on this machine)", dir, strings.Join(missing, " or "))
	}
	if unix.Access(dir, unix.W_OK) != nil || unix.Access(filepath.Join(dir, "cgroup.subtree_control"), unix.W_OK) != nil {
		return nil, fmt.Sprintf("cgroup v2 at %s is not delegated to Quiver's user", dir)
	}
	h := &Host{version: V2, bases: []string{dir}, controllers: needed, memory: true, name: parentName()}
	h.why = "cgroup v2 at " + dir + " is delegated to Quiver (memory, pids)"
	return h, ""
}

// detectV1 returns the host of cgroup v1's pids (and memory) hierarchies,
// or why there is none.
func detectV1() (*Host, string) {
	if os.Geteuid() != 0 {
		return nil, "no cgroup v1 either: only root may make cgroups there"
	}
	own := ownCgroups()
	pids := v1Dir("pids", own)
	if pids == "" {
		return nil, "no cgroup v1 pids hierarchy is mounted"
	}
	if unix.Access(pids, unix.W_OK) != nil {
		return nil, "cgroup v1's pids hierarchy at " + pids + " is not writable"
	}
	h := &Host{version: V1, bases: []string{pids}, name: parentName()}
	h.why = "cgroup v1 (Quiver runs as root): pids at " + pids
	switch mem := v1Dir("memory", own); {
	case mem == pids: // one hierarchy for both controllers
		h.memory = true
		h.why += " (with memory)"
	case mem != "" && unix.Access(mem, unix.W_OK) == nil:
		h.bases, h.memory = append(h.bases, mem), true
		h.why += ", memory at " + mem
	default:
		h.why += "; no writable memory hierarchy, so memory stays a per-process limit"
	}
	return h, ""
}

// v1Dir is this process's cgroup in the v1 hierarchy of controller, or "".
func v1Dir(controller string, own map[string]string) string {
	rel, ok := own[controller]
	if !ok {
		return ""
	}
	return mountOf("cgroup", controller, rel)
}

// ownCgroups maps each of this process's hierarchies to its cgroup there:
// v1's by each controller, v2's by "".
func ownCgroups() map[string]string {
	raw, err := os.ReadFile("/proc/self/cgroup")
	if err != nil {
		return nil
	}
	own := map[string]string{}
	for line := range strings.Lines(string(raw)) {
		parts := strings.SplitN(strings.TrimSpace(line), ":", 3)
		if len(parts) != 3 {
			continue
		}
		if parts[1] == "" {
			own[""] = parts[2]
			continue
		}
		for _, c := range strings.Split(parts[1], ",") {
			own[c] = parts[2]
		}
	}
	return own
}

// mountOf returns the directory of the cgroup rel in the mounted hierarchy
// of fstype (cgroup2, or cgroup with controller among its options), or "".
// rel empty asks for the mount point of a v2 hierarchy's root.
func mountOf(fstype, controller string, rel ...string) string {
	info, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		return ""
	}
	sc := bufio.NewScanner(bytes.NewReader(info))
	for sc.Scan() {
		// ID PARENT MAJ:MIN ROOT MOUNTPOINT OPTIONS [TAGS...] - FSTYPE SOURCE SUPER
		pre, post, ok := strings.Cut(sc.Text(), " - ")
		fields, fs := strings.Fields(pre), strings.Fields(post)
		if !ok || len(fields) < 5 || len(fs) < 3 || fs[0] != fstype {
			continue
		}
		if controller != "" && !slices.Contains(strings.Split(fs[2], ","), controller) {
			continue
		}
		root, point := fields[3], fields[4]
		if len(rel) == 0 {
			if root == "/" {
				return point
			}
			continue
		}
		// The mount shows the hierarchy from root down: rel must lie there.
		if sub, ok := strings.CutPrefix(rel[0], root); ok && (root == "/" || sub == "" || sub[0] == '/') {
			return filepath.Join(point, sub)
		}
	}
	return ""
}

// parentName is the name of this process's parent cgroup: quiver.PID.START.
func parentName() string {
	return fmt.Sprintf("quiver.%d.%s", os.Getpid(), startTime(os.Getpid()))
}

// startTime is field 22 of /proc/PID/stat, the process's start time in
// clock ticks after boot, or "" when there is no such process.
func startTime(pid int) string {
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return ""
	}
	// pid (comm) state ppid ...: comm may hold anything but its last ')'.
	fields := strings.Fields(string(stat[bytes.LastIndexByte(stat, ')')+1:]))
	if len(fields) < 20 {
		return ""
	}
	return fields[19]
}

// stale reports whether name is the parent of a Quiver that is gone.
func stale(name, self string) bool {
	rest, ok := strings.CutPrefix(name, "quiver.")
	if !ok || name == self {
		return false
	}
	pid, start, ok := strings.Cut(rest, ".")
	n, err := strconv.Atoi(pid)
	if !ok || err != nil || n <= 0 {
		return false
	}
	return startTime(n) != start
}

// sweep removes from base the parents of Quivers that are gone, as far as
// they are empty: a cgroup that still holds a process stays.
func (h *Host) sweep(base string) {
	entries, err := os.ReadDir(base)
	if err != nil {
		return
	}
	for _, e := range entries {
		if !e.IsDir() || !stale(e.Name(), h.name) {
			continue
		}
		parent := filepath.Join(base, e.Name())
		if kids, err := os.ReadDir(parent); err == nil {
			for _, k := range kids {
				if k.IsDir() {
					unix.Rmdir(filepath.Join(parent, k.Name()))
				}
			}
		}
		unix.Rmdir(parent)
	}
}

// parents makes this Quiver's parent cgroup in every hierarchy, once
// stale ones are swept; the caller holds h.mu.
func (h *Host) parents() error {
	if !h.swept {
		h.swept = true
		for _, base := range h.bases {
			h.sweep(base)
		}
	}
	for _, base := range h.bases {
		parent := filepath.Join(base, h.name)
		if err := os.Mkdir(parent, 0o755); err != nil && !errors.Is(err, os.ErrExist) {
			return &Error{"creating", parent, err}
		}
	}
	if h.version == V2 && len(h.controllers) > 0 {
		return h.enableV2()
	}
	return nil
}

// enableV2 enables the controllers for the calls' cgroups: in Quiver's
// own cgroup and in the parent. cgroup v2 lets a cgroup other than the
// root enable controllers for its children only while it holds no
// process itself, so a Quiver alone in its cgroup first moves into a
// child of the parent (quiver.PID.START/self); one that shares its cgroup
// with other processes gets an error, and its calls resource limits alone.
func (h *Host) enableV2() error {
	base, parent := h.bases[0], filepath.Join(h.bases[0], h.name)
	want := "+" + strings.Join(h.controllers, " +")
	err := enable(base, want)
	if errors.Is(err, unix.EBUSY) {
		if others := othersIn(base); others > 0 {
			return &Error{"enabling " + want + " in", base, fmt.Errorf("%d processes other than Quiver share its cgroup (cgroup v2 gives controllers only to the children of a cgroup without processes)", others)}
		}
		self := filepath.Join(parent, "self")
		if err := os.Mkdir(self, 0o755); err != nil && !errors.Is(err, os.ErrExist) {
			return &Error{"creating", self, err}
		}
		if err := write(filepath.Join(self, "cgroup.procs"), strconv.Itoa(os.Getpid())); err != nil {
			return &Error{"moving Quiver into", self, err}
		}
		err = enable(base, want)
	}
	if err != nil {
		return &Error{"enabling " + want + " in", base, err}
	}
	if err := enable(parent, want); err != nil {
		return &Error{"enabling " + want + " in", parent, err}
	}
	return nil
}

// enable writes want to dir's cgroup.subtree_control unless every
// controller it names is enabled already.
func enable(dir, want string) error {
	have, err := os.ReadFile(filepath.Join(dir, "cgroup.subtree_control"))
	if err == nil && !slices.ContainsFunc(strings.Fields(want), func(c string) bool {
		return !slices.Contains(strings.Fields(string(have)), c[1:])
	}) {
		return nil
	}
	return write(filepath.Join(dir, "cgroup.subtree_control"), want)
}

// othersIn counts the processes in dir other than this one.
func othersIn(dir string) int {
	n := 0
	for _, pid := range procs(dir) {
		if pid != os.Getpid() {
			n++
		}
	}
	return n
}

// procs lists the processes in the cgroup dir.
func procs(dir string) []int {
	raw, err := os.ReadFile(filepath.Join(dir, "cgroup.procs"))
	if err != nil {
		return nil
	}
	var pids []int
	for _, f := range strings.Fields(string(raw)) {
		if n, err := strconv.Atoi(f); err == nil {
			pids = append(pids, n)
		}
	}
	return pids
}

// write writes value to the cgroup file path, as the kernel wants it: in
// one write(2), whose error is the kernel's answer.
func write(path, value string) error {
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	_, err = f.WriteString(value)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// release drops a call; the last one takes the parents with it (a v2
// parent holding Quiver itself stays).
func (h *Host) release() {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.calls--; h.calls > 0 {
		return
	}
	for _, base := range h.bases {
		unix.Rmdir(filepath.Join(base, h.name))
	}
}
