package sandbox_test

import (
	"bufio"
	"bytes"
	"crypto/rand"
	"debug/elf"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/quiverkit/quiver/sandbox"
	"github.com/quiverkit/quiver/sandbox/launch"
)

// The tests of this file prove the layers that make one call one confined
// world (issue 26, classes 1 to 5): a launcher nothing in the call's
// environment can steer, processes that end with their call, no terminal,
// no inherited descriptors, no host IPC. Each runs under both write scopes
// that confine.

var confinedScopes = []sandbox.WriteScope{sandbox.ReadOnly, sandbox.WorkspaceWrite}

// confinedCmd returns a command running bash -c script under a fresh
// profile of scope (with its own TMPDIR), in the workspace, with env added
// to a minimal environment.
func confinedCmd(t *testing.T, scope sandbox.WriteScope, script string, env ...string) (*exec.Cmd, string) {
	t.Helper()
	cmd, q := unwrappedCmd(t, scope, script, env...)
	if err := q.Wrap(cmd); err != nil {
		t.Fatalf("Wrap: %v", err)
	}
	return cmd, cmd.Dir
}

// unwrappedCmd is confinedCmd before Wrap, and the profile to wrap it in.
func unwrappedCmd(t *testing.T, scope sandbox.WriteScope, script string, env ...string) (*exec.Cmd, *sandbox.Profile) {
	t.Helper()
	p, ws, _ := profile(t, scope, sandbox.Config{})
	q, remove, err := p.WithTempDir()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(remove)
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Fatal(err)
	}
	return &exec.Cmd{Path: bash, Args: []string{"bash", "-c", script}, Dir: ws,
		Env: append([]string{"PATH=" + os.Getenv("PATH"), "HOME=" + ws}, env...), WaitDelay: time.Minute}, q
}

func randomMark(t *testing.T) string {
	t.Helper()
	b := make([]byte, 8)
	rand.Read(b)
	return hex.EncodeToString(b)
}

// TestLauncherEnvironment (class 1): whatever environment a call gives its
// program — the dynamic loader's variables, the Go runtime's — the launcher,
// which runs before it is confined, is started with none of it; the
// program gets all of it.
func TestLauncherEnvironment(t *testing.T) {
	// One start per scope carries them all: the launcher's environment is
	// judged once, and what the program saw of each, each.
	steer := []string{"LD_PRELOAD=/x/evil.so", "LD_AUDIT=/x/evil.so", "LD_LIBRARY_PATH=/x",
		"GCONV_PATH=/x", "GLIBC_TUNABLES=glibc.malloc.check=3", "GODEBUG=inittrace=1", "GOTRACEBACK=crash"}
	script := "read x"
	for _, kv := range steer {
		name, _, _ := strings.Cut(kv, "=")
		script += `; printf '%s\n' "$` + name + `"`
	}
	for _, scope := range confinedScopes {
		t.Run(string(scope), func(t *testing.T) {
			cmd, _ := confinedCmd(t, scope, script, steer...)
			stdin, err := cmd.StdinPipe()
			if err != nil {
				t.Fatal(err)
			}
			var out, stderr bytes.Buffer // the loader complains of a missing library on stderr
			cmd.Stdout, cmd.Stderr = &out, &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			// The launcher is running (the program waits on stdin): its
			// environment is the one it was started with.
			raw, err := os.ReadFile("/proc/" + strconv.Itoa(cmd.Process.Pid) + "/environ")
			stdin.Close()
			werr := cmd.Wait()
			if err != nil {
				t.Fatal(err)
			}
			env := strings.Split(strings.TrimSuffix(string(raw), "\x00"), "\x00")
			// Besides its spec, only what a race-enabled build adds for
			// itself (launch.RaceEnv, none in a release build).
			if !strings.HasPrefix(env[0], "QUIVER_SANDBOX_SPEC=") || !slices.Equal(env[1:], launch.RaceEnv) {
				t.Errorf("the launcher was started with %d variables: %q", len(env), env)
			}
			seen := strings.Split(out.String(), "\n")
			if werr != nil || len(seen) != len(steer)+1 {
				t.Fatalf("the program: %v, printed %q", werr, out.String())
			}
			for i, kv := range steer {
				name, value, _ := strings.Cut(kv, "=")
				if seen[i] != value {
					t.Errorf("the program saw %s=%q, want %q", name, seen[i], value)
				}
			}
		})
	}
}

