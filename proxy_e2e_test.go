package quiver_test

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"os/exec"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/quiverkit/quiver"
	"github.com/quiverkit/quiver/audit"
	"github.com/quiverkit/quiver/sandbox"
	"github.com/quiverkit/quiver/tools"
)

// TestNetworkAllowlistThroughExecCommand is issue 28's proxy acceptance,
// through a real confined exec_command: with [sandbox] network naming
// allowed.test and *.wild.test (and 127.0.0.1, the operator's word that
// the test server's loopback address may be dialled for a wildcard's
// names), which the proxy's own resolver puts on 127.0.0.1, curl reaches
// the listed names over HTTP and CONNECT and is refused the others both
// ways; raw TCP to the host's loopback is refused; the wildcard covers
// a.wild.test but not wild.test nor a.wild.test.evil.test; and the call's
// audit record lists every host asked for, allowed and refused.
func TestNetworkAllowlistThroughExecCommand(t *testing.T) {
	for _, prog := range []string{"curl", "python3"} {
		if _, err := exec.LookPath(prog); err != nil {
			t.Fatalf("%s is needed (scripts/test installs it): %v", prog, err)
		}
	}
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
	resolve := func(_ context.Context, host string) ([]netip.Addr, error) {
		if strings.HasSuffix(host, ".test") {
			return []netip.Addr{netip.MustParseAddr("127.0.0.1")}, nil
		}
		return nil, fmt.Errorf("%s: not a name of this test", host)
	}
	box := sandbox.Config{Network: sandbox.Network{Hosts: []string{"allowed.test", "*.wild.test", "127.0.0.1"}}, ProxyResolver: resolve}
	tk, _, sink := auditedToolkit(t, quiver.WithSandbox(box))

	url := func(host, path string) string { return "http://" + host + ":" + port + path }
	code := "curl -sS -o /dev/null -w '%{http_code}\\n' "
	line := strings.Join([]string{
		"curl -sS " + url("allowed.test", "/http") + "; echo",
		"curl -sS -p " + url("allowed.test", "/tunnel") + "; echo",
		code + url("refused.test", "/no"),
		"curl -sS -p " + url("refused.test", "/no") + " 2>&1 | grep -o 'CONNECT tunnel failed, response 403'",
		"python3 -c 'import socket; socket.create_connection((\"127.0.0.1\", " + port + "), timeout=30)' 2>&1 | tail -1",
		"curl -sS " + url("a.wild.test", "/wild") + "; echo",
		code + url("wild.test", "/no"),
		code + url("a.wild.test.evil.test", "/no"),
	}, "\n")
	res, err := tk.Invoke(context.Background(), "exec_command", map[string]any{"command": line, "timeout_secs": 120})
	if err != nil {
		t.Fatal(err)
	}
	out := res.Content.Output.(*tools.ExecCommandOutput).Output
	want := strings.Join([]string{
		"hello allowed.test:" + port,
		"hello allowed.test:" + port,
		"403",
		"CONNECT tunnel failed, response 403",
		"ConnectionRefusedError: [Errno 111] Connection refused",
		"hello a.wild.test:" + port,
		"403",
		"403",
	}, "\n") + "\n"
	if diff := cmp.Diff(want, out); diff != "" {
		t.Errorf("output (-want +got):\n%s", diff)
	}
	mu.Lock()
	if diff := cmp.Diff([]string{"allowed.test:" + port + "/http", "allowed.test:" + port + "/tunnel", "a.wild.test:" + port + "/wild"}, served); diff != "" {
		t.Errorf("the test server served (-want +got):\n%s", diff)
	}
	mu.Unlock()
	unlisted := func(h string) string { return h + " is not listed in [sandbox] network" }
	wantHosts := []audit.Host{
		{Host: "allowed.test", Port: port, Method: "GET", Allowed: true, Count: 1},
		{Host: "allowed.test", Port: port, Method: "CONNECT", Allowed: true, Count: 1},
		{Host: "refused.test", Port: port, Method: "GET", Refused: unlisted("refused.test"), Count: 1},
		{Host: "refused.test", Port: port, Method: "CONNECT", Refused: unlisted("refused.test"), Count: 1},
		{Host: "a.wild.test", Port: port, Method: "GET", Allowed: true, Count: 1},
		{Host: "wild.test", Port: port, Method: "GET", Refused: unlisted("wild.test"), Count: 1},
		{Host: "a.wild.test.evil.test", Port: port, Method: "GET", Refused: unlisted("a.wild.test.evil.test"), Count: 1},
	}
	if diff := cmp.Diff(wantHosts, lastRecord(t, sink).Hosts); diff != "" {
		t.Errorf("the audit record's hosts (-want +got):\n%s", diff)
	}
}
