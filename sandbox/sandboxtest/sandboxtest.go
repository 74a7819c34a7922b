// Package sandboxtest holds what the sandbox's escape tests share: the
// table of escape attempts (testdata/escapes.txt at the module root), and
// a watch on the outside world that an attempt must not touch. The root
// package runs the table through exec_command, cmd/quiver through
// `quiver sandbox`; both judge with the same watch.
package sandboxtest

import (
	"bufio"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// Escape is one attempt: a name and a bash command line with {OUT},
// {HOST}, {TCPPORT} and {UDPPORT} to be filled in by [Watch.Expand].
type Escape struct{ Name, Command string }

// LoadEscapes reads the table from path ("name | command" lines; # starts
// a comment).
func LoadEscapes(t testing.TB, path string) []Escape {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []Escape
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		name, cmd, ok := strings.Cut(line, " | ")
		if !ok {
			t.Fatalf("%s: bad line %q", path, line)
		}
		out = append(out, Escape{name, cmd})
	}
	if len(out) < 20 {
		t.Fatalf("%s: %d attempts; the acceptance asks for at least 20", path, len(out))
	}
	return out
}

// Watch is the outside world an attempt must not touch: a directory with a
// victim file, and TCP and UDP listeners on the host's loopback.
type Watch struct {
	Out  string // the outside directory
	tcp  *net.TCPListener
	udp  net.PacketConn
	seen map[string]string
}

// NewWatch sets up the outside world; it is torn down with t.
func NewWatch(t testing.TB) *Watch {
	t.Helper()
	return NewWatchIn(t, t.TempDir())
}

// NewWatchIn is NewWatch with the outside directory out, which must be
// empty (a sandbox that lets every process write /tmp, as Codex's
// workspace-write does, is compared with one outside /tmp).
func NewWatchIn(t testing.TB, out string) *Watch {
	t.Helper()
	w := &Watch{Out: out}
	if err := os.WriteFile(filepath.Join(w.Out, "victim.txt"), []byte("victim\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	w.tcp = ln.(*net.TCPListener)
	if w.udp, err = net.ListenPacket("udp", "127.0.0.1:0"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.tcp.Close(); w.udp.Close() })
	w.seen = Snapshot(t, w.Out)
	return w
}

// Expand fills in an attempt's placeholders.
func (w *Watch) Expand(cmd string) string {
	return strings.NewReplacer("{OUT}", w.Out, "{HOST}", "127.0.0.1",
		"{TCPPORT}", strconv.Itoa(w.tcp.Addr().(*net.TCPAddr).Port),
		"{UDPPORT}", strconv.Itoa(w.udp.LocalAddr().(*net.UDPAddr).Port)).Replace(cmd)
}

// Touched returns what an attempt did to the outside world since the last
// call: "" for nothing. What a process sent is queued by the time it has
// exited; the short deadlines only bound an empty read (Go will not read
// at all once a deadline has passed).
func (w *Watch) Touched(t testing.TB) string {
	t.Helper()
	var what []string
	now := Snapshot(t, w.Out)
	if diff := cmp.Diff(w.seen, now); diff != "" {
		what = append(what, "changed the outside directory (-before +after):\n"+diff)
		w.seen = now
	}
	w.udp.SetReadDeadline(time.Now().Add(50 * time.Millisecond))
	if _, _, err := w.udp.ReadFrom(make([]byte, 64)); err == nil {
		what = append(what, "reached the host's UDP listener")
	}
	w.tcp.SetDeadline(time.Now().Add(50 * time.Millisecond))
	if c, err := w.tcp.Accept(); err == nil {
		c.Close()
		what = append(what, "reached the host's TCP listener")
	}
	return strings.Join(what, "; ")
}

// Snapshot is every entry of the tree under dir: a file's mode, time and
// content, a directory's mode and time, a link's target. Two equal
// snapshots prove nothing changed.
func Snapshot(t testing.TB, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		fi, err := d.Info()
		if err != nil {
			return err
		}
		switch {
		case fi.Mode()&fs.ModeSymlink != 0:
			target, err := os.Readlink(p)
			out[rel] = "-> " + target
			return err
		case fi.Mode().IsRegular():
			b, err := os.ReadFile(p)
			out[rel] = fi.Mode().String() + " " + fi.ModTime().String() + " " + string(b)
			return err
		}
		out[rel] = fi.Mode().String() + " " + fi.ModTime().String()
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// HostPID returns the host's pid of the process that calls itself pid (its
// $$) and works in dir. A confined process runs in a PID namespace of its
// own, where its pid means nothing to the host; an unconfined one's is the
// host's already. The process must be running.
func HostPID(t testing.TB, pid int, dir string) int {
	t.Helper()
	if real, err := filepath.EvalSymlinks(dir); err == nil {
		dir = real
	}
	entries, err := os.ReadDir("/proc")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		host, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		status, _ := os.ReadFile("/proc/" + e.Name() + "/status")
		for line := range strings.Lines(string(status)) {
			ids, ok := strings.CutPrefix(line, "NSpid:")
			if !ok {
				continue
			}
			f := strings.Fields(ids)
			if len(f) > 0 && f[len(f)-1] == strconv.Itoa(pid) {
				if cwd, _ := os.Readlink("/proc/" + e.Name() + "/cwd"); cwd == dir {
					return host
				}
			}
		}
	}
	t.Fatalf("no running process calls itself %d in %s", pid, dir)
	return 0
}
