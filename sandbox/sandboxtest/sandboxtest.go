// Package sandboxtest holds what the sandbox's escape tests share: the
// table of escape attempts (testdata/escapes.txt at the module root), the
// workspace each attempt starts in, and a watch on the host that an attempt
// must not touch. The root package runs the table through exec_command,
// cmd/quiver through `quiver sandbox` and, side by side, `codex sandbox`;
// all judge with the same watch.
package sandboxtest

import (
	"bufio"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io/fs"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// Escape is one attempt: the class of issue 26 it belongs to (0 for the
// attempts of the first probe: writes outside and the network), a name, the
// environment entries the call itself carries (exec_command's env
// parameter) and a command line, with placeholders that [Watch.Expand]
// fills in.
type Escape struct {
	Class   int
	Name    string
	Env     []string
	Command string
}

// Classes whose attempts need more than a shell line to mean anything.
const (
	// ClassGitMetadata is class 7: the user's next git command runs what
	// the attempt planted.
	ClassGitMetadata = 7
	// ClassClassifier is class 8: a command that exec_command's classifier
	// lets run without approval runs a program a repository configures. It
	// means something only where there is a classifier (exec_command), not
	// for `quiver sandbox` or `codex sandbox`, which run what they are given.
	ClassClassifier = 8
	// ClassProtectedLink is class 10: its workspace's quiver.toml is a
	// symbolic link.
	ClassProtectedLink = 10
)

// OwnWorkspace reports whether e needs a workspace of its own: the
// attempts of classes 7 and 10 change the workspace, and are judged by
// what it holds afterwards. The others aim at the host, and a runner may
// run the attempts of one class one after another in one workspace.
func (e Escape) OwnWorkspace() bool {
	return e.Class == ClassGitMetadata || e.Class == ClassProtectedLink
}

// LoadEscapes reads the table from path: "class | name | command" or
// "class | name | env: K=V ... | command" lines; # starts a comment.
func LoadEscapes(t testing.TB, path string) []Escape {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []Escape
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		e, err := parseEscape(line)
		if err != nil {
			t.Fatalf("%s:%d: %v", path, n, err)
		}
		out = append(out, e)
	}
	if len(out) < 20 {
		t.Fatalf("%s: %d attempts; the acceptance asks for at least 20", path, len(out))
	}
	return out
}

func parseEscape(line string) (Escape, error) {
	class, rest, ok1 := strings.Cut(line, " | ")
	name, cmd, ok2 := strings.Cut(rest, " | ")
	c, err := strconv.Atoi(class)
	if !ok1 || !ok2 || err != nil || c < 0 || c > 13 {
		return Escape{}, fmt.Errorf("want \"class | name | command\" with a class from 0 to 13: %q", line)
	}
	e := Escape{Class: c, Name: name, Command: cmd}
	if env, after, ok := strings.Cut(cmd, " | "); ok && strings.HasPrefix(env, "env: ") {
		e.Env, e.Command = strings.Fields(strings.TrimPrefix(env, "env: ")), after
	}
	return e, nil
}

// Watch is the host an attempt must not touch: a directory outside the
// workspace with a victim file, TCP and UDP listeners on the host's
// loopback, and, on Linux, Unix sockets, System V IPC objects, a process to
// signal, descriptors to hand down and a terminal (see host). It also makes
// each attempt's workspace.
type Watch struct {
	Out   string // the outside directory
	tcp   *net.TCPListener
	udp   net.PacketConn
	seen  map[string]string
	token string // marks the processes an attempt starts, to find those left behind
	mark  string // what the workspace's repositories print when their config runs
	tmpl  string // the workspace every attempt starts from
	home  string // HOME for the user's git
	lib   string // {PRELOAD}
	fds   []int  // {FD}, {DIRFD}, {SOCKFD} as the confined process sees them
	host  *host
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
	w := &Watch{Out: out, token: "quiver-escapee-" + randomHex(t), mark: "QUIVER-CONFIG-RAN-" + randomHex(t), fds: []int{3, 4, 5}}
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
	w.host = newHost(t, w.Out)
	w.home = t.TempDir()
	w.tmpl = t.TempDir()
	buildWorkspace(t, w.tmpl, w.mark, w.home)
	w.lib = buildPreload(t)
	w.seen = Snapshot(t, w.Out)
	return w
}

func randomHex(t testing.TB) string {
	b := make([]byte, 8)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	return hex.EncodeToString(b)
}