// TestPreloadNeverRunsUnconfined (class 1): a library named by LD_PRELOAD or
// LD_AUDIT, loaded by a dynamically linked launcher, would run before the
// launcher confines itself. It writes outside the workspace when it can:
// unconfined it does, confined (in the program, where it is loaded) it
// cannot, and the launcher never loads it.
func TestPreloadNeverRunsUnconfined(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	if f, err := elf.Open(exe); err != nil {
		t.Fatal(err)
	} else if f.Section(".interp") == nil {
		f.Close()
		t.Skip("this test binary is linked statically: no loader reads LD_PRELOAD (TestLauncherEnvironment still applies)")
	} else {
		f.Close()
	}
	cc, err := exec.LookPath("cc")
	if err != nil {
		t.Skip("no C compiler to build the library (TestLauncherEnvironment still applies)")
	}
	out := t.TempDir()
	src := filepath.Join(t.TempDir(), "evil.c")
	lib := filepath.Join(t.TempDir(), "evil.so")
	code := `#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>
unsigned int la_version(unsigned int v) { return v; }
__attribute__((constructor)) static void evil(void) {
	char p[4096];
	snprintf(p, sizeof p, "%s/ran-%d", OUT, (int)getpid());
	int fd = open(p, O_CREAT | O_WRONLY, 0644);
	if (fd >= 0) close(fd);
}
`
	if err := os.WriteFile(src, []byte(code), 0o644); err != nil {
		t.Fatal(err)
	}
	if b, err := exec.Command(cc, "-shared", "-fPIC", "-o", lib, `-DOUT="`+out+`"`, src).CombinedOutput(); err != nil {
		t.Fatalf("cc: %v: %s", err, b)
	}
	// The control: unconfined, the library runs and writes.
	if b, err := (&exec.Cmd{Path: "/bin/true", Env: []string{"LD_PRELOAD=" + lib}}).CombinedOutput(); err != nil {
		t.Fatalf("/bin/true: %v: %s", err, b)
	}
	if entries, _ := os.ReadDir(out); len(entries) != 1 {
		t.Fatalf("the library did not run unconfined (%d files): the test proves nothing", len(entries))
	}
	os.Remove(filepath.Join(out, mustOnly(t, out)))
	for _, scope := range confinedScopes {
		for _, name := range []string{"LD_PRELOAD", "LD_AUDIT"} {
			t.Run(string(scope)+"/"+name, func(t *testing.T) {
				cmd, _ := confinedCmd(t, scope, "/bin/true", name+"="+lib)
				if b, err := cmd.CombinedOutput(); err != nil {
					t.Fatalf("%v: %s", err, b)
				}
				if entries, _ := os.ReadDir(out); len(entries) != 0 {
					t.Errorf("the library ran unconfined: %v", entries)
					for _, e := range entries {
						os.Remove(filepath.Join(out, e.Name()))
					}
				}
			})
		}
	}
}

func mustOnly(t *testing.T, dir string) string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil || len(entries) != 1 {
		t.Fatalf("%s: %v %v", dir, entries, err)
	}
	return entries[0].Name()
}

// survivors returns the pids of the processes whose environment holds
// QUIVER_TEST_MARK=mark, and kills them (a test that found one has failed,
// and must not leave it running).
func survivors(t *testing.T, mark string) []int {
	t.Helper()
	want := "QUIVER_TEST_MARK=" + mark
	entries, err := os.ReadDir("/proc")
	if err != nil {
		t.Fatal(err)
	}
	var pids []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		raw, err := os.ReadFile("/proc/" + e.Name() + "/environ")
		if err != nil {
			continue
		}
		for _, kv := range strings.Split(string(raw), "\x00") {
			if kv == want {
				pids = append(pids, pid)
				syscall.Kill(pid, syscall.SIGKILL)
				break
			}
		}
	}
	return pids
}

