//go:build linux

package main

import (
	"encoding/json"
	"io"
	"net/http"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/quiverkit/quiver/mcpserver"
	"github.com/quiverkit/quiver/sandbox/sandboxtest"
)

// Issue 34's "jobs belong to their session", through the quiver binary
// under the real sandbox: background jobs started by one MCP session are
// NOT_FOUND for another, and die, with their whole process trees, when the
// session is deleted, when a stdio session ends, and when the server gets
// SIGTERM. Each job runs sandboxtest.TreeLine: a child ignoring SIGTERM, and
// a daemon that double-forked and called setsid.

// callCode calls a tool and returns its error code ("" for success) and its
// structured content.
func callCode(t *testing.T, cs *mcp.ClientSession, name string, args map[string]any) (string, map[string]any) {
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
	return code, sc
}

// startTreeJob starts a process tree as a background job of cs and returns
// the job's id and the tree, once it has started.
func startTreeJob(t *testing.T, cs *mcp.ClientSession, name string) (string, *sandboxtest.Tree) {
	t.Helper()
	tree := sandboxtest.NewTree(t)
	code, out := callCode(t, cs, "exec_command", map[string]any{"argv": tree.Argv(), "background": true})
	id, _ := out["job_id"].(string)
	if code != "" || id == "" {
		t.Fatalf("starting job %s: %s %v", name, code, out)
	}
	tree.WaitStarted(t, 1)
	return id, tree
}

func TestServeHTTPJobsBelongToTheirSession(t *testing.T) {
	dir := workdir(t, nil)
	srv := startServe(t, dir, "--shutdown-grace", "1s")
	a, b := connectSDK(t, srv.url, &http.Client{}), connectSDK(t, srv.url, &http.Client{})
	defer b.Close()
	aJob, aTree := startTreeJob(t, a, "a")
	bJob, bTree := startTreeJob(t, b, "b")

	t.Run("another session reads, waits for and kills A's job by every spelling: NOT_FOUND", func(t *testing.T) {
		for _, guess := range []string{aJob, strings.ToUpper(aJob), " " + aJob, aJob + "\n", aJob[:len(aJob)-1], "job-1", "job_"} {
			for _, call := range []struct {
				name string
				args map[string]any
			}{
				{"exec_output", map[string]any{"job_id": guess}},
				{"exec_output", map[string]any{"job_id": guess, "wait_secs": 1}},
				{"exec_kill", map[string]any{"job_id": guess}},
			} {
				if code, out := callCode(t, b, call.name, call.args); code != "NOT_FOUND" {
					t.Errorf("B's %s %q: %s %v, want NOT_FOUND", call.name, call.args, code, out)
				}
			}
		}
		aTree.WantRunning(t, "B tried to kill A's job")
		if code, out := callCode(t, a, "exec_output", map[string]any{"job_id": aJob}); code != "" || out["status"] != "running" {
			t.Errorf("A reading its own job: %s %v", code, out)
		}
	})

	t.Run("DELETE of A's session answers once A's whole tree is dead", func(t *testing.T) {
		req, err := http.NewRequestWithContext(t.Context(), http.MethodDelete, srv.url, nil)
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
		aTree.WantGone(t, "DELETE answered")
		aTree.WaitGone(t)
		bTree.WantRunning(t, "A's session was deleted")
		if code, out := callCode(t, b, "exec_output", map[string]any{"job_id": bJob}); code != "" || out["status"] != "running" {
			t.Errorf("B reading its own job after A's session ended: %s %v", code, out)
		}
	})

	t.Run("SIGTERM of quiver serve kills B's tree, exit 0", func(t *testing.T) {
		if err := srv.cmd.Process.Signal(syscall.SIGTERM); err != nil {
			t.Fatal(err)
		}
		select {
		case <-srv.done:
		case <-time.After(30 * time.Second):
			t.Fatal("quiver serve did not exit within 30s of SIGTERM")
		}
		if srv.err != nil {
			t.Errorf("quiver serve after SIGTERM: %v, want exit 0", srv.err)
		}
		bTree.WaitGone(t)
	})
}

