package quiver_test

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/quiverkit/quiver"
	"github.com/quiverkit/quiver/audit"
	"github.com/quiverkit/quiver/sandbox"
	"github.com/quiverkit/quiver/tool"
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

// TestHostsAfterTheCallReturned: the hosts a session's or a background
// job's processes ask the proxy for after exec_command has returned go
// into the audit record of the call that next observes them (write_stdin,
// exec_output), the session's end included, once each; exec_command's own
// record has none of them.
func TestHostsAfterTheCallReturned(t *testing.T) {
	if _, err := exec.LookPath("curl"); err != nil {
		t.Fatalf("curl is needed (scripts/test installs it): %v", err)
	}
	origin := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
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
	box := sandbox.Config{Network: sandbox.Network{Hosts: []string{"allowed.test"}}, ProxyResolver: resolve}
	curls := "curl -sS http://allowed.test:" + port + "/; echo; curl -sS -o /dev/null -w '%{http_code}\\n' http://refused.test:" + port + "/"
	want := []audit.Host{
		{Host: "allowed.test", Port: port, Method: "GET", Allowed: true, Count: 1},
		{Host: "refused.test", Port: port, Method: "GET", Refused: "refused.test is not listed in [sandbox] network", Count: 1},
	}
	ctx := tool.WithSession(context.Background(), "hosts")
	t.Run("session", func(t *testing.T) {
		tk, _, sink := auditedToolkit(t, quiver.WithSandbox(box))
		start, err := quiver.Call(ctx, tk, tools.ExecCommand, tools.ExecCommandInput{Argv: []string{"sh"}, YieldTimeMS: new(10)})
		if err != nil || start.SessionID == "" {
			t.Fatalf("starting a session: %+v, %v", start, err)
		}
		if r := lastRecord(t, sink); r.Tool != "exec_command" || len(r.Hosts) != 0 {
			t.Errorf("exec_command's record: %+v", r)
		}
		// Read until the marker: each write_stdin's record holds what was
		// asked for since the last read, and the proxy counts a request
		// before it answers, so the read that shows the marker has the last.
		var got []audit.Host
		var seen strings.Builder
		chars := curls + "; echo end-of-curls\n"
		for deadline := time.Now().Add(time.Minute); !strings.Contains(seen.String(), "end-of-curls"); chars = "" {
			if time.Now().After(deadline) { // a hang guard
				t.Fatalf("no marker within a minute: %q", seen.String())
			}
			out, err := quiver.Call(ctx, tk, tools.WriteStdin, tools.WriteStdinInput{SessionID: start.SessionID, Chars: chars, YieldTimeMS: new(200)})
			if err != nil {
				t.Fatal(err)
			}
			seen.WriteString(out.Output)
			r := lastRecord(t, sink)
			if r.Tool != "write_stdin" {
				t.Fatalf("the last record is %s's", r.Tool)
			}
			got = append(got, r.Hosts...)
		}
		if !strings.Contains(seen.String(), "hello allowed.test:"+port+"\n403\n") {
			t.Errorf("the session printed %q", seen.String())
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("the write_stdin records' hosts (-want +got):\n%s", diff)
		}
		// The session's end: its last requests are in the record of the call
		// that sees it end.
		out, err := quiver.Call(ctx, tk, tools.WriteStdin, tools.WriteStdinInput{SessionID: start.SessionID, Chars: curls + "; exit\n", YieldTimeMS: new(120000)})
		if err != nil || out.Status != "exited" {
			t.Fatalf("ending the session: %+v, %v", out, err)
		}
		if diff := cmp.Diff(want, lastRecord(t, sink).Hosts); diff != "" {
			t.Errorf("the record of the write_stdin that saw the end (-want +got):\n%s", diff)
		}
	})
	t.Run("background job", func(t *testing.T) {
		tk, _, sink := auditedToolkit(t, quiver.WithSandbox(box))
		start, err := quiver.Call(ctx, tk, tools.ExecCommand, tools.ExecCommandInput{Command: curls, Background: true})
		if err != nil {
			t.Fatal(err)
		}
		if r := lastRecord(t, sink); len(r.Hosts) != 0 {
			t.Errorf("exec_command's record: %+v", r)
		}
		out, err := quiver.Call(ctx, tk, tools.ExecOutput, tools.ExecOutputInput{JobID: start.JobID, WaitSecs: new(120)})
		if err != nil || out.Status != "exited" {
			t.Fatalf("exec_output: %+v, %v", out, err)
		}
		if diff := cmp.Diff(want, lastRecord(t, sink).Hosts); diff != "" {
			t.Errorf("exec_output's record (-want +got):\n%s", diff)
		}
		if _, err := quiver.Call(ctx, tk, tools.ExecOutput, tools.ExecOutputInput{JobID: start.JobID}); err != nil {
			t.Fatal(err)
		}
		if r := lastRecord(t, sink); len(r.Hosts) != 0 {
			t.Errorf("a second read counted the hosts again: %+v", r.Hosts)
		}
	})
}

