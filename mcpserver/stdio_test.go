package mcpserver_test

import (
	"bufio"
	"encoding/json"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/quiverkit/quiver/mcpserver"
)

// rawSession speaks newline-delimited JSON-RPC to Server.Run through pipes,
// as a stdio client does.
type rawSession struct {
	t    *testing.T
	in   *io.PipeWriter // the server's stdin
	out  *bufio.Reader  // the server's stdout
	done chan error     // Run's result
}

func startRaw(t *testing.T, srv *mcpserver.Server) *rawSession {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	r := &rawSession{t: t, in: inW, out: bufio.NewReader(outR), done: make(chan error, 1)}
	go func() {
		r.done <- srv.Run(t.Context(), inR, outW)
		outW.Close()
	}()
	t.Cleanup(func() { inW.Close() })
	return r
}

func (r *rawSession) send(line string) {
	r.t.Helper()
	if _, err := io.WriteString(r.in, line+"\n"); err != nil {
		r.t.Fatalf("write %q: %v", line, err)
	}
}

// recv reads one message from the server's stdout; every line must be a
// JSON-RPC message (nothing but protocol on stdout).
func (r *rawSession) recv() map[string]any {
	r.t.Helper()
	type read struct {
		line string
		err  error
	}
	c := make(chan read, 1)
	go func() {
		line, err := r.out.ReadString('\n')
		c <- read{line, err}
	}()
	select {
	case got := <-c:
		if got.err != nil {
			r.t.Fatalf("read: %v", got.err)
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(got.line), &m); err != nil || m["jsonrpc"] != "2.0" {
			r.t.Fatalf("stdout carried something other than a JSON-RPC message: %q", got.line)
		}
		return m
	case <-time.After(10 * time.Second):
		r.t.Fatal("no answer within 10s")
	}
	return nil
}

func (r *rawSession) initialize() {
	r.t.Helper()
	r.send(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`)
	if res := r.recv(); res["result"] == nil {
		r.t.Fatalf("initialize: %v", res)
	}
	r.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
}

func errorCode(m map[string]any) float64 {
	e, _ := m["error"].(map[string]any)
	code, _ := e["code"].(float64)
	return code
}

func TestStdioBadInput(t *testing.T) {
	f := newFixture(t)
	r := startRaw(t, newServer(t, f, mcpserver.Options{}))
	r.initialize()

	r.send(`{"jsonrpc":"2.0","id":1,"method":"no/such/method","params":{}}`)
	if got := r.recv(); errorCode(got) != -32601 {
		t.Errorf("unknown method: %v, want error -32601", got)
	}

	r.send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"text":["not","a","string"]}}}`)
	got := r.recv()
	res, _ := got["result"].(map[string]any)
	if res["isError"] != true || !strings.Contains(res["content"].([]any)[0].(map[string]any)["text"].(string), "INVALID_ARGUMENTS") {
		t.Errorf("wrong shape of arguments: %v, want an isError result with INVALID_ARGUMENTS", got)
	}

	// The session is still usable after bad input.
	r.send(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"echo","arguments":{"text":"ok"}}}`)
	if got := r.recv(); got["result"].(map[string]any)["structuredContent"] == nil {
		t.Errorf("call after bad input: %v", got)
	}
}

func TestStdioMalformedAndOversizedLinesAreAnsweredAndTheSessionGoesOn(t *testing.T) {
	f := newFixture(t)
	r := startRaw(t, newServer(t, f, mcpserver.Options{MaxBodyBytes: 1 << 10}))
	r.initialize()
	tests := []struct {
		name, line string
		code       float64
	}{
		{"bad input: a message cut short", `{"jsonrpc":"2.0","id":1,"method":`, -32700},
		{"bad input: not JSON at all", `this is not json`, -32700},
		{"bad input: a line over the size limit", `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"text":"` + strings.Repeat("x", 2<<10) + `"}}}`, -32600},
		{"not JSON-RPC: an empty array", `[]`, -32600},
		{"not JSON-RPC: an array of a number", `[1]`, -32600},
		{"not JSON-RPC: an array of an empty object", `[{}]`, -32600},
		{"not JSON-RPC: a batch of valid requests (MCP has no batches)", `[{"jsonrpc":"2.0","id":1,"method":"ping"}]`, -32600},
		{"not JSON-RPC: an empty object", `{}`, -32600},
		{"not JSON-RPC: only the version", `{"jsonrpc":"2.0"}`, -32600},
		{"not JSON-RPC: version 1.0", `{"jsonrpc":"1.0","id":1,"method":"ping"}`, -32600},
		{"not JSON-RPC: no version", `{"id":1,"method":"ping"}`, -32600},
		{"not JSON-RPC: a boolean id", `{"id":true,"jsonrpc":"2.0","method":"ping"}`, -32600},
		{"not JSON-RPC: an object id", `{"id":{},"jsonrpc":"2.0","method":"ping"}`, -32600},
		{"not JSON-RPC: a method that is a number", `{"id":1,"jsonrpc":"2.0","method":5}`, -32600},
		{"not JSON-RPC: a string", `"s"`, -32600},
		{"not JSON-RPC: a number", `123`, -32600},
		{"not JSON-RPC: null", `null`, -32600},
		{"not JSON-RPC: true", `true`, -32600},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r.send(tt.line)
			got := r.recv()
			if errorCode(got) != tt.code || got["id"] != nil {
				t.Errorf("answer %v, want error %v with a null id", got, tt.code)
			}
			r.send(`{"jsonrpc":"2.0","id":9,"method":"ping"}`)
			if got := r.recv(); got["result"] == nil {
				t.Errorf("ping after the bad line: %v", got)
			}
		})
	}
}

func TestStdioMessagesWithSurroundingSpaceAreRead(t *testing.T) {
	f := newFixture(t)
	r := startRaw(t, newServer(t, f, mcpserver.Options{}))
	r.initialize()
	for i, line := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"ping"}  `,
		"\t{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\"}\r",
		` {"jsonrpc":"2.0","id":3,"method":"ping"} ` + "\t\r",
	} {
		r.send(line)
		if got := r.recv(); got["result"] == nil || got["id"] != float64(i+1) {
			t.Errorf("%q: answer %v, want the ping's result", line, got)
		}
	}
}

func TestStdioClosedStdinIsACleanExit(t *testing.T) {
	f := newFixture(t)
	r := startRaw(t, newServer(t, f, mcpserver.Options{StdinGrace: 100 * time.Millisecond}))
	r.initialize()
	r.send(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"slow","arguments":{}}}`)
	<-f.started
	r.in.Close()
	select {
	case err := <-r.done:
		if err != nil {
			t.Errorf("Run = %v, want nil after the client closed stdin", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Run did not return after stdin closed")
	}
	select {
	case <-f.cancelled:
	case <-time.After(5 * time.Second):
		t.Fatal("the call in flight was not cancelled when the client went away")
	}
}

func TestStdioRequestsWrittenBeforeStdinClosesAreAnswered(t *testing.T) {
	f := newFixture(t)
	r := startRaw(t, newServer(t, f, mcpserver.Options{}))
	r.send(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`)
	r.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	r.send(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"nap","arguments":{}}}`)
	r.send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"text":"piped"}}}`)
	r.in.Close()
	got := map[float64]bool{}
	for range 3 {
		m := r.recv()
		got[m["id"].(float64)] = m["result"] != nil
	}
	if !got[0] || !got[1] || !got[2] {
		t.Errorf("answers %v, want results for ids 0, 1 and 2", got)
	}
	select {
	case err := <-r.done:
		if err != nil {
			t.Errorf("Run = %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Run did not return once every request was answered")
	}
}