// stdioServe is `quiver serve --yes` on standard input and output, with a
// go-sdk client connected.
type stdioServe struct {
	cmd   *exec.Cmd
	stdin io.WriteCloser
	cs    *mcp.ClientSession
	done  chan struct{} // closed when the process has exited
	err   error
}

func startStdioServe(t *testing.T, dir string) *stdioServe {
	t.Helper()
	cmd, stdin, stdout := startPiped(t, dir, "serve", "--yes")
	s := &stdioServe{cmd: cmd, stdin: stdin, done: make(chan struct{})}
	go func() {
		s.err = cmd.Wait()
		close(s.done)
	}()
	t.Cleanup(func() {
		cmd.Process.Kill()
		<-s.done
	})
	var err error
	s.cs, err = mcp.NewClient(&mcp.Implementation{Name: "jobs", Version: "1"}, nil).
		Connect(t.Context(), &mcp.IOTransport{Reader: stdout, Writer: stdin}, nil)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// exited waits for the server to exit, and fails unless it exits 0.
func (s *stdioServe) exited(t *testing.T, why string) {
	t.Helper()
	select {
	case <-s.done:
	case <-time.After(30 * time.Second):
		t.Fatalf("quiver serve did not exit within 30s of %s", why)
	}
	if s.err != nil {
		t.Errorf("quiver serve after %s: %v, want exit 0", why, s.err)
	}
}

func TestServeStdioJobsEndWithTheSession(t *testing.T) {
	t.Run("the client closes standard input", func(t *testing.T) {
		dir := workdir(t, nil)
		s := startStdioServe(t, dir)
		_, tree := startTreeJob(t, s.cs, "stdin")
		s.stdin.Close()
		s.exited(t, "its standard input closed")
		tree.WaitGone(t)
	})
	t.Run("SIGTERM", func(t *testing.T) {
		dir := workdir(t, nil)
		s := startStdioServe(t, dir)
		_, tree := startTreeJob(t, s.cs, "term")
		if err := s.cmd.Process.Signal(syscall.SIGTERM); err != nil {
			t.Fatal(err)
		}
		s.exited(t, "SIGTERM")
		tree.WaitGone(t)
	})
}

// TestCallRefusesBackgroundJobs: quiver call runs one call and exits, and a
// job it started would die with it, unread; it refuses, naming the field,
// under every name of the tool, and starts nothing.
func TestCallRefusesBackgroundJobs(t *testing.T) {
	dir := workdir(t, nil)
	for _, name := range []string{"exec_command", "run_command"} {
		r := runCLI(t, dir, "", "--yes", "--json", "call", name, `{"command":"sleep 1000.3401","background":true}`)
		var got callJSON
		if err := json.Unmarshal([]byte(r.stdout), &got); err != nil {
			t.Fatalf("%s: %v\n%s", name, err, r.stdout)
		}
		if r.code != 1 || got.Error == nil || got.Error.Code != "INVALID_ARGUMENTS" || !strings.Contains(got.Error.Message, `field "background"`) || !strings.Contains(got.Error.Message, "quiver serve") {
			t.Errorf("quiver call %s in the background: exit %d, %+v; want INVALID_ARGUMENTS naming \"background\" and where jobs run", name, r.code, got.Error)
		}
	}
	if out, _ := exec.Command("pgrep", "-f", "sleep 1000.3401").Output(); len(out) != 0 {
		t.Errorf("a refused background call started its command: %s", out)
	}
	if r := runCLI(t, dir, "", "--yes", "call", "exec_command", `{"command":"echo foreground"}`); r.code != 0 || !strings.Contains(r.stdout, "foreground") {
		t.Errorf("a foreground quiver call: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
}