// daemons are ways a program leaves something running behind it. Each
// redirects its standard streams so that, with the PID namespace removed,
// the call still returns and the survivor is found.
var daemons = []struct{ name, script string }{
	{"setsid sh -c 'sleep &'", `setsid sh -c 'sleep 1000 </dev/null >/dev/null 2>&1 &'`},
	{"setsid -f", `setsid -f sleep 1000 </dev/null >/dev/null 2>&1`},
	{"nohup &", `nohup sleep 1000 </dev/null >/dev/null 2>&1 &`},
	{"& disown", `sleep 1000 </dev/null >/dev/null 2>&1 & disown`},
	{"ignores SIGTERM and SIGHUP", `(trap '' TERM HUP INT; sleep 1000) </dev/null >/dev/null 2>&1 &`},
	{"python double fork", `python3 -c '
import os, time
if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        for fd in (0, 1, 2): os.close(fd)
        time.sleep(1000)
    os._exit(0)
os.wait()
'`},
	{"perl double fork", `perl -MPOSIX -e 'if (fork) { wait; exit } POSIX::setsid(); fork and exit; close STDIN; close STDOUT; close STDERR; sleep 1000'`},
}

// TestProcessesEndWithTheCall (class 2): nothing a call started runs on
// once the call's program has exited — the launcher is the init of the
// call's PID namespace, and the kernel kills the rest when it exits.
func TestProcessesEndWithTheCall(t *testing.T) {
	for _, scope := range confinedScopes {
		for _, d := range daemons {
			t.Run(string(scope)+"/"+d.name, func(t *testing.T) {
				mark := randomMark(t)
				cmd, _ := confinedCmd(t, scope, d.script, "QUIVER_TEST_MARK="+mark)
				if b, err := cmd.CombinedOutput(); err != nil {
					t.Fatalf("%v: %s", err, b)
				}
				if pids := survivors(t, mark); len(pids) != 0 {
					t.Errorf("processes outlived their call: %v", pids)
				}
			})
		}
	}
}

// TestCallSeesOnlyItsProcesses (class 2): the call's /proc is its PID
// namespace's: the host's processes are not in it, nor can the call
// signal them.
func TestCallSeesOnlyItsProcesses(t *testing.T) {
	victim := exec.Command("sleep", "1000")
	if err := victim.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { victim.Process.Kill(); victim.Wait() })
	host := strconv.Itoa(victim.Process.Pid)
	for _, scope := range confinedScopes {
		for _, tt := range []struct{ name, script string }{
			{"/proc has the host's process", "test -e /proc/" + host},
			{"ps lists the host's process", "ps -e -o pid= | grep -qw " + host},
			{"/proc lists more than the call's few", "test $(ls /proc | grep -c '^[0-9]') -gt 10"},
			{"kill the host's process", "kill -TERM " + host},
			{"kill every process", "kill -TERM -1; kill -KILL -1; true"},
		} {
			t.Run(string(scope)+"/"+tt.name, func(t *testing.T) {
				cmd, _ := confinedCmd(t, scope, tt.script)
				if b, err := cmd.CombinedOutput(); err == nil && tt.name != "kill every process" {
					t.Errorf("succeeded: %s", b)
				}
				if err := syscall.Kill(victim.Process.Pid, 0); err != nil {
					t.Fatalf("the host's process is gone: %v", err)
				}
			})
		}
	}
}

// TestSignalsReachTheProgram (class 2): the launcher passes the host's
// signals on to the program and exits with its status, as a shell reports
// it.
func TestSignalsReachTheProgram(t *testing.T) {
	for _, scope := range confinedScopes {
		for _, tt := range []struct {
			name   string
			script string
			sig    syscall.Signal
			want   int
		}{
			{"SIGTERM to a trap", `trap 'exit 7' TERM; echo ready; sleep 1000 & wait`, syscall.SIGTERM, 7},
			{"SIGINT to a trap", `trap 'exit 8' INT; echo ready; sleep 1000 & wait`, syscall.SIGINT, 8},
			{"SIGHUP to a trap", `trap 'exit 9' HUP; echo ready; sleep 1000 & wait`, syscall.SIGHUP, 9},
			{"SIGTERM kills", `echo ready; exec sleep 1000`, syscall.SIGTERM, 128 + 15},
			{"exit status", `echo ready; exit 3`, 0, 3},
			{"killed by itself", `echo ready; kill -KILL $$`, 0, 128 + 9},
		} {
			t.Run(string(scope)+"/"+tt.name, func(t *testing.T) {
				cmd, _ := confinedCmd(t, scope, tt.script)
				stdout, err := cmd.StdoutPipe()
				if err != nil {
					t.Fatal(err)
				}
				if err := cmd.Start(); err != nil {
					t.Fatal(err)
				}
				if line, err := bufio.NewReader(stdout).ReadString('\n'); line != "ready\n" {
					t.Fatalf("read %q, %v", line, err)
				}
				if tt.sig != 0 {
					cmd.Process.Signal(tt.sig)
				}
				io.Copy(io.Discard, stdout)
				err = cmd.Wait()
				if got := cmd.ProcessState.ExitCode(); got != tt.want {
					t.Errorf("exit status %d (%v), want %d", got, err, tt.want)
				}
			})
		}
	}
}

