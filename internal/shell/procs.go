//go:build unix

package shell

import (
	"errors"
	"os"
	"os/exec"
	"sync"
	"syscall"
)

// group is the process group of one run. Every program a run starts goes
// into it, so that one kill(-pgid) ends the whole tree — the programs, and
// whatever they left running in the background — on timeout, on a refusal,
// and when the run ends. Nothing a run started outlives it, except a
// program that deliberately leaves the group (setsid, a daemon).
//
// The group is led by the run's first program. Its exit status is read
// without reaping it (waitid with WNOWAIT, see waitLeader), so its zombie
// keeps the group's id reserved until the run ends and the group is killed:
// the kernel cannot hand that id to an unrelated process in the meantime,
// which matters on systems with a small pid_max, where ids come round fast.
//
// A program whose standard streams are not all files (the output of $(...)
// is captured through a pipe os/exec copies) cannot lead the group, as its
// Wait must run to collect the output: if no group exists yet it gets a
// group of its own, killed as soon as it has been waited for.
//
// Every program the run started itself is also killed one by one (through
// its pidfd, which cannot hit a reused pid): one that called setsid has left
// the group, and the run must not wait on it for ever.
type group struct {
	mu      sync.Mutex
	closed  bool
	pgid    int       // 0 until the leader starts
	leader  *exec.Cmd // unreaped until reap
	own     map[int]bool
	running map[*exec.Cmd]bool
}

var errRunEnded = errors.New("the run has ended")

// start starts cmd in the group; leader reports whether cmd leads it (and
// so must be waited for with waitLeader, not cmd.Wait).
func (g *group) start(cmd *exec.Cmd) (leader bool, err error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.closed {
		return false, errRunEnded
	}
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Setpgid, cmd.SysProcAttr.Pgid = true, g.pgid // kept: the sandbox's namespaces
	if ownPIDNamespace(cmd.SysProcAttr) {
		// A confined program's launcher is the init of a PID namespace of
		// its own, and cannot join a group outside it: it leads its own, is
		// killed by pid (running), and every process of its call dies with it.
		cmd.SysProcAttr.Pgid = 0
	}
	if err := cmd.Start(); err != nil {
		return false, err
	}
	pid := cmd.Process.Pid
	if g.running == nil {
		g.running = map[*exec.Cmd]bool{}
	}
	g.running[cmd] = true
	switch {
	case g.pgid != 0:
	case canLead && allFiles(cmd):
		g.pgid, g.leader = pid, cmd
		return true, nil
	default:
		if g.own == nil {
			g.own = map[int]bool{}
		}
		g.own[pid] = true
	}
	return false, nil
}

// exited is called once a program that does not lead the group has been
// waited for: if it had a group of its own, what remains of that group is
// killed now, while its id cannot have been reused.
func (g *group) exited(cmd *exec.Cmd) {
	pid := cmd.Process.Pid
	g.mu.Lock()
	defer g.mu.Unlock()
	delete(g.running, cmd)
	if g.own[pid] {
		syscall.Kill(-pid, syscall.SIGKILL)
		delete(g.own, pid)
	}
}

// kill kills every process of the run and refuses to start more.
func (g *group) kill() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.closed = true
	if g.pgid != 0 {
		syscall.Kill(-g.pgid, syscall.SIGKILL)
	}
	for pid := range g.own {
		syscall.Kill(-pid, syscall.SIGKILL)
	}
	for cmd := range g.running {
		cmd.Process.Kill()
	}
}

// reap releases the leader's zombie; call it after kill.
func (g *group) reap() {
	g.mu.Lock()
	leader := g.leader
	g.leader = nil
	g.mu.Unlock()
	if leader != nil {
		leader.Wait()
	}
}

func allFiles(cmd *exec.Cmd) bool {
	_, in := cmd.Stdin.(*os.File)
	_, out := cmd.Stdout.(*os.File)
	_, errw := cmd.Stderr.(*os.File)
	return in && out && errw
}

// exitStatus returns the shell's status for a finished program: its exit
// code, or 128 plus the signal that killed it.
func exitStatus(ps *os.ProcessState) int {
	if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return 128 + int(ws.Signal())
	}
	return ps.ExitCode()
}
