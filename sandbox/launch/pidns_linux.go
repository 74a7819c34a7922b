package launch

import (
	"errors"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"
)

// The launcher is the init of the call's PID namespace (see namespaces): it
// starts the program as its child in a session of its own, forwards the
// signals the host sends it, reaps every process orphaned in the namespace,
// and exits with the program's status. Its exit ends the namespace: the
// kernel kills whatever the program left behind (a daemon that forked twice
// and called setsid included) before the host's wait for the launcher
// returns.

// forwarded are the signals the launcher passes on to the program's process
// group. A namespace's init gets from the host only the signals it handles,
// so each one the program should see is handled here. SIGTSTP becomes
// SIGSTOP: the program's group has no parent in its session, and the
// kernel discards a terminal stop sent to such an (orphaned) group.
var forwarded = map[os.Signal]syscall.Signal{
	syscall.SIGHUP: syscall.SIGHUP, syscall.SIGINT: syscall.SIGINT, syscall.SIGQUIT: syscall.SIGQUIT,
	syscall.SIGTERM: syscall.SIGTERM, syscall.SIGUSR1: syscall.SIGUSR1, syscall.SIGUSR2: syscall.SIGUSR2,
	syscall.SIGWINCH: syscall.SIGWINCH, syscall.SIGCONT: syscall.SIGCONT, syscall.SIGTSTP: syscall.SIGSTOP,
}

// runAsInit starts the program, forwards signals to it and reaps until it
// has exited; it returns the program's status as a shell reports it.
func (s *Spec) runAsInit() int {
	sigs := make(chan os.Signal, 8)
	for sig := range forwarded {
		signal.Notify(sigs, sig)
	}
	// The memory limit is the second stage's to set (see execLimited):
	// the launcher's own runtime may still need memory.
	own := s.Limits
	own.MemoryBytes = 0
	if err := own.set(); err != nil {
		fmt.Fprintf(os.Stderr, "quiver-sandbox: %v\n", err)
		return exitSetup
	}
	pid, status := s.startProgram()
	if pid == 0 {
		return status
	}
	go forward(sigs, pid)
	return reapUntil(pid, s.Limits)
}

// startProgram forks and execs the program in a new session with no
// controlling terminal (so it can neither push input into the host's
// terminal with TIOCSTI nor open /dev/tty) — but the call's own
// pseudo-terminal when Spec.Terminal asks for it, whose other end only the
// host holds — with its environment and the descriptors the host passed on
// purpose. It returns the program's pid, or
// 0 and the exit status of a program that could not be started.
//
// It must run on the thread confine confined: the fork happens on the
// calling thread, and the child inherits that thread's Landlock domain,
// no_new_privs and (empty) capabilities. launch holds the thread locked.
func (s *Spec) startProgram() (int, int) {
	files := make([]uintptr, 3+s.ExtraFiles)
	for i := range files {
		files[i] = uintptr(i)
	}
	attr := &syscall.ProcAttr{Env: s.Env, Files: files, Sys: &syscall.SysProcAttr{Setsid: true}}
	path, args := s.Path, s.Args
	if s.Limits.MemoryBytes > 0 {
		var err error
		if path, args, attr.Env, err = s.secondStage(); err != nil {
			fmt.Fprintf(os.Stderr, "quiver-sandbox: %v\n", err)
			return 0, exitSetup
		}
	}
	pid, err := forkExecTerminal(path, args, attr, s.Terminal)
	// A file just written by another process cannot be executed for a
	// moment (https://go.dev/issue/22315).
	for delay := time.Millisecond; errors.Is(err, syscall.ETXTBSY) && delay < 300*time.Millisecond; delay *= 2 {
		time.Sleep(delay)
		pid, err = forkExecTerminal(path, args, attr, s.Terminal)
	}
	if err == nil {
		return pid, 0
	}
	fmt.Fprintf(os.Stderr, "%s: %v\n", s.Args[0], err)
	if errors.Is(err, syscall.ENOENT) {
		return 0, exitNotFound
	}
	return 0, exitCannotExec
}

// forkExecTerminal forks and execs the program; with terminal, it first
// tries with standard input as the program's controlling terminal (the
// host's pseudo-terminal for the call, see Spec.Terminal). The child's
// TIOCSCTTY fails before the exec, so nothing ran, when standard input is
// no terminal (ENOTTY: a program of a pipeline) or the terminal controls
// another session already (EPERM: another program of the line holds it;
// taking it would need CAP_SYS_ADMIN, which nothing here has): the program
// then starts without one.
func forkExecTerminal(path string, args []string, attr *syscall.ProcAttr, terminal bool) (int, error) {
	if terminal {
		withTTY := *attr
		sys := *attr.Sys
		sys.Setctty, sys.Ctty = true, 0
		withTTY.Sys = &sys
		pid, err := syscall.ForkExec(path, args, &withTTY)
		if !errors.Is(err, syscall.ENOTTY) && !errors.Is(err, syscall.EPERM) && !errors.Is(err, syscall.EINVAL) {
			return pid, err
		}
	}
	return syscall.ForkExec(path, args, attr)
}

// forward passes each signal the launcher receives on to the program's
// process group (the program leads it: setsid made it so).
func forward(sigs <-chan os.Signal, pid int) {
	for sig := range sigs {
		syscall.Kill(-pid, forwarded[sig])
	}
}

// reapUntil waits for every child the namespace hands the launcher, as an
// init must, until pid has exited, and returns pid's status: its exit code,
// or 128 plus the signal that killed it. A process it reaps that the CPU
// time limit killed (the program, or an orphan) gets a line on standard
// error naming the limit.
func reapUntil(pid int, limits Limits) int {
	reported := false
	for {
		var ws syscall.WaitStatus
		var ru syscall.Rusage
		got, err := syscall.Wait4(-1, &ws, 0, &ru)
		if errors.Is(err, syscall.EINTR) {
			continue
		}
		if err != nil {
			fmt.Fprintf(os.Stderr, "quiver-sandbox: waiting for the program: %v\n", err)
			return exitSetup
		}
		if !reported && limits.cpuExceeded(ws, &ru) {
			limits.reportCPU()
			reported = true
		}
		if got != pid {
			continue
		}
		if ws.Signaled() {
			return 128 + int(ws.Signal())
		}
		return ws.ExitStatus()
	}
}

// mountProc mounts a /proc of the call's PID namespace over the host's, so
// that ps, kill and /proc show only the call's processes. A host whose
// /proc has parts hidden under other mounts (a container runtime's masked
// paths) makes the kernel refuse a new one (EPERM): the host's /proc then
// stays, and with it a view, not a reach, of the host's processes — no
// signal can cross the PID namespace.
func mountProc() error {
	err := syscall.Mount("proc", "/proc", "proc", syscall.MS_NOSUID|syscall.MS_NODEV|syscall.MS_NOEXEC, "")
	if err != nil && !errors.Is(err, syscall.EPERM) {
		return fmt.Errorf("mounting /proc: %w", err)
	}
	return nil
}
