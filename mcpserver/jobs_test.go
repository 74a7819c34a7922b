//go:build linux

package mcpserver_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/quiverkit/quiver"
	"github.com/quiverkit/quiver/mcpserver"
	"github.com/quiverkit/quiver/policy"
	"github.com/quiverkit/quiver/provider/builtin"
	"github.com/quiverkit/quiver/sandbox/sandboxtest"
	"github.com/quiverkit/quiver/tool"
)

// A background job belongs to the MCP session whose call started it:
// another session's exec_output and exec_kill get NOT_FOUND, and the end of
// the session — DELETE, the end of a stdio session, the server's shutdown —
// kills the job's whole process tree.

// jobsServer is a server of the standard tools, every call allowed, under
// the real sandbox, in a workspace of its own.
func jobsServer(t *testing.T) *mcpserver.Server {
	t.Helper()
	tk, err := quiver.New(quiver.WithRoot(t.TempDir()), builtin.Standard(), quiver.WithPolicy(policy.AllowAll()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tk.Close() })
	srv, err := mcpserver.New(t.Context(), tk, mcpserver.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return srv
}

// callCode calls a tool and returns the error code of its result ("" for
// success) and its structured content.
func callCode(t *testing.T, cs *mcp.ClientSession, name string, args map[string]any) (tool.Code, map[string]any) {
	t.Helper()
	res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	sc, _ := res.StructuredContent.(map[string]any)
	if !res.IsError {
		return "", sc
	}
	meta, _ := res.Meta[mcpserver.MetaError].(map[string]any)
	code, _ := meta["code"].(string)
	return tool.Code(code), sc
}

// startTreeJob starts a sandboxtest.Tree in the background from cs and
// returns the job's id and the tree, once it has started.
func startTreeJob(t *testing.T, cs *mcp.ClientSession, name string) (string, *sandboxtest.Tree) {
	t.Helper()
	tree := sandboxtest.NewTree(t)
	code, out := callCode(t, cs, "exec_command", map[string]any{"argv": tree.Argv(), "background": true})
	id, _ := out["job_id"].(string)
	if code != "" || id == "" {
		t.Fatalf("starting %s: %s %v", name, code, out)
	}
	tree.WaitStarted(t, 1)
	return id, tree
}

// probeAnothersJob tries, from cs, every job tool on another session's
// job id and its other spellings: each must be NOT_FOUND.
func probeAnothersJob(t *testing.T, cs *mcp.ClientSession, id string) {
	t.Helper()
	for _, guess := range []string{id, strings.ToUpper(id), id + " ", "\t" + id, id[:len(id)-2], "job-1"} {
		for _, call := range []struct {
			name string
			args map[string]any
		}{
			{"exec_output", map[string]any{"job_id": guess}},
			{"exec_output", map[string]any{"job_id": guess, "wait_secs": 1}},
			{"exec_kill", map[string]any{"job_id": guess}},
		} {
			if code, out := callCode(t, cs, call.name, call.args); code != tool.CodeNotFound {
				t.Errorf("another session's %s %v: %s %v, want NOT_FOUND", call.name, call.args, code, out)
			}
		}
	}
}

func TestHTTPSessionsOwnTheirJobsAndDeleteKillsThem(t *testing.T) {
	srv := jobsServer(t)
	url, stop := serveHTTP(t, srv)
	connectHTTP := func() *mcp.ClientSession {
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "jobs", Version: "1"}, nil).
			Connect(t.Context(), &mcp.StreamableClientTransport{Endpoint: url, MaxRetries: -1}, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cs.Close() })
		return cs
	}
	a, b, c := connectHTTP(), connectHTTP(), connectHTTP()
	aJob, aTree := startTreeJob(t, a, "a")
	_, bTree := startTreeJob(t, b, "b")
	_, cTree := startTreeJob(t, c, "c")

	probeAnothersJob(t, b, aJob)
	aTree.WantRunning(t, "another session tried to kill A's job")
	if code, out := callCode(t, a, "exec_output", map[string]any{"job_id": aJob}); code != "" || out["status"] != "running" {
		t.Fatalf("A reading its own job: %s %v", code, out)
	}

	req, err := http.NewRequestWithContext(t.Context(), http.MethodDelete, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Mcp-Session-Id", a.ID())
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusNoContent {
		t.Fatalf("DELETE: %d, want 204", resp.StatusCode)
	}
	// DELETE answers once the session's jobs have ended: nothing of A's tree
	// may run now, before any wait.
	aTree.WantGone(t, "DELETE answered")
	aTree.WaitGone(t)
	bTree.WantRunning(t, "A's session was deleted")
	cTree.WantRunning(t, "A's session was deleted")

	// The server's shutdown ends every session, and so every job, before
	// the toolkit is closed.
	if err := stop(); err != nil {
		t.Fatal(err)
	}
	bTree.WaitGone(t)
	cTree.WaitGone(t)
}

