package sandbox

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"syscall"
	"time"

	"github.com/quiverkit/quiver/sandbox/cgroup"
)

// Process is one program Quiver starts. Every process Quiver starts, for
// whichever tool or for itself, is a Process, and nothing else in Quiver
// starts one (process_test.go in the module root checks that no other
// package calls os/exec's or the kernel's starters). What a Process
// guarantees, in this one place — the start path:
//
//   - its environment is the minimal one ([HostEnv]) unless the caller
//     sets it whole, with the git protections and the call's TMPDIR of
//     [Profile.Env] on top;
//   - it runs under its [Profile], applied by [Profile.Wrap]: confined, the
//     launcher is the init of a PID namespace of its own, so every process
//     the program starts — a daemon that forked twice and called setsid
//     included — dies with it;
//   - a git gets git's profile ([Profile.ForProgram]): read-only, it runs
//     no program a repository names; under workspace-write, it may write
//     .git as add and commit do, and what it did there that redirects git
//     is undone when it exits ([Profile.GuardGit], [GitGuard.Check]), Wait
//     then failing with [ErrGitRefused];
//   - it belongs to a [Group]: the processes of one call, with the call's
//     private TMPDIR and process groups, killed whole when the group's
//     context ends, when it is killed or closed, and — for a Process made
//     by [Command], which has a group of its own — as soon as the program
//     has exited, so that nothing it left running outlives it;
//   - a file another process is still writing (ETXTBSY) is retried, and
//     the wait for output that something outside the group holds open is
//     bounded (exec.Cmd's WaitDelay, [OutputGrace]).
//
// It is used as an *exec.Cmd is: set the fields, take pipes, Start, Wait.
type Process struct {
	Args []string // the program's argv; Args[0] its name
	Dir  string
	// Env is the program's whole environment; nil is [HostEnv](nil), never
	// Quiver's own environment.
	Env            []string
	Stdin          io.Reader
	Stdout, Stderr io.Writer
	// Profile is the profile the program runs under: the one given to
	// [Command], or its group's; nil is unconfined. Start derives the
	// program's own from it ([Profile.ForProgram]).
	Profile *Profile
	// Interactive keeps a program of its own group ([Command]) in Quiver's
	// process group, so that the terminal's signals (Ctrl-C, Ctrl-Z, a
	// resize) reach it as they reach Quiver: for `quiver sandbox`, which
	// runs a program in the foreground for its user. Confined, the program
	// still dies with its launcher; unconfined, what it leaves behind is
	// killed by the group's mark in its environment (Linux; see Group), as
	// for any unconfined Process.
	Interactive bool
	// Terminal says that the program's standard input is a terminal
	// whose other end Quiver holds: the slave of a pseudo-terminal it
	// opened for the call (exec_command's tty), never a terminal of
	// Quiver's own. Confined, the launcher makes it the program's
	// controlling terminal in the program's new session, so that job
	// control, Ctrl-C written to the terminal and /dev/tty work; when it
	// cannot (standard input is not a terminal, or the terminal already
	// controls another program's session) the program has none, as
	// without Terminal. Unconfined, the program gets no controlling
	// terminal. Nothing else changes: the program runs under the same
	// launcher and profile, and its injection into a terminal (TIOCSTI,
	// TIOCLINUX) is refused as always.
	Terminal bool
	// Sealed, when not nil, is the program itself: exactly these bytes
	// run, and the file at the path the Process was made with is not read
	// again. It is for a program trusted by its content's digest (a pinned
	// script tool): a file replaced between the check and the start must
	// not run instead. On Linux the bytes go into a sealed memfd that
	// nothing can change, handed to the program as descriptor 3 and
	// executed as /dev/fd/3; a #! script's interpreter reads it there, so
	// /dev/fd/3 is the script's name ($0). Elsewhere they are copied into
	// Quiver's private directory ([PrivateDir]) and removed by Wait.
	Sealed []byte

	path    string
	lookErr error
	ctx     context.Context // of a Process with a group of its own
	group   *Group
	own     bool // the group is its own: made by Start, closed by Wait

	cmd             *exec.Cmd
	extra           []*os.File   // exec.Cmd.ExtraFiles: the sealed program
	guard           *GitGuard    // an approved git's: checked once it has exited
	leader          bool         // leads a shared group: waited for without being reaped
	cgroup          *cgroup.Call // the group's cgroup, which the process starts in; nil for none
	release         *os.File     // cgroup v1: the start pipe's end that lets the launcher go on
	status          int          // the shell's exit status, once waited for
	closeAfterStart []io.Closer
	closeAfterWait  []io.Closer
}

