package sandboxtest

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"unsafe"

	"golang.org/x/sys/unix"
)

// host is the state of the host that the attempts of classes 2 to 6 aim
// at, beyond the outside directory and the TCP and UDP listeners: Unix
// sockets, System V IPC objects, a process to signal, descriptors a
// confined process could inherit, and a terminal.
type host struct {
	sockDir             string
	sock, asock         net.Listener // named and abstract stream listeners
	dgram               *net.UnixConn
	shmID, shmKey       int
	msgID               int
	victim              *exec.Cmd
	file, dir           *os.File // victim.txt opened for appending, and the outside directory
	pair, pairPeer      *os.File // a connected socket pair: the first is handed down
	ptyMaster, ptySlave *os.File
}

func newHost(t testing.TB, out string) *host {
	t.Helper()
	h := &host{}
	h.listenUnix(t)
	h.makeIPC(t)
	h.startVictim(t)
	h.openInherited(t, out)
	h.openPTY(t)
	return h
}

// listenUnix listens on a named stream socket, a named datagram socket and
// an abstract stream socket, in a short directory of their own (a socket's
// path has a limit of 107 bytes).
func (h *host) listenUnix(t testing.TB) {
	t.Helper()
	dir, err := os.MkdirTemp("", "qesc")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	h.sockDir = dir
	if h.sock, err = net.Listen("unix", filepath.Join(dir, "s")); err != nil {
		t.Fatal(err)
	}
	if h.dgram, err = net.ListenUnixgram("unixgram", &net.UnixAddr{Name: filepath.Join(dir, "d"), Net: "unixgram"}); err != nil {
		t.Fatal(err)
	}
	if h.asock, err = net.Listen("unix", "@"+filepath.Base(dir)+"-abstract"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.sock.Close(); h.dgram.Close(); h.asock.Close() })
}

// makeIPC makes a shared-memory segment (with a key, so that it can be
// named both ways) and a message queue.
func (h *host) makeIPC(t testing.TB) {
	t.Helper()
	var err error
	for h.shmKey = os.Getpid()<<8 | 0x51; ; h.shmKey++ {
		h.shmID, err = unix.SysvShmGet(h.shmKey, 4096, unix.IPC_CREAT|unix.IPC_EXCL|0o600)
		if !errors.Is(err, unix.EEXIST) {
			break
		}
	}
	if err != nil {
		t.Fatalf("shmget: %v", err)
	}
	id, _, e := unix.Syscall(unix.SYS_MSGGET, unix.IPC_PRIVATE, unix.IPC_CREAT|0o600, 0)
	if e != 0 {
		t.Fatalf("msgget: %v", e)
	}
	h.msgID = int(id)
	shmID, msgID := h.shmID, h.msgID
	t.Cleanup(func() {
		unix.SysvShmCtl(shmID, unix.IPC_RMID, nil)
		unix.Syscall(unix.SYS_MSGCTL, uintptr(msgID), unix.IPC_RMID, 0)
	})
}

// startVictim starts a process outside any sandbox that blocks every
// signal it can: a signal sent to it stays pending where /proc shows it,
// so that whether an attempt signalled it is known as soon as the attempt
// has returned. SIGKILL leaves it a zombie (it is not reaped until the
// end), SIGSTOP stopped. Its stdout says when it is ready. A parent-death
// SIGKILL, which no mask blocks, ends it with the test process, so that a
// test that crashes leaves nothing running.
func (h *host) startVictim(t testing.TB) {
	t.Helper()
	cmd := exec.Command("python3", "-c", "import signal, sys, time\n"+
		"signal.pthread_sigmask(signal.SIG_BLOCK, signal.valid_signals())\n"+
		"print('ready', flush=True)\ntime.sleep(100000)")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatalf("the process to signal: %v", err)
	}
	if line, err := bufio.NewReader(stdout).ReadString('\n'); line != "ready\n" {
		cmd.Process.Kill()
		t.Fatalf("the process to signal did not start: %q %v", line, err)
	}
	h.victim = cmd
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
}