func TestStdioSessionsOwnTheirJobsAndTheirEndKillsThem(t *testing.T) {
	srv := jobsServer(t)
	type stdio struct {
		cs   *mcp.ClientSession
		done chan error
	}
	// Two stdio sessions of one server: stdio sessions have no id, and
	// must not share one.
	connectStdio := func() stdio {
		inR, inW := io.Pipe()
		outR, outW := io.Pipe()
		s := stdio{done: make(chan error, 1)}
		go func() {
			s.done <- srv.Run(context.Background(), inR, outW)
			outW.Close()
		}()
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "jobs", Version: "1"}, nil).
			Connect(t.Context(), &mcp.IOTransport{Reader: outR, Writer: inW}, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cs.Close() })
		s.cs = cs
		return s
	}
	a, b := connectStdio(), connectStdio()
	aJob, aTree := startTreeJob(t, a.cs, "a")
	_, bTree := startTreeJob(t, b.cs, "b")
	probeAnothersJob(t, b.cs, aJob)
	aTree.WantRunning(t, "another session tried to kill A's job")

	a.cs.Close() // closes the server's standard input: the session ends
	if err := <-a.done; err != nil {
		t.Fatalf("Run after the client closed: %v", err)
	}
	// Run returns once the session's jobs have ended.
	aTree.WantGone(t, "Run returned")
	aTree.WaitGone(t)
	bTree.WantRunning(t, "A's stdio session ended")
	b.cs.Close()
	<-b.done
	bTree.WaitGone(t)
}

// startTreeSession starts a sandboxtest.Tree from cs as an interactive
// session (exec_command with yield_time_ms, and a terminal when tty) and
// returns the tree once it has started.
func startTreeSession(t *testing.T, cs *mcp.ClientSession, tty bool) *sandboxtest.Tree {
	t.Helper()
	tree := sandboxtest.NewTree(t)
	code, out := callCode(t, cs, "exec_command", map[string]any{"argv": tree.Argv(), "yield_time_ms": 10, "tty": tty})
	if id, _ := out["session_id"].(string); code != "" || id == "" || out["status"] != "running" {
		t.Fatalf("starting a session: %s %v", code, out)
	}
	tree.WaitStarted(t, 1)
	return tree
}

// An interactive session (exec_command that returned at yield_time_ms,
// with a terminal or not) dies with the MCP session whose call started it,
// over stdio and over streamable HTTP alike: once the client has closed its
// session and the server has let it go, none of its processes is left.
func TestSessionsDieWithTheirMCPSession(t *testing.T) {
	for _, tty := range []bool{false, true} {
		t.Run(fmt.Sprintf("stdio tty=%v", tty), func(t *testing.T) {
			srv := jobsServer(t)
			inR, inW := io.Pipe()
			outR, outW := io.Pipe()
			done := make(chan error, 1)
			go func() {
				done <- srv.Run(context.Background(), inR, outW)
				outW.Close()
			}()
			cs, err := mcp.NewClient(&mcp.Implementation{Name: "sessions", Version: "1"}, nil).
				Connect(t.Context(), &mcp.IOTransport{Reader: outR, Writer: inW}, nil)
			if err != nil {
				t.Fatal(err)
			}
			tree := startTreeSession(t, cs, tty)
			cs.Close() // closes the server's standard input: the session ends
			if err := <-done; err != nil {
				t.Fatalf("Run after the client closed: %v", err)
			}
			tree.WantGone(t, "Run returned") // Run returns once the session's jobs have ended
			tree.WaitGone(t)
		})
		t.Run(fmt.Sprintf("http tty=%v", tty), func(t *testing.T) {
			url, _ := serveHTTP(t, jobsServer(t)) // shut down only after the test's checks
			cs, err := mcp.NewClient(&mcp.Implementation{Name: "sessions", Version: "1"}, nil).
				Connect(t.Context(), &mcp.StreamableClientTransport{Endpoint: url, MaxRetries: -1}, nil)
			if err != nil {
				t.Fatal(err)
			}
			tree := startTreeSession(t, cs, tty)
			if err := cs.Close(); err != nil { // DELETE, which answers once the session's jobs have ended
				t.Fatal(err)
			}
			tree.WantGone(t, "the client closed its session")
			tree.WaitGone(t)
		})
	}
}