// OutputGrace bounds the wait, once a program has exited or been killed,
// for the end of the output it was handed through a pipe: a process that
// left the program's group (unconfined, nothing else can) may hold it open.
// It is the WaitDelay of every Process.
const OutputGrace = time.Second

// ErrGroupClosed is the refusal to start a process in a group that has
// been killed or closed.
var ErrGroupClosed = errors.New("sandbox: the call's processes have ended")

// Command returns a Process that runs name with args under profile, in a
// group of its own that lives as long as it: a confined profile's TMPDIR
// is made by Start and removed by Wait, and the end of ctx, like the
// program's own exit, kills the whole group. name is looked up as
// exec.Command looks it up (a name without a slash in the host's PATH).
func Command(ctx context.Context, profile *Profile, name string, args ...string) *Process {
	p := newProcess(name, args)
	p.ctx, p.Profile, p.own = ctx, profile, true
	return p
}

func newProcess(name string, args []string) *Process {
	lookup := exec.Command(name, args...) // looks the program up; never started
	return &Process{Args: lookup.Args, path: lookup.Path, lookErr: lookup.Err}
}

// Path is the program the Process runs, as looked up.
func (p *Process) Path() string { return p.path }

// StdinPipe returns a pipe connected to the program's standard input,
// closed by Wait (or by the caller, to signal the end of the input).
func (p *Process) StdinPipe() (io.WriteCloser, error) {
	if p.Stdin != nil {
		return nil, errors.New("sandbox: Stdin already set")
	}
	r, w, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("sandbox: stdin pipe: %w", err)
	}
	p.Stdin = r
	p.closeAfterStart = append(p.closeAfterStart, r)
	p.closeAfterWait = append(p.closeAfterWait, w)
	return w, nil
}

// StdoutPipe returns a pipe connected to the program's standard output.
// Wait closes it: read everything before calling Wait.
func (p *Process) StdoutPipe() (io.ReadCloser, error) {
	if p.Stdout != nil {
		return nil, errors.New("sandbox: Stdout already set")
	}
	r, w, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("sandbox: stdout pipe: %w", err)
	}
	p.Stdout = w
	p.closeAfterStart = append(p.closeAfterStart, w)
	p.closeAfterWait = append(p.closeAfterWait, r)
	return r, nil
}

// Start starts the program in its group, under its profile. An
// *[UnavailableError] means the kernel cannot enforce the profile, and
// nothing ran.
func (p *Process) Start() error {
	if p.Sealed != nil {
		if err := p.seal(); err != nil {
			closeAll(p.closeAfterStart)
			closeAll(p.closeAfterWait)
			return err
		}
	}
	if p.own {
		g, err := newGroup(context.Background(), p.Profile, false)
		if err != nil {
			closeAll(p.closeAfterStart)
			closeAll(p.closeAfterWait)
			return err
		}
		p.group, p.Profile = g, g.profile
	}
	err := p.forProgram()
	if err == nil {
		err = p.group.start(p)
	}
	// A file another process is still writing (just built, say) cannot be
	// executed for a moment; see https://go.dev/issue/22315. (Under the
	// sandbox the launcher retries its own exec.)
	for delay := time.Millisecond; errors.Is(err, syscall.ETXTBSY) && delay < 300*time.Millisecond; delay *= 2 {
		time.Sleep(delay)
		err = p.group.start(p)
	}
	closeAll(p.closeAfterStart)
	if err != nil {
		closeAll(p.closeAfterWait)
		if p.own {
			p.group.Close()
		}
	}
	return err
}

// seal makes p run Sealed instead of the file at its path (see Sealed).
func (p *Process) seal() error {
	f, path, remove, err := sealProgram(p.path, p.Sealed)
	if err != nil {
		return err
	}
	p.path, p.lookErr = path, nil
	if f != nil {
		p.extra = []*os.File{f}
		p.closeAfterStart = append(p.closeAfterStart, f)
	}
	p.closeAfterWait = append(p.closeAfterWait, closerFunc(remove))
	return nil
}