// TestUnreadHostsAtTheJobsEnd: the hosts a session asked the proxy for
// after exec_command returned that no call read go, when the session is
// dropped (the toolkit's close, its session's end), into a record of the
// job's own: no tool, the job's id, outcome closed, each host once; what a
// read took before is not in it again.
func TestUnreadHostsAtTheJobsEnd(t *testing.T) {
	if _, err := exec.LookPath("curl"); err != nil {
		t.Fatalf("curl is needed (scripts/test installs it): %v", err)
	}
	origin := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
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
	box := sandbox.Config{Network: sandbox.Network{Hosts: []string{"allowed.test"}}, ProxyResolver: resolve}
	allowed := audit.Host{Host: "allowed.test", Port: port, Method: "GET", Allowed: true, Count: 1}
	refused := audit.Host{Host: "refused.test", Port: port, Method: "GET", Refused: "refused.test is not listed in [sandbox] network", Count: 1}
	// Each round waits for the file goN, asks for its hosts, then writes
	// doneN: the test decides when a session asks, after its call returned.
	curl := func(host string) string { return "curl -sS -o /dev/null http://" + host + ":" + port + "/; " }
	script := `w() { while [ ! -e "$1" ]; do sleep 0.05; done; }; ` +
		"w go1; " + curl("allowed.test") + curl("refused.test") + "touch done1; " +
		"w go2; " + curl("allowed.test") + "touch done2; sleep 1000.341"
	round := func(t *testing.T, dir, n string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, "go"+n), nil, 0o644); err != nil {
			t.Fatal(err)
		}
		for deadline := time.Now().Add(time.Minute); ; time.Sleep(20 * time.Millisecond) {
			if _, err := os.Stat(filepath.Join(dir, "done"+n)); err == nil {
				return
			}
			if time.Now().After(deadline) { // a hang guard
				t.Fatalf("round %s did not end within a minute", n)
			}
		}
	}
	ctx := tool.WithSession(context.Background(), "unread")
	for _, tc := range []struct {
		name string
		read bool // a write_stdin reads the session between the rounds
		end  func(*quiver.Toolkit) error
	}{
		{"toolkit closed", false, (*quiver.Toolkit).Close},
		{"session ended", false, func(tk *quiver.Toolkit) error { return tk.EndSession("unread") }},
		{"read, then toolkit closed", true, (*quiver.Toolkit).Close},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tk, dir, sink := auditedToolkit(t, quiver.WithSandbox(box))
			start, err := quiver.Call(ctx, tk, tools.ExecCommand, tools.ExecCommandInput{Argv: []string{"sh", "-c", script}, YieldTimeMS: new(10)})
			if err != nil || start.SessionID == "" {
				t.Fatalf("starting a session: %+v, %v", start, err)
			}
			round(t, dir, "1")
			// Unread, the two rounds' requests are one tally: allowed.test
			// twice.
			twice := allowed
			twice.Count = 2
			want := []audit.Host{twice, refused}
			if tc.read {
				if _, err := quiver.Call(ctx, tk, tools.WriteStdin, tools.WriteStdinInput{SessionID: start.SessionID, YieldTimeMS: new(10)}); err != nil {
					t.Fatal(err)
				}
				if diff := cmp.Diff([]audit.Host{allowed, refused}, lastRecord(t, sink).Hosts); diff != "" {
					t.Errorf("write_stdin's record (-want +got):\n%s", diff)
				}
				want = []audit.Host{allowed}
			}
			round(t, dir, "2")
			if err := tc.end(tk); err != nil {
				t.Fatal(err)
			}
			var got []audit.Host
			for _, r := range sink.Records() {
				if r.Job == "" {
					continue
				}
				if r.Job != start.SessionID || r.Tool != "" || r.Outcome != "closed" {
					t.Errorf("a job's record: %+v", r)
				}
				got = append(got, r.Hosts...)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("the job's own record (-want +got):\n%s", diff)
			}
		})
	}
}
