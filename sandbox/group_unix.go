//go:build unix

package sandbox

import (
	"context"
	"crypto/rand"
	"fmt"
	"os"
	"os/exec"
	"sync"
	"syscall"

	"github.com/quiverkit/quiver/sandbox/cgroup"
)

// Group is the processes of one call: they share its [Profile], its
// private TMPDIR (made with the group, removed when it closes) and, where
// they can, one process group, so that one kill(-pgid) ends the whole
// tree — the programs, and whatever they left running in the background —
// when the group's context ends, on [Group.Kill] and on [Group.Close].
//
// This is the one place that kills processes. It kills the process
// groups and, one by one through their pidfds, the processes it started.
// A confined program's launcher is the init of a PID namespace of its own
// and cannot join a process group outside it: it leads one of its own, and
// killing it ends everything in its namespace, a program that called setsid
// or forked twice included. Unconfined, a program that leaves the process
// group (setsid, a daemon) is beyond the group's reach; what can find it
// by the pipe it holds does so (internal/shell's run).
//
// In a group from [NewGroup] (exec_command's run, whose programs follow
// one another) the process group is led by the first program whose
// standard streams are all files. Its exit status is read without reaping
// it (waitid with WNOWAIT, see waitLeader), so its zombie keeps the
// process group's id reserved until the group is closed: the kernel cannot
// hand that id to an unrelated process in the meantime, which matters on
// systems with a small pid_max. A program whose streams are not all files
// (os/exec copies them through pipes, and its Wait must run to collect
// them) cannot lead: if no process group exists yet it gets one of its
// own, killed once it has exited and before it is reaped (Linux), so its
// id cannot have been reused. A Process made by [Command] is the only one
// of its group and is handled that way too.
type Group struct {
	profile   *Profile
	removeTmp func()
	stopKill  func() bool
	shared    bool   // may have a leader; see above
	token     string // marks an unconfined group's environments; see above

	closeOnce sync.Once

	mu      sync.Mutex
	closed  bool
	pgid    int      // 0 until the leader starts
	leader  *Process // unreaped until Close
	own     map[int]bool
	running map[*Process]bool
	// cgroup is the call's cgroup (package cgroup), made on the first
	// confined start where the machine offers one; events are its
	// counters, read when the group closes.
	cgroup      *cgroup.Call
	cgroupTried bool
	events      LimitEvents
}

// NewGroup returns an empty group of processes under profile. When profile
// confines, the kernel is checked first ([Profile.Check]: an
// *[UnavailableError] starts nothing), and unless profile already has one,
// a private TMPDIR is made, removed by Close. The end of ctx kills every
// process of the group.
func NewGroup(ctx context.Context, profile *Profile) (*Group, error) {
	return newGroup(ctx, profile, true)
}

func newGroup(ctx context.Context, profile *Profile, shared bool) (*Group, error) {
	g := &Group{profile: profile, removeTmp: func() {}, shared: shared}
	if canSweep && !profile.Confined() {
		g.token = treeVar + "=" + rand.Text()
	}
	if profile.Confined() {
		if err := profile.Check(); err != nil {
			return nil, err
		}
		if profile.TempDir == "" {
			box, remove, err := profile.WithTempDir()
			if err != nil {
				return nil, err
			}
			g.profile, g.removeTmp = box, remove
		}
	}
	g.stopKill = context.AfterFunc(ctx, g.Kill)
	return g, nil
}

// prepare puts cmd, p's command, in the group's process group (one of its
// own if none exists yet), unless p is interactive. The caller holds g.mu.
func (g *Group) prepare(p *Process, cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	if !p.Interactive {
		// Fields the sandbox set (its namespaces) are kept.
		cmd.SysProcAttr.Setpgid, cmd.SysProcAttr.Pgid = true, g.pgid
		if ownPIDNamespace(cmd.SysProcAttr) {
			cmd.SysProcAttr.Pgid = 0 // see Group: a namespace's init leads its own
		}
	}
	if p.cgroup != nil {
		p.cgroup.Prepare(cmd.SysProcAttr)
	}
}

// withCgroup returns the profile p's launcher starts under: p's own, with
// the group's cgroup where one holds the limits, and under cgroup v1 the
// launcher's end of a start pipe, whose other end p keeps to release it
// once placed (see Process.place).
func (g *Group) withCgroup(p *Process) (*Profile, error) {
	box := p.Profile
	cg := g.cgroupFor(box)
	if cg == nil {
		return box, nil
	}
	q := *box
	q.cgroup = cg
	p.cgroup = cg
	if cg.Held() {
		r, w, err := os.Pipe()
		if err != nil {
			return nil, fmt.Errorf("sandbox: start pipe: %w", err)
		}
		q.hold, p.release = r, w
		p.closeAfterStart = append(p.closeAfterStart, r, w)
	}
	return &q, nil
}

