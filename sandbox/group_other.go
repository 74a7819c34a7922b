//go:build !unix

package sandbox

import (
	"context"
	"os/exec"
	"sync"
)

// Group is the processes of one call. Where there are no process groups,
// killing a group kills the processes it started, not what they started in
// turn; confined processes cannot start here at all (see [Check]).
type Group struct {
	profile  *Profile
	stopKill func() bool

	mu      sync.Mutex
	closed  bool
	running map[*Process]bool
}

// NewGroup returns an empty group of processes under profile; ctx's end
// kills them. A confining profile is refused here ([Check]).
func NewGroup(ctx context.Context, profile *Profile) (*Group, error) {
	return newGroup(ctx, profile, true)
}

func newGroup(ctx context.Context, profile *Profile, _ bool) (*Group, error) {
	if err := profile.Check(); err != nil {
		return nil, err
	}
	g := &Group{profile: profile}
	g.stopKill = context.AfterFunc(ctx, g.Kill)
	return g, nil
}

// prepare does nothing: there are no process groups to join here.
func (g *Group) prepare(*Process, *exec.Cmd) {}

// started does nothing: the group kills what it started one by one.
func (g *Group) started(*Process) {}

func (g *Group) wait(p *Process) error {
	err := p.cmd.Wait()
	g.mu.Lock()
	delete(g.running, p)
	g.mu.Unlock()
	p.status = -1
	if p.cmd.ProcessState != nil {
		p.status = p.cmd.ProcessState.ExitCode()
	}
	return err
}

// Kill kills every process the group started and refuses to start more.
func (g *Group) Kill() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.closed = true
	for p := range g.running {
		p.cmd.Process.Kill()
	}
}

// Close kills every process the group started.
func (g *Group) Close() {
	g.stopKill()
	g.Kill()
}

// mark returns env: nothing here can find a process by its environment.
func (g *Group) mark(_ *Process, env []string) []string { return env }

// withCgroup returns p's profile: there are no cgroups here.
func (g *Group) withCgroup(p *Process) (*Profile, error) { return p.Profile, nil }

// LimitEvents are zero: no cgroup holds a limit here.
func (g *Group) LimitEvents() LimitEvents { return LimitEvents{} }
