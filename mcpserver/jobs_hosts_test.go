//go:build linux

package mcpserver_test

import (
	"context"
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
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/quiverkit/quiver"
	"github.com/quiverkit/quiver/audit"
	"github.com/quiverkit/quiver/mcpserver"
	"github.com/quiverkit/quiver/policy"
	"github.com/quiverkit/quiver/provider/builtin"
	"github.com/quiverkit/quiver/sandbox"
)

// TestJobsUnreadHostsAtTheMCPSessionsEnd: a session that asks the proxy for
// an allowed and a refused name after its exec_command returned, never
// read, is killed with its MCP session (DELETE); the hosts then are in a
// record of the job's own, each once.
func TestJobsUnreadHostsAtTheMCPSessionsEnd(t *testing.T) {
	origin := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "hello") }))
	defer origin.Close()
	_, port, _ := net.SplitHostPort(origin.Listener.Addr().String())
	resolve := func(_ context.Context, host string) ([]netip.Addr, error) {
		if strings.HasSuffix(host, ".test") {
			return []netip.Addr{netip.MustParseAddr("127.0.0.1")}, nil
		}
		return nil, fmt.Errorf("%s: not a name of this test", host)
	}
	dir, sink := t.TempDir(), &audit.Memory{}
	tk, err := quiver.New(quiver.WithRoot(dir), builtin.Standard(), quiver.WithPolicy(policy.AllowAll()), quiver.WithAudit(sink),
		quiver.WithSandbox(sandbox.Config{Network: sandbox.Network{Hosts: []string{"allowed.test"}}, ProxyResolver: resolve}))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tk.Close() })
	srv, err := mcpserver.New(t.Context(), tk, mcpserver.Options{})
	if err != nil {
		t.Fatal(err)
	}
	url, _ := serveHTTP(t, srv)
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "hosts", Version: "1"}, nil).
		Connect(t.Context(), &mcp.StreamableClientTransport{Endpoint: url, MaxRetries: -1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	curl := func(host string) string { return "curl -sS -o /dev/null http://" + host + ":" + port + "/; " }
	script := `while [ ! -e go ]; do sleep 0.05; done; ` + curl("allowed.test") + curl("refused.test") + "touch done; sleep 1000.351"
	code, out := callCode(t, cs, "exec_command", map[string]any{"argv": []string{"sh", "-c", script}, "yield_time_ms": 10})
	id, _ := out["session_id"].(string)
	if code != "" || id == "" {
		t.Fatalf("starting the session: %s %v", code, out)
	}
	if err := os.WriteFile(filepath.Join(dir, "go"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(20 * time.Millisecond) {
		if _, err := os.Stat(filepath.Join(dir, "done")); err == nil {
			break
		}
		if time.Now().After(deadline) { // a hang guard
			t.Fatal("the curls did not end within a minute")
		}
	}
	if err := cs.Close(); err != nil { // DELETE, which answers once the session's jobs have ended
		t.Fatal(err)
	}
	var got []audit.Record
	for _, r := range sink.Records() {
		if r.Tool == "" {
			r.Time = time.Time{}
			got = append(got, r)
		}
	}
	want := []audit.Record{{Job: id, Outcome: "closed", Hosts: []audit.Host{
		{Host: "allowed.test", Port: port, Method: "GET", Allowed: true, Count: 1},
		{Host: "refused.test", Port: port, Method: "GET", Refused: "refused.test is not listed in [sandbox] network", Count: 1},
	}}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("the job's own record (-want +got):\n%s", diff)
	}
}
