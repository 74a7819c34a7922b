package launch

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"
)

// hostSockets are Unix sockets on the host, outside every profile: named
// ones in a temporary directory and abstract ones, each kind as a stream
// listener and a datagram receiver. They never accept or read until
// reached is asked, so whatever a confined process queued is still there.
type hostSockets struct {
	Named, NamedDgram, Abstract, AbstractDgram string
	fds                                        map[string]int
}

func listenHost(t *testing.T, n int) *hostSockets {
	t.Helper()
	dir := t.TempDir()
	tag := fmt.Sprintf("quiver-test-%d-%s-%d", os.Getpid(), strings.ReplaceAll(t.Name(), "/", "-"), n)
	h := &hostSockets{Named: filepath.Join(dir, "s.sock"), NamedDgram: filepath.Join(dir, "d.sock"),
		Abstract: tag + "-s", AbstractDgram: tag + "-d", fds: map[string]int{}}
	for _, s := range []struct {
		name  string
		typ   int
		bound string
	}{{h.Named, unix.SOCK_STREAM, h.Named}, {h.NamedDgram, unix.SOCK_DGRAM, h.NamedDgram},
		{h.Abstract, unix.SOCK_STREAM, "@" + h.Abstract}, {h.AbstractDgram, unix.SOCK_DGRAM, "@" + h.AbstractDgram}} {
		fd, err := unix.Socket(unix.AF_UNIX, s.typ|unix.SOCK_NONBLOCK|unix.SOCK_CLOEXEC, 0)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { unix.Close(fd) })
		if err := unix.Bind(fd, &unix.SockaddrUnix{Name: s.bound}); err != nil {
			t.Fatalf("bind %s: %v", s.bound, err)
		}
		if s.typ == unix.SOCK_STREAM {
			if err := unix.Listen(fd, 16); err != nil {
				t.Fatal(err)
			}
		}
		h.fds[s.name] = fd
	}
	return h
}

// reached returns the sockets something connected or sent to, draining
// them: a connection waits in the backlog and a datagram in the queue
// until read, so nothing here depends on timing.
func (h *hostSockets) reached(t *testing.T) []string {
	t.Helper()
	var got []string
	for name, fd := range h.fds {
		for {
			var err error
			if name == h.Named || name == h.Abstract {
				var nfd int
				if nfd, _, err = unix.Accept4(fd, unix.SOCK_CLOEXEC); err == nil {
					unix.Close(nfd)
				}
			} else {
				_, _, err = unix.Recvfrom(fd, make([]byte, 64), 0)
			}
			if errors.Is(err, unix.EAGAIN) {
				break
			}
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			got = append(got, name)
		}
	}
	return got
}

// openPty opens a pseudo-terminal that is nobody's controlling terminal
// yet, and returns its slave's path and a slave descriptor in raw mode, on
// which the test reads what was pushed into its input.
func openPty(t *testing.T) (string, int) {
	t.Helper()
	master, err := unix.Open("/dev/ptmx", unix.O_RDWR|unix.O_NOCTTY|unix.O_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { unix.Close(master) })
	if err := unix.IoctlSetPointerInt(master, unix.TIOCSPTLCK, 0); err != nil {
		t.Fatal(err)
	}
	n, err := unix.IoctlGetInt(master, unix.TIOCGPTN)
	if err != nil {
		t.Fatal(err)
	}
	path := fmt.Sprintf("/dev/pts/%d", n)
	slave, err := unix.Open(path, unix.O_RDWR|unix.O_NOCTTY|unix.O_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { unix.Close(slave) })
	tio, err := unix.IoctlGetTermios(slave, unix.TCGETS)
	if err != nil {
		t.Fatal(err)
	}
	tio.Lflag &^= unix.ICANON | unix.ECHO
	if err := unix.IoctlSetTermios(slave, unix.TCSETS, tio); err != nil {
		t.Fatal(err)
	}
	return path, slave
}

