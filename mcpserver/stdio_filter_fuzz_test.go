package mcpserver

import (
	"bufio"
	"encoding/json"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/quiverkit/quiver"
)

// FuzzStdioLine sends any bytes to a stdio session, then a ping: whatever
// came first, the session must answer the ping, write nothing but JSON-RPC
// messages, and end cleanly when the client closes its end.
func FuzzStdioLine(f *testing.F) {
	for _, seed := range []string{`[]`, `{}`, `null`, `{"jsonrpc":"2.0","id":1,"method":"ping"}  `} {
		f.Add([]byte(seed))
	}
	tk, err := quiver.New(quiver.WithRoot(f.TempDir()))
	if err != nil {
		f.Fatal(err)
	}
	defer tk.Close()
	srv, err := New(f.Context(), tk, Options{MaxBodyBytes: 512, StdinGrace: 50 * time.Millisecond})
	if err != nil {
		f.Fatal(err)
	}
	const probe = `{"jsonrpc":"2.0","id":"probe-after-the-fuzzed-line","method":"ping"}`
	f.Fuzz(func(t *testing.T, input []byte) {
		inR, inW := io.Pipe()
		defer inW.Close()
		outR, outW := io.Pipe()
		done := make(chan error, 1)
		go func() {
			done <- srv.Run(t.Context(), inR, outW)
			outW.Close()
		}()
		go func() {
			inW.Write(input)
			io.WriteString(inW, "\n"+probe+"\n")
		}()
		answered := make(chan struct{})
		go func() {
			lines := bufio.NewScanner(outR)
			lines.Buffer(nil, 1<<20)
			for lines.Scan() {
				var m struct {
					JSONRPC string          `json:"jsonrpc"`
					ID      json.RawMessage `json:"id"`
					Result  json.RawMessage `json:"result"`
				}
				if err := json.Unmarshal(lines.Bytes(), &m); err != nil || m.JSONRPC != "2.0" {
					t.Errorf("the server wrote something other than a JSON-RPC message: %q", lines.Text())
				}
				if strings.Contains(string(m.ID), "probe-after-the-fuzzed-line") && m.Result != nil {
					close(answered)
					break
				}
			}
			io.Copy(io.Discard, outR)
		}()
		select {
		case <-answered:
		case err := <-done:
			t.Fatalf("the session ended (%v) before answering the ping after %q", err, input)
		case <-time.After(10 * time.Second):
			t.Fatalf("no answer to the ping after %q within 10s", input)
		}
		inW.Close()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("Run = %v after the client closed its end", err)
			}
		case <-time.After(10 * time.Second):
			t.Fatal("Run did not return after the client closed its end")
		}
	})
}
