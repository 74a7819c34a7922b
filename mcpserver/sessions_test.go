package mcpserver_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/quiverkit/quiver/mcpserver"
)

// attach opens the event stream (GET) of session id, as a connected client
// keeps it open; the returned func closes it.
func attach(t *testing.T, url, id string) func() {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("Mcp-Session-Id", id)
	req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("event stream of %s: status %d", id, resp.StatusCode)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return func() { resp.Body.Close() }
}

// ping sends a ping in session id and returns the status.
func ping(t *testing.T, url, id string) int {
	t.Helper()
	resp, _, err := post(t.Context(), url, id, `{"jsonrpc":"2.0","id":7,"method":"ping"}`, nil)
	if err != nil && resp == nil {
		t.Fatal(err)
	}
	return resp.StatusCode
}

func within(t *testing.T, c <-chan struct{}, d time.Duration, what string) {
	t.Helper()
	select {
	case <-c:
	case <-time.After(d):
		t.Fatalf("%s: not within %s", what, d)
	}
}

func TestHTTPAtTheLimitTheLeastRecentlyUsedIdleSessionMakesRoom(t *testing.T) {
	f := newFixture(t)
	srv := newServer(t, f, mcpserver.Options{MaxSessions: 2})
	url, _ := serveHTTP(t, srv)
	old := openSession(t, url, nil)
	recent := openSession(t, url, nil)
	if got := ping(t, url, old); got != http.StatusOK { // old is now the most recently used
		t.Fatalf("ping: %d", got)
	}
	newcomer := openSession(t, url, nil) // would be 503 before: two sessions open
	if got := ping(t, url, recent); got != http.StatusNotFound {
		t.Errorf("the least recently used session answered %d after the newcomer came, want 404 (evicted)", got)
	}
	for _, id := range []string{old, newcomer} {
		if got := ping(t, url, id); got != http.StatusOK {
			t.Errorf("session %s: ping %d, want 200", id, got)
		}
	}
}

func TestHTTPAtTheLimitASessionWithoutAClientGoesFirst(t *testing.T) {
	f := newFixture(t)
	srv := newServer(t, f, mcpserver.Options{MaxSessions: 2})
	url, _ := serveHTTP(t, srv)
	connected := openSession(t, url, nil)
	attach(t, url, connected)
	vanished := openSession(t, url, nil) // more recent, but nobody listens to it
	openSession(t, url, nil)
	if got := ping(t, url, vanished); got != http.StatusNotFound {
		t.Errorf("the session without a client answered %d, want 404 (evicted first)", got)
	}
	if got := ping(t, url, connected); got != http.StatusOK {
		t.Errorf("the connected session answered %d, want 200", got)
	}
}

func TestHTTPRefusedOnlyWhenEverySessionIsBusy(t *testing.T) {
	f := newFixture(t)
	logs := &syncBuffer{}
	logger := slog.New(slog.NewJSONHandler(logs, nil))
	srv := newServer(t, f, mcpserver.Options{MaxSessions: 2, MaxSessionsSetting: "--max-sessions", Logger: logger})
	url, _ := serveHTTP(t, srv)
	for range 2 {
		id := openSession(t, url, nil)
		go post(t.Context(), url, id, `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"slow","arguments":{}}}`, nil)
		within(t, f.started, 10*time.Second, "the slow call starts")
	}
	for range 3 {
		resp, body := initializeRaw(t, url)
		if resp.StatusCode != http.StatusServiceUnavailable || resp.Header.Get("Retry-After") != "1" {
			t.Errorf("newcomer with every session busy: status %d, Retry-After %q; want 503 and 1", resp.StatusCode, resp.Header.Get("Retry-After"))
		}
		for _, want := range []string{"all 2 sessions", "--max-sessions"} {
			if !strings.Contains(body, want) {
				t.Errorf("refusal body %q does not name %q", body, want)
			}
		}
	}
	if n := strings.Count(logs.String(), "new sessions refused"); n != 1 {
		t.Errorf("three refusals logged %d times, want once per interval:\n%s", n, logs.String())
	}
}

