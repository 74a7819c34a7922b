package sandbox_test

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/quiverkit/quiver/sandbox"
	"github.com/quiverkit/quiver/sandbox/netproxy"
)

// testResolver gives the names of these tests the address 127.0.0.1, as
// the proxy's own resolver: no real domain is asked.
func testResolver(_ context.Context, host string) ([]netip.Addr, error) {
	if strings.HasSuffix(host, ".test") {
		return []netip.Addr{netip.MustParseAddr("127.0.0.1")}, nil
	}
	return nil, fmt.Errorf("%s: not a name of this test", host)
}

// TestProxyFromConfinedProcess: a confined curl reaches a listed name
// over HTTP and through CONNECT, is refused an unlisted one both ways,
// and cannot open a TCP connection to the host's 127.0.0.1 around the
// proxy; the profile's recorder hears of every request.
func TestProxyFromConfinedProcess(t *testing.T) {
	var mu sync.Mutex
	var served []string
	origin := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		served = append(served, r.Host+r.URL.Path)
		mu.Unlock()
		fmt.Fprintf(w, "hello %s", r.Host)
	}))
	defer origin.Close()
	_, port, _ := net.SplitHostPort(origin.Listener.Addr().String())

	cfg := sandbox.Config{Network: sandbox.Network{Hosts: []string{"allowed.test"}}, ProxyResolver: testResolver}
	p, ws, _ := profile(t, sandbox.WorkspaceWrite, cfg)
	var contacts netproxy.Tally
	p = p.RecordingContacts(&contacts)
	if !p.Proxied() {
		t.Fatal("a list of names does not proxy")
	}
	run := func(script string) (string, int) {
		t.Helper()
		var out bytes.Buffer
		proc := sandbox.Command(context.Background(), p, "sh", "-c", script)
		proc.Dir, proc.Stdout, proc.Stderr = ws, &out, &out
		err := proc.Run()
		if err != nil && proc.ExitStatus() == 0 {
			t.Fatalf("%s: %v", script, err)
		}
		return out.String(), proc.ExitStatus()
	}
	url := func(host, path string) string { return "http://" + host + ":" + port + path }
	for _, tt := range []struct {
		name, script, want string
		status             int
	}{
		{"HTTP to a listed name", "curl -sS " + url("allowed.test", "/http"), "hello allowed.test:" + port, 0},
		{"CONNECT to a listed name", "curl -sS -p " + url("allowed.test", "/tunnel"), "hello allowed.test:" + port, 0},
		{"HTTP to another name", "curl -sS -w ' %{http_code}' " + url("refused.test", "/no"),
			"quiver: refused.test is not listed in [sandbox] network\n 403", 0},
		{"CONNECT to another name", "curl -sS -p " + url("refused.test", "/no") + " 2>&1 | grep -o 'CONNECT tunnel failed, response 403'",
			"CONNECT tunnel failed, response 403\n", 0},
		{"raw TCP to the host's loopback", "python3 -c 'import socket; socket.create_connection((\"127.0.0.1\", " + port + "), timeout=30)' 2>&1 | tail -1",
			"ConnectionRefusedError: [Errno 111] Connection refused\n", 0},
		{"CONNECT to the host's loopback by address", "curl -sS --noproxy '' -p " + url("127.0.0.1", "/no") + " 2>&1 | grep -o 'CONNECT tunnel failed, response 403'",
			"CONNECT tunnel failed, response 403\n", 0},
		{"the bridge is not among the program's descriptors", "python3 -c 'import os; print(sorted(os.listdir(\"/proc/self/fd\")))'", "['0', '1', '2', '3']\n", 0},
		{"nor can it take the launcher's (pidfd_getfd, /proc/1/fd)", "python3 -c '" + takeLaunchersFDs + "'", "taken [] EPERM; readlink refused\n", 0},
		{"no Unix socket of its own", "python3 -c 'import socket; socket.socket(socket.AF_UNIX)' 2>&1 | tail -1", "PermissionError: [Errno 1] Operation not permitted\n", 0},
		{"the proxy variables are set", "env | grep -ci '^\\(http\\|https\\|all\\)_proxy=http://127.0.0.1:[0-9]*$'", "6\n", 0},
	} {
		if got, status := run(tt.script); got != tt.want || status != tt.status {
			t.Errorf("%s: %q (exit %d), want %q (exit %d)", tt.name, got, status, tt.want, tt.status)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if diff := cmp.Diff([]string{"allowed.test:" + port + "/http", "allowed.test:" + port + "/tunnel"}, served); diff != "" {
		t.Errorf("the origin served (-want +got):\n%s", diff)
	}
	want := []netproxy.Count{
		{Contact: netproxy.Contact{Host: "allowed.test", Port: port, Method: "GET", Allowed: true}, N: 1},
		{Contact: netproxy.Contact{Host: "allowed.test", Port: port, Method: "CONNECT", Allowed: true}, N: 1},
		{Contact: netproxy.Contact{Host: "refused.test", Port: port, Method: "GET", Refused: "refused.test is not listed in [sandbox] network"}, N: 1},
		{Contact: netproxy.Contact{Host: "refused.test", Port: port, Method: "CONNECT", Refused: "refused.test is not listed in [sandbox] network"}, N: 1},
		{Contact: netproxy.Contact{Host: "127.0.0.1", Port: port, Method: "CONNECT", Refused: "127.0.0.1 is not listed in [sandbox] network"}, N: 1},
	}
	got, _ := contacts.List()
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("contacts (-want +got):\n%s", diff)
	}
}

// takeLaunchersFDs tries to take each descriptor of the launcher (the
// namespace's init, which holds the bridge) with pidfd_getfd(2), and to
// read its descriptor links in /proc.
const takeLaunchersFDs = `
import ctypes, errno, os
libc = ctypes.CDLL(None, use_errno=True)
pfd = os.pidfd_open(1)
taken = [fd for fd in range(64) if libc.syscall(438, pfd, fd, 0) >= 0]
err = errno.errorcode[ctypes.get_errno()]
try:
    os.readlink("/proc/1/fd/3")
    link = "readlink allowed"
except PermissionError:
    link = "readlink refused"
print("taken", taken, err + ";", link)
`

// TestProxyUnderAMemoryLimit: a program started through the launcher's
// second stage (a memory limit) gets the proxy all the same.
func TestProxyUnderAMemoryLimit(t *testing.T) {
	origin := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "ok") }))
	defer origin.Close()
	_, port, _ := net.SplitHostPort(origin.Listener.Addr().String())
	cfg := sandbox.Config{Network: sandbox.Network{Hosts: []string{"allowed.test"}}, ProxyResolver: testResolver,
		Limits: sandbox.Limits{MemoryMiB: 1024}}
	p, ws, _ := profile(t, sandbox.WorkspaceWrite, cfg)
	var out bytes.Buffer
	proc := sandbox.Command(context.Background(), p, "curl", "-sS", "http://allowed.test:"+port+"/")
	proc.Dir, proc.Stdout, proc.Stderr = ws, &out, &out
	if err := proc.Run(); err != nil || out.String() != "ok" {
		t.Errorf("curl under a memory limit: %q, %v", out.String(), err)
	}
}
