//go:build unix

package tools

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/quiverkit/quiver/outputcache"
	"github.com/quiverkit/quiver/tool"
)

// send writes chars to the session, then reads it until its output holds
// want (or the hang guard passes), and returns the last answer and all the
// output read.
func (e *execEnv) send(session, chars, want string) (*ExecJobOutput, string) {
	e.t.Helper()
	args := func(c string) string {
		return `{"session_id":"` + session + `","chars":` + jsonString(c) + `,"yield_time_ms":100}`
	}
	out := e.jobCallOK(newWriteStdin(), args(chars))
	seen := out.Output
	deadline := time.Now().Add(hangGuard)
	for !strings.Contains(seen, want) && out.Status == "running" {
		if time.Now().After(deadline) {
			e.t.Fatalf("after %q: no %q in %q", chars, want, seen)
		}
		out = e.jobCallOK(newWriteStdin(), args(""))
		seen += out.Output
	}
	if !strings.Contains(seen, want) {
		e.t.Fatalf("after %q: %q ended (%s) without printing %q", chars, session, out.Status, want)
	}
	return out, seen
}

func jsonString(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`)
	return `"` + r.Replace(s) + `"`
}

// A program started with yield_time_ms answers while it still runs, with a
// session id; write_stdin sends it three inputs and reads each answer; the
// last input ends it, with its exit code.
func TestInteractiveSessionTakesInput(t *testing.T) {
	for _, tt := range []struct {
		name   string
		argv   string
		inputs [][2]string // what to send, what it prints
		exit   string
	}{
		{"python3 -i", `["python3","-i","-q"]`, [][2]string{
			{"print(6*7)\n", "42"}, {"x = 'quiv' + 'er'\n", ">>>"}, {"print(x.upper())\n", "QUIVER"}}, "exit()\n"},
		{"sh", `["sh"]`, [][2]string{
			{"echo $((6*7))\n", "42"}, {"x=quiver\n", ""}, {"echo $x | tr a-z A-Z\n", "QUIVER"}}, "exit\n"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			e := newExecEnv(t, "python3", "sh")
			start := e.execOK(`{"argv":` + tt.argv + `,"yield_time_ms":50}`)
			if start.SessionID == "" || start.Status != "running" || !strings.Contains(start.Render().String(), "write_stdin") {
				t.Fatalf("start: %+v", start)
			}
			for _, in := range tt.inputs {
				e.send(start.SessionID, in[0], in[1])
			}
			end, _ := e.send(start.SessionID, tt.exit, "")
			if end.Status == "running" { // wait_secs is the hang guard
				end = e.jobCallOK(newExecOutput(), `{"job_id":"`+start.SessionID+`","wait_secs":60}`)
			}
			if end.Status != "exited" || end.ExitCode == nil || *end.ExitCode != 0 {
				t.Errorf("after exit: %+v", end)
			}
		})
	}
}

// A command that ends within yield_time_ms is answered as a foreground one
// is: its exit code and output, no session.
func TestYieldTimeCommandThatEnds(t *testing.T) {
	e := newExecEnv(t, "echo")
	out := e.execOK(`{"command":"echo hi; exit 3","yield_time_ms":60000}`)
	if out.SessionID != "" || out.ExitCode != 3 || out.Output != "hi\n" || !strings.HasPrefix(out.Render().String(), "exit code 3") {
		t.Errorf("%+v", out)
	}
}

// Bad input names its field: a background job takes no input, an unknown
// session is NOT_FOUND, yield_time_ms is bounded and excludes background.
func TestWriteStdinBadInput(t *testing.T) {
	e := newExecEnv(t, "sleep")
	job := e.execOK(`{"command":"sleep 1000.531","background":true}`).JobID
	for _, tt := range []struct {
		tool *tool.Tool
		args string
		code tool.Code
		want string
	}{
		{newWriteStdin(), `{"session_id":"` + job + `","chars":"x"}`, tool.CodeInvalidArguments, "takes no input"},
		{newWriteStdin(), `{"session_id":"job_nope","chars":"x"}`, tool.CodeNotFound, `field "session_id"`},
		{newWriteStdin(), `{"session_id":"` + job + `","yield_time_ms":700000}`, tool.CodeInvalidArguments, `"yield_time_ms"`},
		{newExecCommand(), `{"command":"sleep 1","yield_time_ms":700000}`, tool.CodeInvalidArguments, `"yield_time_ms"`},
		{newExecCommand(), `{"command":"sleep 1","yield_time_ms":1,"background":true}`, tool.CodeInvalidArguments, `not both`},
	} {
		_, err := e.call(tt.tool, tt.args)
		var te *tool.Error
		if !errors.As(err, &te) || te.Code != tt.code || !strings.Contains(te.Message, tt.want) {
			t.Errorf("%s %s: %v, want %s mentioning %s", tt.tool.Name, tt.args, err, tt.code, tt.want)
		}
	}
}

// A session's whole output is stored behind a ref like any other output:
// every answer names it, and once the session ends a model pages and greps
// it with tool_output_cache and tool_output_cache_grep, though each answer
// showed only a trimmed part. While it runs, reading it is a retriable
// error that says when it can be read.
func TestSessionOutputIsStoredBehindARef(t *testing.T) {
	e := newExecEnv(t, "sh", "seq")
	store, err := outputcache.NewDirStore(outputcache.DirOptions{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	e.override(outputcache.Key.ID, func(context.Context) (any, error) { return outputcache.Store(store), nil })
	start := e.execOK(`{"argv":["sh"],"yield_time_ms":50}`)
	if start.SessionID == "" || start.OutputRef == "" || !strings.Contains(start.Render().String(), "ref="+start.OutputRef) {
		t.Fatalf("start: %+v", start)
	}
	ref := start.OutputRef
	out, _ := e.send(start.SessionID, "seq 1 100000; echo seq-done\n", "seq-done")
	if out.OutputRef != ref {
		t.Errorf("write_stdin names ref %q, the session's is %q", out.OutputRef, ref)
	}
	_, err = e.call(newToolOutputCache(), `{"ref_id":"`+ref+`"}`)
	te := wantToolError(t, err, tool.CodeExecutionFailed, "session")
	if !te.Retriable {
		t.Errorf("reading a running session's ref: %v, want a retriable error", err)
	}
	end, _ := e.send(start.SessionID, "echo bye; exit 0\n", "bye")
	if end.Status == "running" { // wait_secs is the hang guard
		end = e.jobCallOK(newExecOutput(), `{"job_id":"`+start.SessionID+`","wait_secs":60}`)
	}
	if end.Status != "exited" || end.OutputRef != ref || end.Render().OutputRef != ref {
		t.Fatalf("end: %+v", end)
	}

	res, err := e.call(newToolOutputCache(), `{"ref_id":"`+ref+`","offset":50000,"limit":3}`)
	if err != nil {
		t.Fatal(err)
	}
	page := res.Output.(*ToolOutputCacheOutput)
	if page.StartLine != 50000 || page.EndLine != 50002 || !strings.Contains(page.Content, "50001") {
		t.Errorf("page at 50000: lines %d-%d %q", page.StartLine, page.EndLine, page.Content)
	}
	if page.TotalLines < 100002 {
		t.Errorf("the ref holds %d lines, want the session's whole output (100,000 of seq, its two echoes)", page.TotalLines)
	}
	res, err = e.call(newToolOutputCacheGrep(), `{"ref_id":"`+ref+`","pattern":"^7777[0-9]$","regex":true}`)
	if err != nil {
		t.Fatal(err)
	}
	if g := res.Output.(*ToolOutputCacheGrepOutput); g.Matches != 10 || !strings.Contains(g.Content, "77777") {
		t.Errorf("grep: %d matches: %q", g.Matches, g.Content)
	}
}