// initializeRaw sends an initialize request and returns the response and
// its body as text.
func initializeRaw(t *testing.T, url string) (*http.Response, string) {
	t.Helper()
	req, _ := http.NewRequestWithContext(t.Context(), http.MethodPost, url, strings.NewReader(initBody))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b)
}

func TestHTTPDeleteEndsTheSessionsCallsAtOnce(t *testing.T) {
	f := newFixture(t)
	srv := newServer(t, f, mcpserver.Options{})
	url, _ := serveHTTP(t, srv)
	id := openSession(t, url, nil)
	callDone := make(chan struct{})
	go func() {
		post(t.Context(), url, id, `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"slow","arguments":{}}}`, nil)
		close(callDone)
	}()
	within(t, f.started, 10*time.Second, "the slow call starts")
	req, _ := http.NewRequestWithContext(t.Context(), http.MethodDelete, url, nil)
	req.Header.Set("Mcp-Session-Id", id)
	deleted := make(chan *http.Response, 1)
	go func() {
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Error(err)
		}
		deleted <- resp
	}()
	select {
	case err := <-f.cancelled:
		if !strings.Contains(fmt.Sprint(err), "DELETE") {
			t.Errorf("the call was cancelled by %v, want the session's DELETE", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("DELETE did not cancel the session's call (the slow tool waits 30 s)")
	}
	select {
	case resp := <-deleted:
		if resp != nil && resp.StatusCode != http.StatusNoContent {
			t.Errorf("DELETE: status %d, want 204", resp.StatusCode)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("DELETE did not return once the call ended")
	}
	within(t, callDone, 10*time.Second, "the call's request ends")
	if got := ping(t, url, id); got != http.StatusNotFound {
		t.Errorf("ping after DELETE: %d, want 404", got)
	}
}

func TestHTTPIdleSessionsAreReclaimedConnectedOnesAreNot(t *testing.T) {
	f := newFixture(t)
	reclaimed := make(chan string, 10)
	logger := slog.New(&onRecord{msg: "session closed: idle too long", c: reclaimed})
	srv := newServer(t, f, mcpserver.Options{SessionTimeout: 100 * time.Millisecond, Logger: logger})
	url, _ := serveHTTP(t, srv)
	connected := openSession(t, url, nil)
	attach(t, url, connected)
	vanished := openSession(t, url, nil)
	// The record is written once the session is closed and forgotten.
	select {
	case id := <-reclaimed:
		if id != vanished {
			t.Fatalf("session %s reclaimed, want %s (the one nobody uses)", id, vanished)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the session nobody uses was not reclaimed")
	}
	// The connected session was attached before the other was opened: it
	// has been open longer than the timeout, and lives.
	if got := ping(t, url, connected); got != http.StatusOK {
		t.Errorf("the connected session answered %d after the idle one was reclaimed, want 200", got)
	}
	if got := ping(t, url, vanished); got != http.StatusNotFound {
		t.Errorf("the reclaimed session answered %d, want 404", got)
	}
}

// TestHTTPMemoryIsFlatAcrossVanishedSessions opens 10,000 sessions that
// are never used again nor deleted, at the default limit: the heap after
// them is what it was after the first 1,000, within a margin far below
// what keeping them would cost (about 20 KB each: 180 MB).
func TestHTTPMemoryIsFlatAcrossVanishedSessions(t *testing.T) {
	if testing.Short() {
		t.Skip("opens 11,000 sessions")
	}
	f := newFixture(t)
	srv := newServer(t, f, mcpserver.Options{})
	h := srv.Handler()
	open := func(n int) {
		for i := range n {
			req := httptest.NewRequest(http.MethodPost, "http://127.0.0.1/mcp", strings.NewReader(initBody))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "application/json, text/event-stream")
			w := httptest.NewRecorder()
			h.ServeHTTP(w, req)
			if w.Code != http.StatusOK {
				t.Fatalf("session %d: status %d: %s", i, w.Code, w.Body)
			}
		}
	}
	heap := func() uint64 {
		var m runtime.MemStats
		runtime.GC()
		runtime.GC()
		runtime.ReadMemStats(&m)
		return m.HeapAlloc
	}
	open(1000)
	before := heap()
	open(10000)
	after := heap()
	left := 0
	for range srv.MCP().Sessions() {
		left++
	}
	if left > 64 {
		t.Errorf("%d sessions open after 11,000 vanished, want at most the limit, 64", left)
	}
	const margin = 8 << 20
	if after > before+margin {
		t.Errorf("heap grew from %d to %d bytes across 10,000 vanished sessions, want less than %d more", before, after, margin)
	}
	t.Logf("heap after 1,000 vanished sessions %d KB, after 11,000 %d KB", before>>10, after>>10)
}

func TestHealthAndReadiness(t *testing.T) {
	f := newFixture(t)
	var broken bool
	var mu sync.Mutex
	srv := newServer(t, f, mcpserver.Options{Token: "s3cret", ReadyChecks: []mcpserver.Check{
		{Name: "config", Func: func(context.Context) error { return nil }},
		{Name: "sandbox", Func: func(context.Context) error {
			mu.Lock()
			defer mu.Unlock()
			if broken {
				return fmt.Errorf("no user namespaces")
			}
			return nil
		}},
	}})
	url, _ := serveHTTP(t, srv)
	base := strings.TrimSuffix(url, "/mcp")
	get := func(path string) (int, string) {
		req, _ := http.NewRequestWithContext(t.Context(), http.MethodGet, base+path, nil)
		req.Host = "10.1.2.3:8080" // a platform probes the pod's address, without the token
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	tests := []struct {
		name       string
		broken     bool
		path       string
		status     int
		bodyPrefix string
	}{
		{"healthz: live", false, "/healthz", 200, "ok"},
		{"readyz: every check passes", false, "/readyz", 200, "ready"},
		{"readyz: a failing check is named", true, "/readyz", 503, "not ready: sandbox"},
		{"healthz: live while not ready", true, "/healthz", 200, "ok"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			mu.Lock()
			broken = tt.broken
			mu.Unlock()
			status, body := get(tt.path)
			if status != tt.status || !strings.HasPrefix(body, tt.bodyPrefix) {
				t.Errorf("GET %s: %d %q, want %d %q", tt.path, status, body, tt.status, tt.bodyPrefix)
			}
		})
	}
}

func TestCallLogsCarryTheSessionAndCallIDs(t *testing.T) {
	f := newFixture(t)
	logs := &syncBuffer{}
	logger := slog.New(slog.NewJSONHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	srv := newServer(t, f, mcpserver.Options{Logger: logger})
	url, _ := serveHTTP(t, srv)
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "1"}, nil).
		Connect(t.Context(), &mcp.StreamableClientTransport{Endpoint: url, DisableStandaloneSSE: true}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	if _, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": "x"}}); err != nil {
		t.Fatal(err)
	}
	var found bool
	for _, line := range strings.Split(logs.String(), "\n") {
		var rec struct{ Msg, Tool, Session, Call string }
		if json.Unmarshal([]byte(line), &rec) != nil || rec.Msg != "call" {
			continue
		}
		found = true
		if rec.Tool != "echo" || rec.Session != cs.ID() || !strings.HasPrefix(rec.Call, "mcp_") {
			t.Errorf("call record %s: want tool echo, session %s and a call id", line, cs.ID())
		}
	}
	if !found {
		t.Errorf("no record of the call in the log:\n%s", logs.String())
	}
}

// syncBuffer lets the server's goroutines share one buffer.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.buf.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.buf.String()
}

// onRecord sends the session attribute of every record whose message is
// msg.
type onRecord struct {
	msg string
	c   chan string
}

func (h *onRecord) Enabled(context.Context, slog.Level) bool { return true }
func (h *onRecord) WithAttrs([]slog.Attr) slog.Handler       { return h }
func (h *onRecord) WithGroup(string) slog.Handler            { return h }

func (h *onRecord) Handle(_ context.Context, r slog.Record) error {
	if r.Message == h.msg {
		r.Attrs(func(a slog.Attr) bool {
			if a.Key == "session" {
				h.c <- a.Value.String()
			}
			return true
		})
	}
	return nil
}