// TestLauncherIsOutOfReach: the launcher outlives the program's exec, and
// its other threads are neither Landlocked nor without capabilities, so
// the program must not reach into it.
func TestLauncherIsOutOfReach(t *testing.T) {
	for _, scope := range confinedScopes {
		for _, tt := range []struct{ name, script string }{
			{"environ", "cat /proc/1/environ"},
			{"mem", "perl -e 'open(my $f, \"+<\", \"/proc/1/mem\") or die \"$!\"'"},
			{"a descriptor", ": < /proc/1/fd/1"},
			{"cwd", "ls /proc/1/cwd/"},
			{"ptrace", `python3 -c '
import ctypes, sys
libc = ctypes.CDLL(None, use_errno=True)
sys.exit(0 if libc.ptrace(16, 1, None, None) == 0 else 1)
'`},
		} {
			t.Run(string(scope)+"/"+tt.name, func(t *testing.T) {
				cmd, _ := confinedCmd(t, scope, tt.script)
				if b, err := cmd.CombinedOutput(); err == nil {
					t.Errorf("the program reached the launcher: %q", b)
				}
			})
		}
	}
}

// openPty returns a new pseudo-terminal's master and slave, the slave in
// raw mode so that every byte pushed into its input counts.
func openPty(t *testing.T) (master, slave *os.File) {
	t.Helper()
	m, err := os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close() })
	if err := unix.IoctlSetPointerInt(int(m.Fd()), unix.TIOCSPTLCK, 0); err != nil {
		t.Fatal(err)
	}
	n, err := unix.IoctlGetUint32(int(m.Fd()), unix.TIOCGPTN)
	if err != nil {
		t.Fatal(err)
	}
	s, err := os.OpenFile("/dev/pts/"+strconv.Itoa(int(n)), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	tio, err := unix.IoctlGetTermios(int(s.Fd()), unix.TCGETS)
	if err != nil {
		t.Fatal(err)
	}
	tio.Lflag &^= unix.ICANON | unix.ECHO | unix.ISIG
	if err := unix.IoctlSetTermios(int(s.Fd()), unix.TCSETS, tio); err != nil {
		t.Fatal(err)
	}
	return m, s
}

// TestNoTerminal (class 3): a confined program runs in a session of its
// own with no controlling terminal, even when it is started from a
// terminal's session with the terminal as its standard streams (`quiver
// sandbox -- CMD` in a shell): it cannot push input into the terminal for
// the user's shell to run.
func TestNoTerminal(t *testing.T) {
	const inject = `import fcntl, sys, termios
for c in b"id\n": fcntl.ioctl(FD, termios.TIOCSTI, bytes([c]))`
	for _, scope := range confinedScopes {
		for _, tt := range []struct{ name, script string }{
			{"TIOCSTI on stdin", "python3 -c '" + strings.ReplaceAll(inject, "FD", "0") + "'"},
			{"TIOCSTI on stderr", "python3 -c '" + strings.ReplaceAll(inject, "FD", "2") + "'"},
			{"TIOCSTI on /dev/tty", "python3 -c '" + strings.ReplaceAll(inject, "FD", `open("/dev/tty", "rb", 0)`) + "'"},
			{"TIOCSTI on a reopened stdin", "python3 -c '" + strings.ReplaceAll(inject, "FD", `open("/proc/self/fd/0", "rb", 0)`) + "'"},
			{"TIOCSTI from perl", `perl -e 'ioctl(STDIN, 0x5412, "x") or die "$!"'`},
			{"TIOCSTI from a child's new session", "setsid -w python3 -c '" + strings.ReplaceAll(inject, "FD", "0") + "'"},
		} {
			t.Run(string(scope)+"/"+tt.name, func(t *testing.T) {
				_, slave := openPty(t)
				cmd, _ := confinedCmd(t, scope, tt.script)
				cmd.Stdin, cmd.Stdout, cmd.Stderr = slave, slave, slave
				cmd.SysProcAttr.Setsid, cmd.SysProcAttr.Setctty, cmd.SysProcAttr.Ctty = true, true, 0
				cmd.Run()
				if n, err := unix.IoctlGetInt(int(slave.Fd()), unix.TIOCINQ); err != nil || n != 0 {
					t.Errorf("%d bytes were pushed into the terminal's input (%v)", n, err)
				}
			})
		}
	}
}

