//go:build linux

package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/quiverkit/quiver/audit"
	"github.com/quiverkit/quiver/sandbox"
	"github.com/quiverkit/quiver/sandbox/netproxy"
	"github.com/quiverkit/quiver/sandbox/sandboxtest"
	"github.com/quiverkit/quiver/tool"
)

// TestCloseStopsTheWholeTree: whatever the server started — a child that
// ignores SIGTERM, a daemon that forked twice and called setsid — ends
// with its session, confined or opted out of the sandbox.
func TestCloseStopsTheWholeTree(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name      string
		noSandbox bool
	}{{"confined", false}, {"opted out", true}} {
		t.Run(tt.name, func(t *testing.T) {
			cfg := testServer(t, "wrapped", "tools")
			cfg.NoSandbox = tt.noSandbox
			tree := sandboxtest.NewTree(t)
			name, value, _ := strings.Cut(tree.Env, "=")
			cfg.Env[name] = value
			cfg.Env["QUIVER_TEST_LEAVE_TREE"] = "1"
			p := newProvider(t, cfg)
			if _, err := p.Tools(t.Context()); err != nil {
				t.Fatal(err)
			}
			tree.WaitStarted(t, 1)
			if err := p.Close(); err != nil {
				t.Logf("Close: %v", err)
			}
			tree.WaitGone(t)
		})
	}
}

// TestServerHostsGoIntoTheAuditRecord: a confined server under a list of
// hosts asks the proxy for one between calls; the next call to it carries
// the request into its record (the call's sandbox profile's tally, as the
// toolkit gives each call), once. A request no call carried is recorded
// when the provider closes, in a record of the provider's own.
func TestServerHostsGoIntoTheAuditRecord(t *testing.T) {
	origin := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "hello") }))
	defer origin.Close()
	_, port, _ := net.SplitHostPort(origin.Listener.Addr().String())
	resolve := func(_ context.Context, host string) ([]netip.Addr, error) {
		if strings.HasSuffix(host, ".test") {
			return []netip.Addr{netip.MustParseAddr("127.0.0.1")}, nil
		}
		return nil, fmt.Errorf("%s: not a name of this test", host)
	}
	cfg := testServer(t, "net", "tools")
	box, err := sandbox.New(sandbox.WorkspaceWrite, cfg.Dir, sandbox.Config{Network: sandbox.Network{Hosts: []string{"allowed.test"}}, ProxyResolver: resolve}, sandbox.StandardProtected)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Sandbox = box
	p := newProvider(t, cfg)
	defer p.Close()
	sink := &audit.Memory{}
	p.SetAudit(sink)
	tools, err := p.Tools(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]*tool.Tool{}
	for _, tl := range tools {
		byName[tl.Name] = tl
	}
	// call runs a tool as the toolkit does, with a profile counting the
	// call's requests, and returns what its record would list.
	call := func(name, args string) []audit.Host {
		t.Helper()
		var tally netproxy.Tally
		scope := tool.NewScope(nil, nil)
		scope.Provide(sandbox.Key.ID, box.RecordingContacts(&tally))
		if _, err := byName[ToolName("net", name)].Execute(t.Context(), tool.NewContext("call", name, nil, scope), json.RawMessage(args)); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		hosts, _ := audit.Hosts(tally.List())
		return hosts
	}
	// fetchBetweenCalls has the server GET host's URL after its call
	// returned, and waits until it has.
	fetchBetweenCalls := func(host, n string) {
		t.Helper()
		args, _ := json.Marshal(map[string]string{"url": "http://" + host + ":" + port + "/", "waitFor": "go" + n, "done": "done" + n})
		if hosts := call("fetch_later", string(args)); len(hosts) != 0 {
			t.Fatalf("fetch_later's record: %v, before the server fetched", hosts)
		}
		if err := os.WriteFile(filepath.Join(cfg.Dir, "go"+n), nil, 0o644); err != nil {
			t.Fatal(err)
		}
		for deadline := time.Now().Add(time.Minute); ; time.Sleep(10 * time.Millisecond) {
			if _, err := os.Stat(filepath.Join(cfg.Dir, "done"+n)); err == nil {
				return
			}
			if time.Now().After(deadline) { // a hang guard
				t.Fatalf("the server did not fetch %s within a minute", host)
			}
		}
	}

	fetchBetweenCalls("allowed.test", "1")
	want := []audit.Host{{Host: "allowed.test", Port: port, Method: "GET", Allowed: true, Count: 1}}
	if diff := cmp.Diff(want, call("distance", `{"from":{"x":0,"y":0},"to":{"x":1,"y":1}}`)); diff != "" {
		t.Errorf("the next call's record (-want +got):\n%s", diff)
	}
	if hosts := call("distance", `{"from":{"x":0,"y":0},"to":{"x":1,"y":1}}`); len(hosts) != 0 {
		t.Errorf("a second call carried the hosts again: %v", hosts)
	}

	fetchBetweenCalls("refused.test", "2")
	if err := p.Close(); err != nil {
		t.Logf("Close: %v", err)
	}
	want = []audit.Host{{Host: "refused.test", Port: port, Method: "GET", Refused: "refused.test is not listed in [sandbox] network", Count: 1}}
	records := sink.Records()
	if len(records) != 1 || records[0].Provider != "mcp:net" || records[0].Tool != "" || records[0].Outcome != "closed" {
		t.Fatalf("records at close: %+v", records)
	}
	if diff := cmp.Diff(want, records[0].Hosts); diff != "" {
		t.Errorf("the close's record (-want +got):\n%s", diff)
	}
}