// closerFunc is a function that releases something, as an io.Closer.
type closerFunc func()

func (f closerFunc) Close() error { f(); return nil }

// forProgram is the git layer of the start path, applied to every
// program, whoever starts it: a git gets git's profile and arguments
// ([Profile.ForProgram]), and one that may write .git (an approved git
// under workspace-write, of exec_command, a custom tool, `quiver sandbox`)
// a guard over what it writes there, checked by Wait. Every other process
// finds all of .git read-only (the profile's mounts), so there is nothing
// to check after it, and no index to read before it. Quiver's own git
// probe (gitExecutables) runs unconfined, with nothing to derive.
func (p *Process) forProgram() error {
	profile, args, err := p.Profile.ForProgram(p.path, p.Args)
	if err != nil {
		return err
	}
	p.Profile, p.Args = profile, args
	p.guard = p.Profile.GuardGit()
	if p.Terminal && p.Profile.Confined() {
		q := *p.Profile
		q.terminal = true
		p.Profile = &q
	}
	return nil
}

// build returns the exec.Cmd of p: the program under its profile, with
// the minimal environment when p sets none, and the output grace.
func (p *Process) build() (*exec.Cmd, error) {
	var cmd *exec.Cmd
	if p.own {
		// os/exec's own context handling (the error Wait reports, the
		// output grace after a cancellation), with the whole group as what
		// is killed.
		cmd = exec.CommandContext(p.ctx, p.path)
		cmd.Cancel = func() error { p.group.Kill(); return nil }
	} else {
		cmd = &exec.Cmd{}
	}
	cmd.Path, cmd.Args, cmd.Err = p.path, p.Args, p.lookErr
	cmd.Dir, cmd.Env = p.Dir, p.Env
	if cmd.Env == nil {
		cmd.Env = HostEnv(nil)
	}
	cmd.Env = p.group.mark(p, cmd.Env)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = p.Stdin, p.Stdout, p.Stderr
	cmd.ExtraFiles = slices.Clip(p.extra) // before Wrap: the launcher passes them on
	cmd.WaitDelay = OutputGrace
	box, err := p.group.withCgroup(p)
	if err != nil {
		return nil, err
	}
	if err := box.Wrap(cmd); err != nil {
		return nil, err
	}
	// What Wrap added is the launcher's alone (the proxy's bridge): this
	// side's copy goes once the launcher has it.
	for _, f := range cmd.ExtraFiles[len(p.extra):] {
		p.closeAfterStart = append(p.closeAfterStart, f)
	}
	return cmd, nil
}

// Wait waits for the program to exit, kills what is left of its group when
// the group is its own (and removes the group's TMPDIR), and waits for its
// output to be copied. It returns what exec.Cmd.Wait returns, except for
// the leader of a shared group, whose exit is read without reaping it (see
// [Group]): nil once it has exited, its status in [Process.ExitStatus].
// For an approved git whose changes to .git were undone (see [Process])
// it returns the [GitGuard.Check] error, wrapping
// [ErrGitRefused], joined with any error but the program's exit status,
// which stays in ExitStatus and ExitCode.
func (p *Process) Wait() error {
	err := p.group.wait(p)
	closeAll(p.closeAfterWait)
	if p.own {
		p.group.Close()
	}
	// The git's tree has ended: a confined program's PID namespace is
	// empty once its launcher has exited, so nothing writes .git after
	// the check.
	if refused := p.guard.Check(); refused != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			err = nil
		}
		return errors.Join(refused, err)
	}
	return err
}

// Run starts the program and waits for it.
func (p *Process) Run() error {
	if err := p.Start(); err != nil {
		return err
	}
	return p.Wait()
}

// LimitEvents are what the kernel counted against the limits of p's call
// in its group's cgroup ([Group.LimitEvents]), the evidence for
// [Limits.Hit]: for a Process made by [Command] once Wait has returned
// (its group closes then), for one of a shared group once that group is
// closed. Zero when no cgroup held the limits.
func (p *Process) LimitEvents() LimitEvents {
	if p.group == nil {
		return LimitEvents{}
	}
	return p.group.LimitEvents()
}