// TestNoInheritedDescriptors (class 4): descriptors the host holds without
// close-on-exec — a file outside the workspace, a socket connected to a
// host listener, a listening socket — never reach a confined program; those
// Quiver passes on purpose (ExtraFiles) do.
func TestNoInheritedDescriptors(t *testing.T) {
	outside := t.TempDir()
	file, err := syscall.Open(filepath.Join(outside, "victim"), syscall.O_CREAT|syscall.O_WRONLY|syscall.O_APPEND, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { syscall.Close(file) })
	listening, connected, accepted := socketTriple(t)
	type attempt struct{ name, script string }
	var attempts []attempt
	for _, fd := range []int{file, connected, listening} {
		n := strconv.Itoa(fd)
		for _, tt := range []attempt{
			{"echo >&N", "echo pwned >&" + n},
			{"/proc/self/fd/N", "echo pwned > /proc/self/fd/" + n},
			{"/dev/fd/N", "echo pwned > /dev/fd/" + n},
			{"stdout redirected", "exec 1>&" + n + " && echo pwned"},
			{"stdin redirected", "exec 0<&" + n + " && python3 -c 'import os; os.write(0, b\"pwned\")'"},
			{"python os.write", "python3 -c 'import os; os.write(" + n + ", b\"pwned\")'"},
			{"python accept", "python3 -c 'import socket; c, _ = socket.socket(fileno=" + n + ").accept(); c.send(b\"pwned\")'"},
			{"listed in /proc/self/fd", "test -e /proc/self/fd/" + n},
		} {
			attempts = append(attempts, attempt{"fd " + n + "/" + tt.name, tt.script})
		}
	}
	// One confined start per scope runs every attempt, each in a subshell of
	// its own, and prints its exit status: each is judged alone.
	var script strings.Builder
	for i, a := range attempts {
		fmt.Fprintf(&script, "( %s ) </dev/null >/dev/null 2>&1; echo \"%d $?\"\n", a.script, i)
	}
	for _, scope := range confinedScopes {
		cmd, _ := confinedCmd(t, scope, script.String())
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("%s: %v", scope, err)
		}
		status := strings.Fields(string(out))
		if len(status) != 2*len(attempts) {
			t.Fatalf("%s: %d statuses for %d attempts: %q", scope, len(status)/2, len(attempts), out)
		}
		for i, a := range attempts {
			t.Run(string(scope)+"/"+a.name, func(t *testing.T) {
				if status[2*i] != strconv.Itoa(i) || status[2*i+1] == "0" {
					t.Errorf("succeeded (status %q %q)", status[2*i], status[2*i+1])
				}
			})
		}
	}
	if b, err := os.ReadFile(filepath.Join(outside, "victim")); err != nil || len(b) != 0 {
		t.Errorf("the host's file was written: %q %v", b, err)
	}
	buf := make([]byte, 64)
	if n, _, err := syscall.Recvfrom(accepted, buf, syscall.MSG_DONTWAIT); err == nil || n > 0 {
		t.Errorf("the host's listener received %q", buf[:max(n, 0)])
	}

	t.Run("ExtraFiles are passed", func(t *testing.T) {
		r, w, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		cmd, q := unwrappedCmd(t, sandbox.ReadOnly, "echo passed >&3")
		cmd.ExtraFiles = []*os.File{w}
		if err := q.Wrap(cmd); err != nil {
			t.Fatal(err)
		}
		if b, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%v: %s", err, b)
		}
		w.Close()
		if b, _ := io.ReadAll(r); string(b) != "passed\n" {
			t.Errorf("fd 3 got %q", b)
		}
	})
}

