package sandbox_test

import (
	"bytes"
	"errors"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/quiverkit/quiver/sandbox"
)

// run runs argv under p in dir and returns its combined output and error.
func run(t *testing.T, p *sandbox.Profile, dir string, argv ...string) (string, error) {
	t.Helper()
	path, err := exec.LookPath(argv[0])
	if err != nil {
		t.Fatalf("%s: %v", argv[0], err)
	}
	cmd := &exec.Cmd{Path: path, Args: argv, Dir: dir}
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := p.Wrap(cmd); err != nil {
		t.Fatalf("Wrap: %v", err)
	}
	err = cmd.Run()
	return out.String(), err
}

func profile(t *testing.T, scope sandbox.WriteScope, cfg sandbox.Config) (*sandbox.Profile, string, string) {
	t.Helper()
	if err := sandbox.Check(); err != nil {
		t.Fatalf("this machine must support the sandbox: %v", err)
	}
	ws, outside := t.TempDir(), t.TempDir()
	if err := os.MkdirAll(filepath.Join(ws, ".git", "hooks"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{".git/config", "quiver.toml", "quorum.toml"} {
		if err := os.WriteFile(filepath.Join(ws, f), []byte("orig\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	p, err := sandbox.New(scope, ws, cfg, sandbox.StandardProtected)
	if err != nil {
		t.Fatal(err)
	}
	return p, ws, outside
}

func TestWorkspaceWrite(t *testing.T) {
	p, ws, outside := profile(t, sandbox.WorkspaceWrite, sandbox.Config{})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	addr := ln.Addr().String()
	udp, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer udp.Close()
	udpAddr := udp.LocalAddr().String()
	before, err := os.Stat(outside)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name   string
		script string
		wantOK bool
	}{
		{"write inside", "echo x > in.txt", true},
		{"write outside", "echo x > " + outside + "/x", false},
		{"write .git/config", "echo x >> .git/config", false},
		{"new hook", "echo x > .git/hooks/pre-commit", false},
		{"rename .git away", "mv .git gone", false},
		{"replace quiver.toml", "echo x > q.new && mv q.new quiver.toml", false},
		{"remove quiver.toml", "rm quiver.toml", false},
		{"append to quorum.toml", "echo x >> quorum.toml", false},
		{"replace quorum.toml", "echo x > q.new && mv q.new quorum.toml", false},
		{"git objects (only an approved git writes .git)", "mkdir -p .git/objects && echo x > .git/objects/o", false},
		{"git commondir", "echo /elsewhere > .git/commondir", false},
		{"tcp to loopback", "exec 3<>/dev/tcp/" + strings.Replace(addr, ":", "/", 1), false},
		{"tmpdir", `echo x > "$TMPDIR/t"`, true},
		{"chmod outside", "chmod 777 " + outside, false},
		{"touch -d outside", "touch -d 2000-01-01 " + outside, false},
		// The namespace has a loopback of its own: the datagram is sent, but
		// never reaches the host's listener (checked below).
		{"udp to the host's loopback", "exec 3<>/dev/udp/" + strings.Replace(udpAddr, ":", "/", 1) + " && echo x >&3", true},
		{"own loopback", "python3 -c 'import socket; s=socket.socket(); s.bind((\"127.0.0.1\",0)); s.listen(); c=socket.create_connection(s.getsockname()); print(\"ok\")'", true},
		{"chmod inside", "chmod 700 in.txt", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q, done, err := p.WithTempDir()
			if err != nil {
				t.Fatal(err)
			}
			defer done()
			out, err := run(t, q, ws, "bash", "-c", tt.script)
			t.Logf("%s -> %v: %s", tt.script, err, out)
			if (err == nil) != tt.wantOK {
				t.Errorf("%s: err %v, want ok %v; output %s", tt.script, err, tt.wantOK, out)
			}
		})
	}
	for _, f := range []string{".git/config", "quiver.toml", "quorum.toml"} {
		b, err := os.ReadFile(filepath.Join(ws, f))
		if err != nil || string(b) != "orig\n" {
			t.Errorf("%s changed: %q %v", f, b, err)
		}
	}
	if entries, _ := os.ReadDir(outside); len(entries) != 0 {
		t.Errorf("outside changed: %v", entries)
	}
	if fi, err := os.Stat(outside); err != nil || fi.Mode() != before.Mode() || !fi.ModTime().Equal(before.ModTime()) {
		t.Errorf("outside's mode or time changed: %v %v, was %v %v", fi.Mode(), fi.ModTime(), before.Mode(), before.ModTime())
	}
	// Anything sent is already queued (loopback delivers at once, and every
	// process has exited): the deadline only bounds an empty read, since Go
	// refuses to read at all once a deadline has passed.
	udp.SetReadDeadline(time.Now().Add(100 * time.Millisecond))
	if n, from, err := udp.ReadFrom(make([]byte, 16)); err == nil {
		t.Errorf("the host's UDP listener received %d bytes from %v", n, from)
	}
	if tl, ok := ln.(*net.TCPListener); ok {
		tl.SetDeadline(time.Now().Add(100 * time.Millisecond))
		if c, err := tl.Accept(); err == nil {
			c.Close()
			t.Error("the host's TCP listener was contacted")
		}
	}
}

// TestReadOnly: the read-only profile writes nothing, not even in the
// workspace, but reads and /dev/null work.
func TestReadOnly(t *testing.T) {
	p, ws, _ := profile(t, sandbox.ReadOnly, sandbox.Config{})
	for _, tt := range []struct {
		script string
		wantOK bool
	}{
		{"cat quiver.toml > /dev/null", true},
		{"echo x > in.txt", false},
		{"mkdir d", false},
		{"chmod 600 quiver.toml", false},
		{"rm quiver.toml", false},
		{"ln -s x l", false},
	} {
		out, err := run(t, p, ws, "bash", "-c", tt.script)
		if (err == nil) != tt.wantOK {
			t.Errorf("%s: err %v, want ok %v; output %s", tt.script, err, tt.wantOK, out)
		}
	}
}

func TestUnavailable(t *testing.T) {
	t.Setenv("QUIVER_SANDBOX_UNSUPPORTED", "Landlock (simulated)")
	p, err := sandbox.Default(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	err = p.Wrap(&exec.Cmd{Path: "/bin/true"})
	var ue *sandbox.UnavailableError
	if !errors.As(err, &ue) || !strings.Contains(err.Error(), "unrestricted") {
		t.Fatalf("Wrap = %v, want an UnavailableError naming the opt-out", err)
	}
}
