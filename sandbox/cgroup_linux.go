package sandbox

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"golang.org/x/sys/unix"
)

// cgroupNeeded are the cgroup v2 controllers that would bound a call as a
// whole: its tasks and its memory (CPU time would be read from cpu.stat).
var cgroupNeeded = []string{"memory", "pids"}

// cgroupV2 says whether the machine delegates to Quiver a cgroup v2 in
// which it could bound a call as a whole, and why not. Quiver does not use
// one yet: [Limits] are rlimits either way, and `quiver sandbox check`
// reports this so that an operator knows what a cgroup would add here.
// Delegated means: Quiver's cgroup (0:: in /proc/self/cgroup) lies in a
// mounted cgroup2 hierarchy, offers the memory and pids controllers, and
// Quiver may create a child there and enable them for it.
func cgroupV2() (bool, string) {
	self, err := os.ReadFile("/proc/self/cgroup")
	if err != nil {
		return false, "no /proc/self/cgroup"
	}
	var rel string
	for line := range strings.Lines(string(self)) {
		if p, ok := strings.CutPrefix(strings.TrimSpace(line), "0::"); ok {
			rel = p
		}
	}
	mount := cgroup2Mount()
	switch {
	case rel == "" || mount == "":
		return false, "no cgroup v2 hierarchy (cgroup v1 only)"
	}
	dir := filepath.Join(mount, rel)
	have, err := os.ReadFile(filepath.Join(dir, "cgroup.controllers"))
	if err != nil {
		return false, fmt.Sprintf("cgroup v2 at %s is not readable: %v", dir, err)
	}
	offered := strings.Fields(string(have))
	var missing []string
	for _, c := range cgroupNeeded {
		if !slices.Contains(offered, c) {
			missing = append(missing, c)
		}
	}
	if len(missing) > 0 {
		return false, fmt.Sprintf("cgroup v2 at %s offers no %s controller (a hybrid machine: they are cgroup v1's)", dir, strings.Join(missing, " or "))
	}
	if unix.Access(dir, unix.W_OK) != nil || unix.Access(filepath.Join(dir, "cgroup.subtree_control"), unix.W_OK) != nil {
		return false, fmt.Sprintf("cgroup v2 at %s is not delegated to Quiver's user", dir)
	}
	return true, "cgroup v2 at " + dir + " is delegated (memory, pids)"
}

// cgroup2Mount returns where the cgroup2 hierarchy is mounted, or "".
func cgroup2Mount() string {
	info, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		return ""
	}
	sc := bufio.NewScanner(bytes.NewReader(info))
	for sc.Scan() {
		// ID PARENT MAJ:MIN ROOT MOUNTPOINT OPTIONS [TAGS...] - FSTYPE SOURCE SUPER
		pre, post, ok := strings.Cut(sc.Text(), " - ")
		fields, fs := strings.Fields(pre), strings.Fields(post)
		if ok && len(fields) >= 5 && len(fs) > 0 && fs[0] == "cgroup2" && fields[3] == "/" {
			return fields[4]
		}
	}
	return ""
}