// cgroupFor returns the group's cgroup for a process under box, made on
// the first confined start, or nil: box does not confine, the group has
// ended, or the machine offers no cgroup. One that cannot be made leaves
// the call to its resource limits, as on a machine without cgroups.
func (g *Group) cgroupFor(box *Profile) *cgroup.Call {
	if !box.Confined() {
		return nil
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.closed || g.cgroupTried {
		return g.cgroup
	}
	g.cgroupTried = true
	if host := cgroup.Detect(); host.Version() != cgroup.None {
		g.cgroup, _ = host.New(g.profile.Limits.cgroup())
	}
	return g.cgroup
}

// LimitEvents are what the kernel counted against the group's limits in
// its cgroup, once the group is closed; zero when no cgroup held them.
func (g *Group) LimitEvents() LimitEvents {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.events
}

// started records the process group p, just started, leads: the group's
// (see Group) or its own. The caller holds g.mu.
func (g *Group) started(p *Process) {
	pid := p.cmd.Process.Pid
	switch {
	case p.Interactive:
	case p.cmd.SysProcAttr.Pgid != 0:
	case canLead && g.shared && g.pgid == 0 && allFiles(p.cmd):
		g.pgid, g.leader, p.leader = pid, p, true
	default:
		if g.own == nil {
			g.own = map[int]bool{}
		}
		g.own[pid] = true
	}
}

// wait waits for p: a leader without reaping it; any other process by
// reading its exit without reaping it (where the system can), killing what
// is left of a process group of its own while its id cannot have been
// reused, then reaping it.
func (g *Group) wait(p *Process) error {
	if p.leader {
		status, err := waitLeader(p.cmd.Process.Pid)
		p.status = status
		g.exited(p)
		return err
	}
	if !canLead {
		err := p.cmd.Wait()
		g.exited(p)
		p.status = exitStatus(p.cmd.ProcessState)
		return err
	}
	waitExited(p.cmd.Process.Pid)
	g.exited(p)
	err := p.cmd.Wait()
	p.status = exitStatus(p.cmd.ProcessState)
	return err
}

// exited is called once p has exited: if it had a process group of its
// own, what remains of that group is killed now.
func (g *Group) exited(p *Process) {
	pid := p.cmd.Process.Pid
	g.mu.Lock()
	defer g.mu.Unlock()
	delete(g.running, p)
	if g.own[pid] {
		syscall.Kill(-pid, syscall.SIGKILL)
		delete(g.own, pid)
	}
	if !g.shared && g.token != "" {
		sweep(g.token) // the only process of the group has exited
	}
}

// treeVar is the variable whose value marks the processes of one
// unconfined group.
const treeVar = "QUIVER_PROCESS_TREE"

// mark returns env with the group's token when p runs unconfined.
func (g *Group) mark(p *Process, env []string) []string {
	if g.token == "" || p.Profile.Confined() {
		return env
	}
	return append(env[:len(env):len(env)], g.token)
}

// Kill kills every process of the group and refuses to start more.
func (g *Group) Kill() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.closed = true
	if g.token != "" {
		defer sweep(g.token)
	}
	if g.pgid != 0 {
		syscall.Kill(-g.pgid, syscall.SIGKILL)
	}
	for pid := range g.own {
		syscall.Kill(-pid, syscall.SIGKILL)
	}
	for p := range g.running {
		p.cmd.Process.Kill()
	}
	if g.cgroup != nil {
		g.cgroup.Kill()
	}
}

// Close kills every process of the group, releases the leader's zombie and
// removes the group's TMPDIR. Closing again does nothing.
func (g *Group) Close() { g.closeOnce.Do(g.close) }

func (g *Group) close() {
	g.stopKill()
	g.Kill()
	g.mu.Lock()
	leader := g.leader
	g.leader = nil
	g.mu.Unlock()
	if leader != nil {
		leader.cmd.Wait()
	}
	g.closeCgroup()
	g.removeTmp()
}

// closeCgroup empties and removes the group's cgroup, keeping its
// counters. The group is closed: no process starts in it any more.
func (g *Group) closeCgroup() {
	g.mu.Lock()
	cg := g.cgroup
	g.mu.Unlock()
	if cg == nil {
		return
	}
	ev, _ := cg.Close() // one it cannot remove, a later Quiver does
	g.mu.Lock()
	g.events = LimitEvents{Counted: true, MemoryCounted: cg.Memory(), Processes: ev.Processes, OOMKills: ev.OOMKills}
	g.mu.Unlock()
}

func allFiles(cmd *exec.Cmd) bool {
	_, in := cmd.Stdin.(*os.File)
	_, out := cmd.Stdout.(*os.File)
	_, errw := cmd.Stderr.(*os.File)
	return in && out && errw
}

// exitStatus returns the shell's status for a finished program: its exit
// code, or 128 plus the signal that killed it; -1 when it was not waited
// for.
func exitStatus(ps *os.ProcessState) int {
	if ps == nil {
		return -1
	}
	if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return 128 + int(ws.Signal())
	}
	return ps.ExitCode()
}