// ExitStatus is the program's status as a shell reports it, once Wait has
// returned: its exit code, or 128 plus the signal that killed it.
func (p *Process) ExitStatus() int { return p.status }

// ExitCode is the program's exit code once Wait has returned, -1 when a
// signal killed it or it has not been waited for.
func (p *Process) ExitCode() int {
	if s := p.State(); s != nil {
		return s.ExitCode()
	}
	if p.leader {
		return p.status
	}
	return -1
}

// State is what os/exec knows of the exited program: nil before Wait has
// returned, and for the leader of a shared group until the group closes.
func (p *Process) State() *os.ProcessState {
	if p.cmd == nil {
		return nil
	}
	return p.cmd.ProcessState
}

// Pid is the process's id once started: under the sandbox, the
// launcher's, whose program is the init's child in its PID namespace.
func (p *Process) Pid() int { return p.cmd.Process.Pid }

// Signal sends sig to the process alone, for a graceful end (the launcher
// forwards it to the program's process group); [Process.Kill] ends the
// whole tree.
func (p *Process) Signal(sig os.Signal) error { return p.cmd.Process.Signal(sig) }

// Kill kills the process and, when its group is its own, the whole group.
// A process that has not started is left alone.
func (p *Process) Kill() {
	switch {
	case p.own && p.group != nil:
		p.group.Kill()
	case p.cmd != nil && p.cmd.Process != nil:
		p.cmd.Process.Kill()
	}
}

// Stop ends a program that reads requests on its standard input (an MCP
// server, quiver-models) the way such programs expect: stdin, the pipe
// StdinPipe returned, is closed; a program that has not exited within
// grace gets SIGTERM, and after grace more it is killed with its group.
// It returns Wait's error. Call it instead of Wait, once.
func (p *Process) Stop(stdin io.Closer, grace time.Duration) error {
	if stdin != nil {
		stdin.Close()
	}
	done := make(chan error, 1)
	go func() { done <- p.Wait() }()
	timer := time.NewTimer(grace)
	defer timer.Stop()
	select {
	case err := <-done:
		return err
	case <-timer.C:
	}
	if p.Signal(syscall.SIGTERM) == nil {
		timer.Reset(grace)
		select {
		case err := <-done:
			return err
		case <-timer.C:
		}
	}
	p.Kill()
	return <-done
}

func closeAll(cs []io.Closer) {
	for _, c := range cs {
		c.Close()
	}
}

// Profile is the profile the group's processes run under (on Unix, with
// the group's own TMPDIR).
func (g *Group) Profile() *Profile { return g.profile }

// Command returns a Process that runs name with args in the group, under
// the group's profile. name is looked up as exec.Command looks it up; a
// caller that resolved the program itself passes its absolute path, and
// sets Args as it wants argv.
func (g *Group) Command(name string, args ...string) *Process {
	p := newProcess(name, args)
	p.group, p.Profile = g, g.profile
	return p
}

// start starts p in the group, unless the group was killed: the platform
// prepares the command (prepare) and records what it started (started),
// both under the group's lock, so that a Kill sees every process started.
func (g *Group) start(p *Process) error {
	cmd, err := p.build()
	if err != nil {
		return err
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.closed {
		return ErrGroupClosed
	}
	g.prepare(p, cmd)
	if err := cmd.Start(); err != nil {
		return err
	}
	if err := p.place(cmd.Process.Pid); err != nil {
		cmd.Process.Kill()
		cmd.Wait()
		return err
	}
	p.cmd = cmd
	if g.running == nil {
		g.running = map[*Process]bool{}
	}
	g.running[p] = true
	g.started(p)
	return nil
}

// place puts the just started launcher of p in its group's cgroup under
// cgroup v1, and lets it go on (see launch.Spec.Held): until then it has
// started nothing. Elsewhere it was started in the cgroup, or there is none.
func (p *Process) place(pid int) error {
	if p.release == nil {
		return nil
	}
	defer p.release.Close()
	if err := p.cgroup.Place(pid); err != nil {
		return fmt.Errorf("sandbox: %w", err)
	}
	if _, err := p.release.Write([]byte{1}); err != nil {
		return fmt.Errorf("sandbox: releasing the launcher: %w", err)
	}
	return nil
}