// pushed is how many bytes wait in the terminal's input: what TIOCSTI put
// there, synchronously.
func pushed(t *testing.T, slave int) int {
	t.Helper()
	n, err := unix.IoctlGetInt(slave, unix.TIOCINQ)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// Native system call numbers the attempts that set high argument bits use.
func sysnums() (socket, connect, ioctl int) {
	if runtime.GOARCH == "arm64" {
		return 198, 203, 29
	}
	return 41, 42, 16
}

// escapeAttempt is a program and its arguments, with {NAMED}, {NAMED_DGRAM},
// {ABSTRACT}, {ABSTRACT_DGRAM} and {PTY} filled in.
type escapeAttempt struct {
	name string
	argv []string
}

func unixAttempts() []escapeAttempt {
	sock, conn, _ := sysnums()
	py := func(name, code string) escapeAttempt {
		return escapeAttempt{name, []string{"python3", "-c", "import socket, sys\n" + code}}
	}
	pl := func(name, code string) escapeAttempt {
		return escapeAttempt{name, []string{"perl", "-MSocket", "-e", code}}
	}
	return []escapeAttempt{
		py("python: named stream", `s = socket.socket(socket.AF_UNIX); s.connect("{NAMED}")`),
		py("python: named datagram", `socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM).sendto(b"x", "{NAMED_DGRAM}")`),
		py("python: abstract stream", `socket.socket(socket.AF_UNIX).connect("\0{ABSTRACT}")`),
		py("python: abstract datagram", `socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM).sendto(b"x", "\0{ABSTRACT_DGRAM}")`),
		py("python: datagram socketpair sends to a named socket", `a, b = socket.socketpair(socket.AF_UNIX, socket.SOCK_DGRAM); a.sendto(b"x", "{NAMED_DGRAM}")`),
		py("python: SOCK_RAW socketpair (a datagram one) sends to an abstract socket", `a, b = socket.socketpair(socket.AF_UNIX, socket.SOCK_RAW); a.sendto(b"x", "\0{ABSTRACT_DGRAM}")`),
		py("python: datagram socketpair connects elsewhere", `a, b = socket.socketpair(socket.AF_UNIX, socket.SOCK_DGRAM | socket.SOCK_CLOEXEC); a.connect("{NAMED_DGRAM}"); a.send(b"x")`),
		py("python: family with high bits (ctypes)", fmt.Sprintf(`import ctypes
libc = ctypes.CDLL(None, use_errno=True)
fd = libc.syscall(%d, ctypes.c_long(0x100000001), 1, 0)
if fd < 0: sys.exit("socket: errno %%d" %% ctypes.get_errno())
s = socket.socket(fileno=fd); s.connect("{NAMED}")`, sock)),
		pl("perl: named stream", `socket(S, PF_UNIX, SOCK_STREAM, 0) or die "socket: $!"; connect(S, pack_sockaddr_un("{NAMED}")) or die "connect: $!"`),
		pl("perl: abstract datagram", `socket(S, PF_UNIX, SOCK_DGRAM, 0) or die "socket: $!"; send(S, "x", 0, pack_sockaddr_un("\0{ABSTRACT_DGRAM}")) or die "send: $!"`),
		pl("perl: raw syscalls, family with high bits", fmt.Sprintf(`my $fd = syscall(%d, 0x100000001, 1, 0); $fd >= 0 or die "socket: $!"; my $a = pack_sockaddr_un("{NAMED}"); syscall(%d, $fd, $a, length $a) == 0 or die "connect: $!"`, sock, conn)),
		{"curl: --unix-socket", []string{"curl", "-s", "--max-time", "1", "--unix-socket", "{NAMED}", "http://x/"}},
		{"curl: --abstract-unix-socket", []string{"curl", "-s", "--max-time", "1", "--abstract-unix-socket", "{ABSTRACT}", "http://x/"}},
	}
}

func ttyAttempts() []escapeAttempt {
	_, _, ioctl := sysnums()
	py := func(name, code string) escapeAttempt {
		return escapeAttempt{name, []string{"python3", "-c", `import fcntl, os, termios, sys
try: os.setsid()
except OSError: pass
fd = os.open("{PTY}", os.O_RDONLY)
fcntl.ioctl(fd, termios.TIOCSCTTY, 0)
` + code}}
	}
	pl := func(name, code string) escapeAttempt {
		return escapeAttempt{name, []string{"perl", "-MPOSIX", "-e", `POSIX::setsid(); sysopen(T, "{PTY}", O_RDONLY) or die "open: $!"; ioctl(T, 0x540E, 0); ` + code}}
	}
	return []escapeAttempt{
		py("python: TIOCSTI", `fcntl.ioctl(fd, termios.TIOCSTI, b"x")`),
		py("python: TIOCSTI, a line", `[fcntl.ioctl(fd, termios.TIOCSTI, c) for c in [b"i", b"d", b"\n"]]`),
		pl("perl: TIOCSTI", `my $c = "x"; ioctl(T, 0x5412, $c) or die "ioctl: $!"`),
		pl("perl: TIOCSTI with high bits in the request", fmt.Sprintf(`my $c = "x"; syscall(%d, fileno(T), 0x100005412, $c) == 0 or die "ioctl: $!"`, ioctl)),
	}
}

func (h *hostSockets) expand(argv []string, pty string) []string {
	r := strings.NewReplacer("{NAMED}", h.Named, "{NAMED_DGRAM}", h.NamedDgram,
		"{ABSTRACT}", h.Abstract, "{ABSTRACT_DGRAM}", h.AbstractDgram, "{PTY}", pty)
	out := make([]string, len(argv))
	for i, a := range argv {
		out[i] = r.Replace(a)
	}
	return out
}

// runConfined runs argv under s through the launcher (this test binary)
// and returns its combined output and error.
func runConfined(t *testing.T, s Spec, argv ...string) (string, error) {
	t.Helper()
	return runConfinedWith(t, s, nil, argv...)
}

// runConfinedWith is runConfined with the launcher's SysProcAttr preset.
func runConfinedWith(t *testing.T, s Spec, sys *syscall.SysProcAttr, argv ...string) (string, error) {
	t.Helper()
	path, err := exec.LookPath(argv[0])
	if err != nil {
		t.Skipf("%s is not installed", argv[0])
	}
	s.Path, s.Args = path, argv
	var out bytes.Buffer
	cmd := &exec.Cmd{Dir: s.Workspace, Stdout: &out, Stderr: &out, SysProcAttr: sys}
	if err := Command(s, cmd); err != nil {
		return "", err
	}
	err = cmd.Run()
	return out.String(), err
}

// profiles are the confined shapes every escape runs under.
func profiles(ws string) map[string]Spec {
	return map[string]Spec{
		"read-only":               {ReadOnly: true, Workspace: ws},
		"workspace-write":         {Workspace: ws},
		"workspace-write+network": {Workspace: ws, Network: true},
	}
}

// TestUnixSocketsAndTerminalAreRefused: no confined process reaches a Unix
// socket of the host, named or abstract, stream or datagram, by any
// program or spelling, nor pushes input into a terminal, under every
// profile. Network on, abstract sockets are fenced by seccomp alone below
// Landlock ABI 6, which the capped runs (TestOlderKernels) exercise.
func TestUnixSocketsAndTerminalAreRefused(t *testing.T) {
	for name, s := range profiles(t.TempDir()) {
		t.Run(name, func(t *testing.T) { runEscapes(t, s, nil) })
	}
}

// signalAttempts signal {PID}, a process of the host.
func signalAttempts() []escapeAttempt {
	return []escapeAttempt{
		{"bash: kill", []string{"bash", "-c", "kill -TERM {PID}"}},
		{"python: os.kill", []string{"python3", "-c", "import os, signal; os.kill({PID}, signal.SIGTERM)"}},
		{"perl: kill", []string{"perl", "-e", "kill('TERM', {PID}) or die qq(kill: $!)"}},
		{"bash: kill every process it can", []string{"bash", "-c", "kill -TERM -1"}},
	}
}

// hostVictim starts a process of the host for the signal attempts.
func hostVictim(t *testing.T) *exec.Cmd {
	t.Helper()
	v := exec.Command("sleep", "1000")
	if err := v.Start(); err != nil {
		t.Fatal(err)
	}
	return v
}

// signalled kills v and reports whether something else's signal got there
// first: a fatal signal decides the exit status when it is sent, so the
// answer does not depend on timing.
func signalled(t *testing.T, v *exec.Cmd) bool {
	t.Helper()
	v.Process.Kill()
	err := v.Wait()
	var ee *exec.ExitError
	if !errors.As(err, &ee) {
		t.Fatalf("victim: %v", err)
	}
	ws := ee.Sys().(syscall.WaitStatus)
	return !ws.Signaled() || ws.Signal() != syscall.SIGKILL
}

// runEscapes runs every signal, Unix socket and terminal attempt under s,
// all in one confined start (each start costs namespaces, mounts and an
// exec of the launcher), each against host state of its own — its own
// process to signal, sockets and terminal — so that each is judged alone.
func runEscapes(t *testing.T, s Spec, sys *syscall.SysProcAttr) {
	type target struct {
		v     *exec.Cmd
		h     *hostSockets
		slave int
	}
	attempts := append(append(signalAttempts(), unixAttempts()...), ttyAttempts()...)
	targets := make([]target, len(attempts))
	var argvs [][]string
	for i, a := range attempts {
		h := listenHost(t, i)
		pty, slave := openPty(t)
		targets[i] = target{h: h, slave: slave}
		argv := h.expand(a.argv, pty)
		if i < len(signalAttempts()) {
			targets[i].v = hostVictim(t)
			for j := range argv {
				argv[j] = strings.ReplaceAll(argv[j], "{PID}", fmt.Sprint(targets[i].v.Process.Pid))
			}
		}
		argvs = append(argvs, argv)
	}
	outputs := runBatch(t, s, sys, argvs)
	for i, a := range attempts {
		t.Run(a.name, func(t *testing.T) {
			tg, out := targets[i], outputs[i]
			if tg.v != nil && signalled(t, tg.v) {
				t.Errorf("signalled a process of the host\n%s", out)
			}
			if got := tg.h.reached(t); len(got) > 0 {
				t.Errorf("reached the host's %v\n%s", got, out)
			}
			if n := pushed(t, tg.slave); n > 0 {
				t.Errorf("pushed %d bytes into the terminal\n%s", n, out)
			}
		})
	}
}

// batchEnd ends each argv of a batch.
const batchEnd = "--quiver-batch-end--"

// batchScript runs each argv given after it, ended by batchEnd, one after
// another, and prints a header before each and its exit status after. It
// ignores SIGTERM, which an attempt may send to every process it can.
const batchScript = `trap '' TERM; i=0
while [ $# -gt 0 ]; do
	argv=(); while [ "$1" != ` + batchEnd + ` ]; do argv+=("$1"); shift; done; shift
	echo "=== attempt $i"; "${argv[@]}" </dev/null 2>&1; echo "=== exit status $?"; i=$((i+1))
done`

// runBatch runs argvs under s in one confined bash (see batchScript) and
// returns what each printed, with its exit status.
func runBatch(t *testing.T, s Spec, sys *syscall.SysProcAttr, argvs [][]string) []string {
	t.Helper()
	args := []string{"bash", "-c", batchScript, "batch"}
	for _, argv := range argvs {
		args = append(append(args, argv...), batchEnd)
	}
	out, err := runConfinedWith(t, s, sys, args...)
	parts := strings.Split(out, "=== attempt ")
	if err != nil || len(parts) != len(argvs)+1 {
		t.Fatalf("the batch did not run every attempt (%v, %d of %d):\n%s", err, len(parts)-1, len(argvs), out)
	}
	return parts[1:]
}

// TestWhatTheFilterLeaves: what programs need keeps working: a stream
// socketpair (Python's multiprocessing, libuv's pipes), IP sockets on the
// private loopback.
func TestWhatTheFilterLeaves(t *testing.T) {
	ws := t.TempDir()
	for _, a := range []escapeAttempt{
		{"stream socketpair", []string{"python3", "-c", `import socket
a, b = socket.socketpair(); a.sendall(b"ok"); assert b.recv(2) == b"ok"
c, d = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET); c.send(b"ok"); assert d.recv(2) == b"ok"`}},
		{"loopback server", []string{"python3", "-c", `import socket
l = socket.socket(); l.bind(("127.0.0.1", 0)); l.listen(); c = socket.create_connection(l.getsockname()); s, _ = l.accept()
s.sendall(b"ok"); assert c.recv(2) == b"ok"`}},
	} {
		t.Run(a.name, func(t *testing.T) {
			if out, err := runConfined(t, Spec{Workspace: ws}, a.argv...); err != nil {
				t.Errorf("%v\n%s", err, out)
			}
		})
	}
}

// TestRefusedCallsFailWithEPERM: each rule answers EPERM, as Codex's do,
// TIOCLINUX included (which a pseudo-terminal would otherwise answer with
// ENOTTY or EINVAL, so only the filter explains an EPERM).
func TestRefusedCallsFailWithEPERM(t *testing.T) {
	ws := t.TempDir()
	pty, _ := openPty(t)
	code := fmt.Sprintf(`import ctypes, errno, fcntl, os, sys
libc = ctypes.CDLL(None, use_errno=True)
def refused(what, r):
    if r != -1 or ctypes.get_errno() != errno.EPERM:
        sys.exit("%%s: got %%d, errno %%d" %% (what, r, ctypes.get_errno()))
refused("TIOCLINUX", libc.ioctl(os.open("%s", os.O_RDONLY), 0x541c, ctypes.c_char_p(b"\x06")))
refused("io_uring_setup", libc.syscall(425, 1, ctypes.c_char_p(b"\0" * 120)))
refused("keyctl", libc.syscall(%d, 0, -3, 0))
refused("ptrace(PTRACE_TRACEME)", libc.syscall(%d, 0, 0, 0, 0))
refused("socket(AF_VSOCK)", libc.socket(40, 1, 0))
refused("socket(AF_PACKET)", libc.socket(17, 3, 0))
`, pty, keyctlNum(), ptraceNum())
	for name, s := range profiles(ws) {
		t.Run(name, func(t *testing.T) {
			if out, err := runConfined(t, s, "python3", "-c", code); err != nil {
				t.Errorf("%v\n%s", err, out)
			}
		})
	}
}

func keyctlNum() int {
	if runtime.GOARCH == "arm64" {
		return 219
	}
	return 250
}

func ptraceNum() int {
	if runtime.GOARCH == "arm64" {
		return 117
	}
	return 101
}

// TestOtherABIsAreRefused: on amd64 a system call through another ABI is
// refused whatever it is, since the rules name native numbers only: an
// i386 one (int 0x80) and an x32 one are both answered ENOSYS.
func TestOtherABIsAreRefused(t *testing.T) {
	if runtime.GOARCH != "amd64" {
		t.Skip("int 0x80 and x32 are amd64 spellings")
	}
	x32 := `import ctypes, sys
libc = ctypes.CDLL(None, use_errno=True)
r = libc.syscall(0x40000000 + 41, 1, 1, 0)
if r != -1 or ctypes.get_errno() != 38: sys.exit("x32 socket: %d errno %d" % (r, ctypes.get_errno()))`
	if out, err := runConfined(t, Spec{Workspace: t.TempDir()}, "python3", "-c", x32); err != nil {
		t.Errorf("x32: %v\n%s", err, out)
	}
	// getpid (i386 number 20) through int 0x80: unfiltered it returns the
	// pid; filtered, -ENOSYS.
	i386 := `import ctypes, mmap, sys
buf = mmap.mmap(-1, 4096, prot=mmap.PROT_READ | mmap.PROT_WRITE | mmap.PROT_EXEC)
buf.write(bytes([0xb8, 20, 0, 0, 0, 0xcd, 0x80, 0xc3]))  # mov eax, 20; int 0x80; ret
r = ctypes.CFUNCTYPE(ctypes.c_int)(ctypes.addressof(ctypes.c_char.from_buffer(buf)))()
if r != -38: sys.exit("int 0x80 getpid returned %d, want -ENOSYS" % r)`
	if err := exec.Command("python3", "-c", strings.Replace(i386, "r != -38", "r <= 0", 1)).Run(); err != nil {
		t.Skipf("this kernel runs no i386 system call even unconfined (%v): ia32 emulation is off", err)
	}
	if out, err := runConfined(t, Spec{Workspace: t.TempDir()}, "python3", "-c", i386); err != nil {
		t.Errorf("int 0x80: %v\n%s", err, out)
	}
}

// TestFilterProgram: the assembled program guards the architecture first,
// and each profile shape assembles.
func TestFilterProgram(t *testing.T) {
	for _, s := range []Spec{{}, {UnixSockets: []string{"/run/x.sock"}}, {UnixSockets: []string{AnyUnixSocket}}} {
		prog, err := s.seccompProgram()
		if err != nil {
			t.Fatal(err)
		}
		if prog[0].K != 4 || prog[2].K != uint32(unix.SECCOMP_RET_ERRNO)|uint32(syscall.ENOSYS) {
			t.Errorf("the program does not open with the architecture guard: %+v", prog[:3])
		}
	}
}

// TestOlderKernels: with Landlock capped at ABI 4 and 5 (no ioctl right,
// no scopes), a start without a PID namespace is refused, and one with it
// holds every line: signals, TIOCSTI, Unix sockets named and abstract
// (network on, so that no network namespace fences the abstract ones),
// the protected paths.
func TestOlderKernels(t *testing.T) {
	if ABI() < 6 {
		t.Skipf("this kernel has Landlock ABI %d; the caps simulate 4 and 5 below a 6", ABI())
	}
	for _, abi := range []int{4, 5} {
		t.Run(fmt.Sprintf("ABI %d", abi), func(t *testing.T) {
			ws := t.TempDir()
			s := Spec{Workspace: ws, Network: true, LandlockABI: abi}
			var me *MissingError
			cmd := &exec.Cmd{}
			if err := Command(s, cmd); cmd.SysProcAttr.Cloneflags&syscall.CLONE_NEWPID == 0 && !errors.As(err, &me) {
				t.Errorf("no PID namespace, no signal scope, and the start was not refused: %v", err)
			}
			pidns := &syscall.SysProcAttr{Cloneflags: syscall.CLONE_NEWPID}
			runEscapes(t, s, pidns)
			runProtected(t, s, pidns)
		})
	}
}

// runProtected runs the protected-path lines under s.
func runProtected(t *testing.T, s Spec, sys *syscall.SysProcAttr) {
	for _, f := range []string{"quiver.toml", ".git/config"} {
		mkdirs(t, filepath.Dir(filepath.Join(s.Workspace, f)))
		if err := os.WriteFile(filepath.Join(s.Workspace, f), []byte("kept\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	s.Protected = []string{filepath.Join(s.Workspace, "quiver.toml"), filepath.Join(s.Workspace, ".git/config")}
	for _, line := range []string{"echo x > quiver.toml", "rm -f quiver.toml; echo x > quiver.toml",
		"mv .git .g; mkdir .git; echo x > .git/config", "echo x > .git/config", "chmod 777 quiver.toml"} {
		t.Run("protected: "+line, func(t *testing.T) {
			out, err := runConfinedWith(t, s, sys, "bash", "-c", line)
			for _, f := range s.Protected {
				fi, serr := os.Stat(f)
				b, rerr := os.ReadFile(f)
				if serr != nil || rerr != nil || string(b) != "kept\n" || fi.Mode().Perm() != 0o644 {
					t.Errorf("%s changed (exit %v)\n%s", f, err, out)
				}
			}
		})
	}
}

// TestEnforceable: what each Landlock ABI needs beside it.
func TestEnforceable(t *testing.T) {
	if ABI() < ScopeABI {
		t.Skipf("this kernel has Landlock ABI %d; the table caps a 6 or later", ABI())
	}
	for _, tc := range []struct {
		abi     int
		pidns   bool
		sockets []string
		ok      bool
	}{
		{4, false, nil, false},
		{5, false, nil, false},
		{5, true, nil, true},
		{6, false, nil, true},
		{6, true, []string{"/run/ssh.sock"}, false},
		{6, true, []string{AnyUnixSocket}, true},
		{3, true, nil, true},
	} {
		sys := &syscall.SysProcAttr{}
		if tc.pidns {
			sys.Cloneflags = syscall.CLONE_NEWPID
		}
		err := Spec{LandlockABI: tc.abi, UnixSockets: tc.sockets}.enforceable(sys)
		if (err == nil) != tc.ok {
			t.Errorf("ABI %d, PID namespace %v, unix_sockets %v: %v, want ok=%v", tc.abi, tc.pidns, tc.sockets, err, tc.ok)
		}
	}
}