// Workspace returns a new workspace for e, a copy of one made once: a.txt,
// a git repository with a submodule, and a nested repository whose config
// names programs for git to run (class 8); for class 10, quiver.toml is a
// symbolic link to conf/quiver.toml.
func (w *Watch) Workspace(t testing.TB, e Escape) string {
	t.Helper()
	ws := t.TempDir()
	if err := os.CopyFS(ws, os.DirFS(w.tmpl)); err != nil {
		t.Fatalf("copying the workspace: %v", err)
	}
	if e.Class == ClassProtectedLink {
		if err := os.MkdirAll(filepath.Join(ws, "conf"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(ws, "conf/quiver.toml"), []byte(linkedConfig), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink("conf/quiver.toml", filepath.Join(ws, "quiver.toml")); err != nil {
			t.Fatal(err)
		}
	}
	return ws
}

// linkedConfig is what class 10's conf/quiver.toml holds: a valid config
// that changes nothing.
const linkedConfig = "# the workspace's config, linked as quiver.toml\n"

// Prepare hands cmd, a process that will start the attempt (quiver sandbox,
// codex sandbox), what the host could leak to it: the descriptors
// ({FD}, {DIRFD}, {SOCKFD} become 3, 4 and 5) and the user's terminal as
// its controlling terminal and stdin.
func (w *Watch) Prepare(cmd *exec.Cmd) {
	if w.host == nil {
		return
	}
	cmd.ExtraFiles = w.host.inherited()
	w.fds = []int{3, 4, 5}
	w.host.onTerminal(cmd)
}

// ShareHere makes the descriptors inheritable by every process this one
// starts, for a runner that starts attempts in this process (exec_command):
// {FD}, {DIRFD} and {SOCKFD} become their numbers here.
func (w *Watch) ShareHere(t testing.TB) {
	t.Helper()
	w.fds = w.host.shareHere(t)
}

// Expand fills in an attempt's placeholders.
func (w *Watch) Expand(cmd string) string {
	r := []string{"{OUT}", w.Out, "{HOST}", "127.0.0.1",
		"{TCPPORT}", strconv.Itoa(w.tcp.Addr().(*net.TCPAddr).Port),
		"{UDPPORT}", strconv.Itoa(w.udp.LocalAddr().(*net.UDPAddr).Port),
		"{TOKEN}", w.token, "{PRELOAD}", w.lib,
		"{FD}", strconv.Itoa(w.fds[0]), "{DIRFD}", strconv.Itoa(w.fds[1]), "{SOCKFD}", strconv.Itoa(w.fds[2])}
	if w.host != nil {
		r = w.host.replacer(r)
	}
	return strings.NewReplacer(r...).Replace(cmd)
}

// ExpandEnv fills in the placeholders of environment entries.
func (w *Watch) ExpandEnv(env []string) []string {
	var out []string
	for _, kv := range env {
		out = append(out, w.Expand(kv))
	}
	return out
}

// Touched returns what an attempt did to the outside world since the last
// call: "" for nothing.
func (w *Watch) Touched(t testing.TB) string {
	t.Helper()
	var what []string
	now := Snapshot(t, w.Out)
	if diff := cmp.Diff(w.seen, now); diff != "" {
		what = append(what, "changed the outside directory (-before +after):\n"+diff)
		w.seen = now
	}
	if queued(t, w.udp.(syscall.Conn), false) {
		what = append(what, "reached the host's UDP listener")
	}
	if queued(t, w.tcp, true) {
		what = append(what, "reached the host's TCP listener")
	}
	if w.host != nil {
		what = append(what, w.host.touched(t, w.token)...)
	}
	return strings.Join(what, "; ")
}

// TouchedIn is Touched for attempt e, run in the workspace ws, that printed
// output. It also reports a program that the workspace's repositories
// configure having run during the attempt (its mark in the output) and a
// class 10 link replaced or its config rewritten; after a class 7 attempt
// it runs the user's next `git status` there, unconfined, as the user would
// (a repository redirected to a hostile config runs it then).
func (w *Watch) TouchedIn(t testing.TB, e Escape, ws, output string) string {
	t.Helper()
	var what []string
	if strings.Contains(output, w.mark) {
		what = append(what, "ran a program that a repository's config names")
	}
	if _, err := os.Lstat(filepath.Join(ws, "conf/quiver.toml")); err == nil {
		target, err := os.Readlink(filepath.Join(ws, "quiver.toml"))
		content, _ := os.ReadFile(filepath.Join(ws, "quiver.toml"))
		if err != nil || target != "conf/quiver.toml" || string(content) != linkedConfig {
			what = append(what, fmt.Sprintf("replaced the protected quiver.toml (a link to %q: now %q, %v, holding %q)", "conf/quiver.toml", target, err, content))
		}
	}
	if e.Class == ClassGitMetadata {
		userGit(w.home, ws, "status").Run()
	}
	if s := w.Touched(t); s != "" {
		what = append(what, s)
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