// socketTriple returns, all without close-on-exec: a socket listening on
// the host's loopback with a connection waiting in its queue, a socket
// connected to a second listener, and that listener's accepted end.
func socketTriple(t *testing.T) (listening, connected, accepted int) {
	t.Helper()
	listen := func() (int, *syscall.SockaddrInet4) {
		fd, err := syscall.Socket(syscall.AF_INET, syscall.SOCK_STREAM, 0)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { syscall.Close(fd) })
		if err := syscall.Bind(fd, &syscall.SockaddrInet4{Addr: [4]byte{127, 0, 0, 1}}); err != nil {
			t.Fatal(err)
		}
		if err := syscall.Listen(fd, 8); err != nil {
			t.Fatal(err)
		}
		sa, err := syscall.Getsockname(fd)
		if err != nil {
			t.Fatal(err)
		}
		return fd, sa.(*syscall.SockaddrInet4)
	}
	dial := func(sa *syscall.SockaddrInet4) int {
		fd, err := syscall.Socket(syscall.AF_INET, syscall.SOCK_STREAM, 0)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { syscall.Close(fd) })
		if err := syscall.Connect(fd, sa); err != nil {
			t.Fatal(err)
		}
		return fd
	}
	listening, addr := listen()
	dial(addr) // waits in listening's queue: an inherited listener would accept it
	other, otherAddr := listen()
	connected = dial(otherAddr)
	accepted, _, err := syscall.Accept(other)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { syscall.Close(accepted) })
	return listening, connected, accepted
}

// TestNoHostIPC (class 5): the host's System V shared memory, message
// queues and semaphores are out of a confined program's sight and reach.
func TestNoHostIPC(t *testing.T) {
	key := 0x5100_0000 + int(time.Now().UnixNano()%0xffffff)
	shm, err := unix.SysvShmGet(key, 4096, unix.IPC_CREAT|unix.IPC_EXCL|0o600)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { unix.SysvShmCtl(shm, unix.IPC_RMID, nil) })
	mem, err := unix.SysvShmAttach(shm, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { unix.SysvShmDetach(mem) })
	copy(mem, "orig")
	msq := ipcGet(t, unix.SYS_MSGGET, key, unix.IPC_CREAT|unix.IPC_EXCL|0o600, 0)
	t.Cleanup(func() { unix.Syscall(unix.SYS_MSGCTL, uintptr(msq), unix.IPC_RMID, 0) })
	sem := ipcGet(t, unix.SYS_SEMGET, key, 1, unix.IPC_CREAT|unix.IPC_EXCL|0o600)
	t.Cleanup(func() { unix.Syscall6(unix.SYS_SEMCTL, uintptr(sem), 0, unix.IPC_RMID, 0, 0, 0) })
	k := strconv.Itoa(key)
	hexKey := strconv.FormatInt(int64(key), 16)
	for _, scope := range confinedScopes {
		for _, tt := range []struct{ name, script string }{
			{"ipcs lists them", "ipcs | grep -q " + hexKey},
			{"shmwrite", "perl -e '$id = shmget(" + k + ", 0, 0) // die \"$!\"; shmwrite($id, \"pwned\", 0, 5) or die \"$!\"'"},
			{"shmget by id", "perl -e 'shmwrite(" + strconv.Itoa(shm) + ", \"pwned\", 0, 5) or die \"$!\"'"},
			{"msgsnd", "perl -e '$id = msgget(" + k + ", 0) // die \"$!\"; msgsnd($id, pack(\"l! a*\", 1, \"pwned\"), 0) or die \"$!\"'"},
			{"semop", "perl -e '$id = semget(" + k + ", 0, 0) // die \"$!\"; semop($id, pack(\"s!3\", 0, 1, 0)) or die \"$!\"'"},
			{"ipcrm shm", "ipcrm -M " + k},
			{"ipcrm msg", "ipcrm -Q " + k},
		} {
			t.Run(string(scope)+"/"+tt.name, func(t *testing.T) {
				cmd, _ := confinedCmd(t, scope, tt.script)
				if b, err := cmd.CombinedOutput(); err == nil {
					t.Errorf("succeeded: %q", b)
				}
			})
		}
	}
	if string(mem[:4]) != "orig" {
		t.Errorf("the shared memory was written: %q", mem[:8])
	}
	buf := make([]byte, 64)
	if _, _, e := unix.Syscall6(unix.SYS_MSGRCV, uintptr(msq), uintptr(unsafe.Pointer(&buf[0])), 56, 0, unix.IPC_NOWAIT, 0); e != unix.ENOMSG {
		t.Errorf("the message queue: msgrcv = %v, want ENOMSG (empty)", e)
	}
	if v, _, e := unix.Syscall6(unix.SYS_SEMCTL, uintptr(sem), 0, 12 /* GETVAL */, 0, 0, 0); e != 0 || v != 0 {
		t.Errorf("the semaphore: %d %v, want 0", v, e)
	}
}

