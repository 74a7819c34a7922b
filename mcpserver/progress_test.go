//go:build linux

package mcpserver_test

//lint:file-ignore SA1019 the server declares logging for the protocol versions it serves; these tests read its records

import (
	"context"
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/quiverkit/quiver"
	"github.com/quiverkit/quiver/mcpserver"
	"github.com/quiverkit/quiver/policy"
	"github.com/quiverkit/quiver/provider/builtin"
	"github.com/quiverkit/quiver/sandbox/sandboxtest"
	"github.com/quiverkit/quiver/tool"
)

// hangGuard bounds each wait of these tests: a guard against a hang, never
// a timing assertion.
const hangGuard = time.Minute

// notified is what a client received besides answers.
type notified struct {
	progress chan *mcp.ProgressNotificationParams
	logs     chan *mcp.LoggingMessageParams
}

// progressClient serves the standard tools over stdio, reporting progress
// every few milliseconds, and connects a client that records the
// notifications it gets.
func progressClient(t *testing.T) (*mcp.ClientSession, notified) {
	t.Helper()
	tk, err := quiver.New(quiver.WithRoot(t.TempDir()), builtin.Standard(), quiver.WithPolicy(policy.AllowAll()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tk.Close() })
	srv, err := mcpserver.New(t.Context(), tk, mcpserver.Options{ProgressInterval: 10 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	n := notified{progress: make(chan *mcp.ProgressNotificationParams, 1024), logs: make(chan *mcp.LoggingMessageParams, 64)}
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- srv.Run(context.Background(), inR, outW)
		outW.Close()
	}()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "progress", Version: "1"}, &mcp.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, r *mcp.ProgressNotificationClientRequest) {
			select {
			case n.progress <- r.Params:
			default: // a slow test drops reports rather than block the client
			}
		},
		LoggingMessageHandler: func(_ context.Context, r *mcp.LoggingMessageRequest) { n.logs <- r.Params },
	}).Connect(t.Context(), &mcp.IOTransport{Reader: outR, Writer: inW}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cs.Close()
		<-done
	})
	return cs, n
}

// callAsync calls exec_command with a progress token; the call's outcome
// arrives on the returned channel.
func callAsync(ctx context.Context, cs *mcp.ClientSession, args map[string]any) <-chan error {
	ended := make(chan error, 1)
	go func() {
		p := &mcp.CallToolParams{Name: "exec_command", Arguments: args}
		p.SetProgressToken("tok-1")
		res, err := cs.CallTool(ctx, p)
		if err == nil && res.IsError {
			err = errors.New("error result")
		}
		ended <- err
	}()
	return ended
}

// waitProgress returns the first report whose message contains want.
func waitProgress(t *testing.T, n notified, want string) *mcp.ProgressNotificationParams {
	t.Helper()
	guard := time.After(hangGuard)
	for {
		select {
		case p := <-n.progress:
			if strings.Contains(p.Message, want) {
				return p
			}
		case <-guard:
			t.Fatalf("no progress report containing %q", want)
		}
	}
}

// A call with a progress token is reported on while it runs: the token,
// the seconds elapsed (growing), and the last lines of the output, bounded
// in lines and bytes however much the command printed.
func TestProgressCarriesTheOutputsBoundedTail(t *testing.T) {
	cs, n := progressClient(t)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	// 5,000 lines, then a line of 3,000 bytes (longer than the bound), then
	// the marker, then a wait for ever.
	ended := callAsync(ctx, cs, map[string]any{"command": "seq 1 5000; head -c 3000 /dev/zero | tr '\\0' x; echo; echo PRINTED; sleep 600"})
	first := waitProgress(t, n, "PRINTED")
	second := waitProgress(t, n, "PRINTED")
	if first.ProgressToken != "tok-1" {
		t.Errorf("progress token %v, want tok-1", first.ProgressToken)
	}
	if !(second.Progress > first.Progress && first.Progress > 0) {
		t.Errorf("progress %v then %v: want the seconds elapsed, growing", first.Progress, second.Progress)
	}
	head, tail, ok := strings.Cut(second.Message, "; last output:\n")
	if !ok || !strings.HasPrefix(head, "running for ") {
		t.Fatalf("message %q: want \"running for T; last output:\\n\" and the tail", second.Message)
	}
	if len(tail) > tool.MaxStatusBytes {
		t.Errorf("tail of %d bytes, want at most tool.MaxStatusBytes (%d)", len(tail), tool.MaxStatusBytes)
	}
	if !strings.HasSuffix(tail, "xxx\nPRINTED") || strings.Contains(tail, "5000") {
		t.Errorf("tail %q: want the end of the long line and the marker, nothing before the bound", tail)
	}
	cancel()
	if err := waitEnded(t, ended); err == nil {
		t.Error("the cancelled call succeeded")
	}
}

// Cancelling a call that reports progress still kills its whole process
// tree, and the reports stop.
func TestProgressCancelKillsTheTree(t *testing.T) {
	cs, n := progressClient(t)
	tree := sandboxtest.NewTree(t)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	ended := callAsync(ctx, cs, map[string]any{"argv": tree.Argv()})
	tree.WaitStarted(t, 1)
	waitProgress(t, n, "running for")
	cancel()
	waitEnded(t, ended)
	tree.WaitGone(t)
}

func waitEnded(t *testing.T, ended <-chan error) error {
	t.Helper()
	select {
	case err := <-ended:
		return err
	case <-time.After(hangGuard):
		t.Fatal("the call did not end")
		return nil
	}
}

// The server sends a log record about each call to a client that asked
// for records: info for a call that succeeded, warning with the code for
// one that failed.
func TestLogRecordsAboutCalls(t *testing.T) {
	cs, n := progressClient(t)
	if err := cs.SetLoggingLevel(t.Context(), &mcp.SetLoggingLevelParams{Level: "info"}); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		args  map[string]any
		level mcp.LoggingLevel
		want  string
	}{
		{map[string]any{"argv": []string{"true"}}, "info", "ok"},
		{map[string]any{"argv": []string{"true"}, "timeout_secs": 100000}, "warning", string(tool.CodeInvalidArguments)},
	} {
		if _, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "exec_command", Arguments: tt.args}); err != nil {
			t.Fatal(err)
		}
		select {
		case rec := <-n.logs:
			data, _ := rec.Data.(map[string]any)
			if rec.Level != tt.level || data["tool"] != "exec_command" || data["status"] != tt.want || data["call"] == "" {
				t.Errorf("record %+v: want level %s, tool exec_command, status %s and the call id", rec, tt.level, tt.want)
			}
		case <-time.After(hangGuard):
			t.Fatalf("no log record about the call %v", tt.args)
		}
	}
}
