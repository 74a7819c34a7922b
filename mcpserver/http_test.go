package mcpserver_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/quiverkit/quiver/mcpserver"
)

// serveHTTP runs srv.Serve on a loopback port and returns the endpoint URL
// and a function that shuts it down and returns Serve's result.
func serveHTTP(t *testing.T, srv *mcpserver.Server) (string, func() error) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ctx, ln) }()
	var once sync.Once
	var serveErr error
	stop := func() error {
		once.Do(func() {
			cancel()
			select {
			case serveErr = <-done:
			case <-time.After(30 * time.Second):
				serveErr = errors.New("Serve did not return within 30s of its context ending")
			}
		})
		return serveErr
	}
	t.Cleanup(func() { stop() })
	return "http://" + ln.Addr().String() + "/mcp", stop
}

const initBody = `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`

// post sends one JSON-RPC body and returns the response with its first
// JSON-RPC message decoded (from JSON or from the event stream).
func post(ctx context.Context, url, session, body string, header map[string]string) (*http.Response, map[string]any, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		return nil, nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if session != "" {
		req.Header.Set("Mcp-Session-Id", session)
		req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
	}
	for k, v := range header {
		if k == "Host" {
			req.Host = v
			continue
		}
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, nil, err
	}
	defer resp.Body.Close()
	msg, err := firstMessage(resp)
	return resp, msg, err
}

func firstMessage(resp *http.Response) (map[string]any, error) {
	if resp.StatusCode == http.StatusAccepted {
		return nil, nil
	}
	var m map[string]any
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(nil, 8<<20)
		for sc.Scan() {
			if data, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
				return m, json.Unmarshal([]byte(data), &m)
			}
		}
		return nil, fmt.Errorf("event stream ended without a message: %v", sc.Err())
	}
	b, _ := io.ReadAll(resp.Body)
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("status %d, body %q", resp.StatusCode, b)
	}
	return m, nil
}

// openSession initializes a session over raw HTTP and returns its id.
func openSession(t *testing.T, url string, header map[string]string) string {
	t.Helper()
	resp, msg, err := post(t.Context(), url, "", initBody, header)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK || msg["result"] == nil {
		t.Fatalf("initialize: status %d, %v", resp.StatusCode, msg)
	}
	id := resp.Header.Get("Mcp-Session-Id")
	if _, _, err := post(t.Context(), url, id, `{"jsonrpc":"2.0","method":"notifications/initialized"}`, header); err != nil {
		t.Fatal(err)
	}
	return id
}

func TestHTTPGuards(t *testing.T) {
	f := newFixture(t)
	url, _ := serveHTTP(t, newServer(t, f, mcpserver.Options{
		Token: "s3cret", AllowedHosts: []string{"quiver.internal"}, AllowedOrigins: []string{"https://app.example"},
		MaxBodyBytes: 1 << 10,
	}))
	auth := "Bearer s3cret"
	tests := []struct {
		name   string
		header map[string]string
		body   string
		status int
	}{
		{"dns rebinding: a foreign Host is refused", map[string]string{"Host": "evil.example", "Authorization": auth}, initBody, 403},
		{"dns rebinding: a foreign Origin is refused", map[string]string{"Origin": "http://evil.example", "Authorization": auth}, initBody, 403},
		{"dns rebinding: a loopback Origin with a port is accepted", map[string]string{"Origin": "http://localhost:6274", "Authorization": auth}, initBody, 200},
		{"allowed host: an explicitly allowed Host is accepted", map[string]string{"Host": "quiver.internal:8080", "Authorization": auth}, initBody, 200},
		{"allowed origin: an explicitly allowed Origin is accepted", map[string]string{"Origin": "https://app.example", "Authorization": auth}, initBody, 200},
		{"token: none is refused", nil, initBody, 401},
		{"token: a wrong one is refused", map[string]string{"Authorization": "Bearer guess"}, initBody, 401},
		{"bad input: an oversized request is refused", map[string]string{"Authorization": auth},
			`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"pad":"` + strings.Repeat("x", 2<<10) + `"}}`, 413},
		{"bad input: malformed JSON-RPC is a parse error", map[string]string{"Authorization": auth}, `{"jsonrpc":`, 400},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp, _, err := post(t.Context(), url, "", tt.body, tt.header)
			if err != nil && resp == nil {
				t.Fatal(err)
			}
			if resp.StatusCode != tt.status {
				t.Errorf("status %d, want %d", resp.StatusCode, tt.status)
			}
		})
	}
}

func TestHTTPHundredConcurrentSessions(t *testing.T) {
	f := newFixture(t)
	url, _ := serveHTTP(t, newServer(t, f, mcpserver.Options{MaxSessions: 128}))
	const n = 100
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for i := range n {
		wg.Go(func() {
			ctx := t.Context()
			cs, err := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "1"}, nil).
				Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url, DisableStandaloneSSE: true}, nil)
			if err != nil {
				errs <- fmt.Errorf("session %d: connect: %w", i, err)
				return
			}
			defer cs.Close()
			text := fmt.Sprintf("client-%d", i)
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": text}})
			if err != nil {
				errs <- fmt.Errorf("session %d: call: %w", i, err)
				return
			}
			if sc, _ := res.StructuredContent.(map[string]any); sc["text"] != text {
				errs <- fmt.Errorf("session %d: got %v, want its own text back", i, res.StructuredContent)
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

func TestHTTPClientDisconnectCancelsTheCall(t *testing.T) {
	f := newFixture(t)
	url, _ := serveHTTP(t, newServer(t, f, mcpserver.Options{}))
	id := openSession(t, url, nil)
	ctx, hangUp := context.WithCancel(t.Context())
	go post(ctx, url, id, `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"slow","arguments":{}}}`, nil)
	select {
	case <-f.started:
	case <-time.After(10 * time.Second):
		t.Fatal("the call did not start")
	}
	hangUp()
	select {
	case err := <-f.cancelled:
		if !strings.Contains(fmt.Sprint(err), "client closed") {
			t.Errorf("the call was cancelled by %v, want the client's hang-up", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the call was not cancelled after its client hung up")
	}
}

func TestHTTPGracefulShutdownLetsCallsFinish(t *testing.T) {
	f := newFixture(t)
	srv := newServer(t, f, mcpserver.Options{ShutdownGrace: 5 * time.Second})
	url, stop := serveHTTP(t, srv)
	connect := func() *mcp.ClientSession {
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "1"}, nil).
			Connect(t.Context(), &mcp.StreamableClientTransport{Endpoint: url}, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cs.Close() })
		return cs
	}
	connect() // an idle session with an open event stream must not hold the shutdown up
	busy := connect()
	type result struct {
		res *mcp.CallToolResult
		err error
	}
	got := make(chan result, 1)
	go func() {
		res, err := busy.CallTool(t.Context(), &mcp.CallToolParams{Name: "nap", Arguments: map[string]any{}})
		got <- result{res, err}
	}()
	<-f.started
	start := time.Now()
	if err := stop(); err != nil {
		t.Fatalf("Serve = %v, want nil after an orderly shutdown", err)
	}
	if d := time.Since(start); d > 3*time.Second {
		t.Errorf("shutdown took %s, want about the length of the call in flight", d)
	}
	r := <-got
	if r.err != nil || r.res.IsError || r.res.Content[0].(*mcp.TextContent).Text != `"rested"` {
		t.Errorf("the call in flight during shutdown got %+v, %v; want its answer", r.res, r.err)
	}
	if _, _, err := post(t.Context(), url, "", initBody, nil); err == nil {
		t.Error("the server still accepts requests after shutdown")
	}
}