func ipcGet(t *testing.T, call uintptr, key, a, b int) int {
	t.Helper()
	var id uintptr
	var e syscall.Errno
	if call == unix.SYS_MSGGET {
		id, _, e = unix.Syscall(call, uintptr(key), uintptr(a), 0)
	} else {
		id, _, e = unix.Syscall(call, uintptr(key), uintptr(a), uintptr(b))
	}
	if e != 0 {
		t.Fatalf("creating a host IPC object: %v", e)
	}
	return int(id)
}

// hostEnv makes the test binary, run with -test.run=TestHelperHost, a host
// that starts a confined program (the value is its script), prints the
// launcher's pid and waits to be killed.
const hostEnv = "QUIVER_TEST_HOST_SCRIPT"

// TestHelperHost is the host of TestCallsDieWithTheirHost, not a test.
func TestHelperHost(t *testing.T) {
	script, ok := os.LookupEnv(hostEnv)
	if !ok {
		t.Skip("the host of TestCallsDieWithTheirHost")
	}
	cmd, _ := confinedCmd(t, sandbox.WorkspaceWrite, script, os.Environ()...)
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	if line, err := bufio.NewReader(out).ReadString('\n'); line != "started\n" {
		t.Fatalf("the program said %q, %v", line, err)
	}
	os.Stdout.WriteString(strconv.Itoa(cmd.Process.Pid) + "\n")
	cmd.Wait()
	t.Fatal("the confined program ended before its host")
}

// TestCallsDieWithTheirHost (class 2): when the host dies — SIGKILL, or a
// SIGTERM it does not handle — every process of its calls dies too, a
// daemon that left the call's session included.
func TestCallsDieWithTheirHost(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	for _, sig := range []syscall.Signal{syscall.SIGKILL, syscall.SIGTERM} {
		t.Run(sig.String(), func(t *testing.T) {
			mark := randomMark(t)
			host := exec.Command(exe, "-test.run=^TestHelperHost$")
			host.Env = append(os.Environ(), "QUIVER_TEST_MARK="+mark,
				hostEnv+"="+`setsid -f sleep 1000 </dev/null >/dev/null 2>&1; echo started; exec sleep 1000`)
			stdout, err := host.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			var stderr bytes.Buffer
			host.Stderr = &stderr
			if err := host.Start(); err != nil {
				t.Fatal(err)
			}
			line, err := bufio.NewReader(stdout).ReadString('\n')
			launcher, aerr := strconv.Atoi(strings.TrimSpace(line))
			if err != nil || aerr != nil {
				host.Process.Kill()
				host.Wait()
				t.Fatalf("the host said %q (%v): %s", line, err, stderr.String())
			}
			pidfd, err := unix.PidfdOpen(launcher, 0)
			if err != nil {
				t.Fatal(err)
			}
			defer unix.Close(pidfd)
			host.Process.Signal(sig)
			host.Wait()
			// The launcher's end is reported once the kernel has killed its
			// namespace; the bound only turns a hang into a failure.
			fds := []unix.PollFd{{Fd: int32(pidfd), Events: unix.POLLIN}}
			if n, err := unix.Poll(fds, int((time.Minute).Milliseconds())); n != 1 || err != nil {
				t.Fatalf("the launcher outlived its host (%d %v)", n, err)
			}
			if pids := survivors(t, mark); len(pids) != 0 {
				t.Errorf("processes outlived their host: %v", pids)
			}
		})
	}
}