// openInherited opens what a confined process must not inherit: the
// outside victim.txt for appending, the outside directory, and one end of a
// connected socket pair.
func (h *host) openInherited(t testing.TB, out string) {
	t.Helper()
	var err error
	if h.file, err = os.OpenFile(filepath.Join(out, "victim.txt"), os.O_WRONLY|os.O_APPEND, 0); err != nil {
		t.Fatal(err)
	}
	if h.dir, err = os.Open(out); err != nil {
		t.Fatal(err)
	}
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	h.pair, h.pairPeer = os.NewFile(uintptr(fds[0]), "pair"), os.NewFile(uintptr(fds[1]), "pair peer")
	t.Cleanup(func() { h.file.Close(); h.dir.Close(); h.pair.Close(); h.pairPeer.Close() })
}

// openPTY opens a pseudo-terminal in raw mode, so that whatever is pushed
// into its input queue is counted there.
func (h *host) openPTY(t testing.TB) {
	t.Helper()
	m, err := os.OpenFile("/dev/ptmx", os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Fatalf("a pseudo-terminal: %v", err)
	}
	if err := unix.IoctlSetPointerInt(int(m.Fd()), unix.TIOCSPTLCK, 0); err != nil {
		t.Fatal(err)
	}
	n, err := unix.IoctlGetInt(int(m.Fd()), unix.TIOCGPTN)
	if err != nil {
		t.Fatal(err)
	}
	s, err := os.OpenFile("/dev/pts/"+strconv.Itoa(n), os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Fatal(err)
	}
	tio, err := unix.IoctlGetTermios(int(s.Fd()), unix.TCGETS)
	if err != nil {
		t.Fatal(err)
	}
	tio.Lflag &^= unix.ICANON | unix.ECHO | unix.ISIG | unix.IEXTEN
	tio.Iflag &^= unix.ICRNL | unix.IXON
	if err := unix.IoctlSetTermios(int(s.Fd()), unix.TCSETS, tio); err != nil {
		t.Fatal(err)
	}
	h.ptyMaster, h.ptySlave = m, s
	t.Cleanup(func() { m.Close(); s.Close() })
}

// inherited are the descriptors to hand down, in the order of their
// placeholders {FD}, {DIRFD}, {SOCKFD}.
func (h *host) inherited() []*os.File { return []*os.File{h.file, h.dir, h.pair} }

// shareHere clears close-on-exec on the descriptors to hand down, so that
// every process this one starts inherits them, as a host process can have
// inherited them without it.
func (h *host) shareHere(t testing.TB) []int {
	t.Helper()
	var fds []int
	for _, f := range h.inherited() {
		if _, err := unix.FcntlInt(f.Fd(), unix.F_SETFD, 0); err != nil {
			t.Fatal(err)
		}
		fds = append(fds, int(f.Fd()))
	}
	return fds
}

// onTerminal makes cmd a session leader whose controlling terminal, and
// stdin, is the pseudo-terminal: the user's terminal, as `quiver sandbox`
// gets it when a user types the command.
func (h *host) onTerminal(cmd *exec.Cmd) {
	cmd.Stdin = h.ptySlave
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Setsid = true
	cmd.SysProcAttr.Setctty = true
	cmd.SysProcAttr.Ctty = 0
}

func (h *host) replacer(r []string) []string {
	return append(r,
		"{SOCK}", h.sock.Addr().String(), "{DSOCK}", h.dgram.LocalAddr().String(),
		"{ASOCK}", strings.TrimPrefix(h.asock.Addr().String(), "@"),
		"{SHMID}", strconv.Itoa(h.shmID), "{SHMKEY}", strconv.Itoa(h.shmKey), "{MSGID}", strconv.Itoa(h.msgID),
		"{PID}", strconv.Itoa(h.victim.Process.Pid))
}

// touched reports what an attempt did to the host, and puts back what it
// changed, so that the next attempt is judged alone.
func (h *host) touched(t testing.TB, token string) []string {
	t.Helper()
	var what []string
	if queued(t, h.sock.(*net.UnixListener), true) {
		what = append(what, "connected to the host's named Unix socket")
	}
	if queued(t, h.asock.(*net.UnixListener), true) {
		what = append(what, "connected to the host's abstract Unix socket")
	}
	if queued(t, h.dgram, false) {
		what = append(what, "sent to the host's Unix datagram socket")
	}
	if queued(t, h.pairPeer, false) {
		what = append(what, "wrote to an inherited socket")
	}
	what = append(what, h.touchedIPC(t)...)
	if s := h.victimState(t); s != "" {
		what = append(what, s)
		h.startVictim(t)
	}
	if n := killMarked(t, token); n > 0 {
		what = append(what, fmt.Sprintf("left %d process(es) running after the call", n))
	}
	if n, err := unix.IoctlGetInt(int(h.ptySlave.Fd()), unix.TIOCINQ); err == nil && n > 0 {
		what = append(what, fmt.Sprintf("pushed %d bytes into the user's terminal", n))
		unix.IoctlSetInt(int(h.ptySlave.Fd()), unix.TCFLSH, unix.TCIFLUSH)
	}
	return what
}

// shmDest is the mode bit of a segment marked for removal (Linux's
// SHM_DEST, which x/sys/unix does not name): it goes once detached.
const shmDest = 0o1000

// msgNoError is msgrcv's MSG_NOERROR: a long message is cut, not refused.
const msgNoError = 0o10000

// touchedIPC reports whether the segment was written or removed and the
// queue sent to or removed; a removed object is made again.
func (h *host) touchedIPC(t testing.TB) []string {
	t.Helper()
	var what []string
	var ds unix.SysvShmDesc
	_, err := unix.SysvShmCtl(h.shmID, unix.IPC_STAT, &ds)
	switch {
	case err != nil || ds.Perm.Mode&shmDest != 0:
		what = append(what, "removed the host's shared-memory segment")
	default:
		mem, err := unix.SysvShmAttach(h.shmID, 0, unix.SHM_RDONLY)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(mem, make([]byte, len(mem))) {
			what = append(what, "wrote the host's shared-memory segment")
		}
		unix.SysvShmDetach(mem)
	}
	buf := make([]byte, 8+64)
	_, _, e := unix.Syscall6(unix.SYS_MSGRCV, uintptr(h.msgID), uintptr(unsafe.Pointer(&buf[0])), 64, 0, unix.IPC_NOWAIT|msgNoError, 0)
	switch e {
	case 0:
		what = append(what, "sent to the host's message queue")
	case unix.ENOMSG:
	default:
		what = append(what, "removed the host's message queue ("+e.Error()+")")
	}
	if len(what) > 0 {
		unix.SysvShmCtl(h.shmID, unix.IPC_RMID, nil)
		unix.Syscall(unix.SYS_MSGCTL, uintptr(h.msgID), unix.IPC_RMID, 0)
		h.makeIPC(t)
	}
	return what
}

// victimState says whether the process to signal was signalled: a signal
// pending (it blocks them all), stopped, or dead. A signalled victim is
// killed and reaped; the caller starts another.
func (h *host) victimState(t testing.TB) string {
	t.Helper()
	pid := h.victim.Process.Pid
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Fatal(err)
	}
	var what string
	for _, line := range strings.Split(string(status), "\n") {
		name, value, _ := strings.Cut(line, ":")
		value = strings.TrimSpace(value)
		switch {
		case name == "State" && !strings.HasPrefix(value, "S") && !strings.HasPrefix(value, "R"):
			what = "signalled a host process (its state: " + value + ")"
		case (name == "SigPnd" || name == "ShdPnd") && strings.Trim(value, "0") != "" && what == "":
			what = "signalled a host process (" + name + " " + value + ")"
		}
	}
	if what != "" {
		h.victim.Process.Kill()
		h.victim.Wait()
	}
	return what
}

// killMarked kills every process whose command line holds token, until none
// is left (one may be forking another), and returns how many it found.
func killMarked(t testing.TB, token string) int {
	t.Helper()
	found := map[int]bool{}
	for {
		pids := marked(token)
		if len(pids) == 0 {
			return len(found)
		}
		for _, pid := range pids {
			syscall.Kill(pid, syscall.SIGKILL)
			found[pid] = true
		}
		if len(found) > 1000 {
			t.Fatalf("processes marked %s keep appearing", token)
		}
	}
}

func marked(token string) []int {
	entries, _ := os.ReadDir("/proc")
	var pids []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		cmdline, err := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		if err != nil || !bytes.Contains(cmdline, []byte(token)) {
			continue
		}
		if stat, err := os.ReadFile("/proc/" + e.Name() + "/stat"); err == nil && bytes.Contains(stat, []byte(") Z ")) {
			continue // already dead, waiting for its parent
		}
		pids = append(pids, pid)
	}
	return pids
}
