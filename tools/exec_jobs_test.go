package tools

import (
	"strings"
	"testing"
	"time"

	"github.com/quiverkit/quiver/tool"
)

func (e *execEnv) jobCall(tl *tool.Tool, args string) (*ExecJobOutput, error) {
	e.t.Helper()
	res, err := e.call(tl, args)
	if err != nil {
		return nil, err
	}
	return res.Output.(*ExecJobOutput), nil
}

func (e *execEnv) jobCallOK(tl *tool.Tool, args string) *ExecJobOutput {
	e.t.Helper()
	out, err := e.jobCall(tl, args)
	if err != nil {
		e.t.Fatalf("%s %s: %v", tl.Name, args, err)
	}
	return out
}

func TestBackgroundJobRunsReportsAndStops(t *testing.T) {
	e := newExecEnv(t, "echo", "sleep")
	start := e.execOK(`{"command":"echo started; sleep 1000.501","background":true}`)
	if !strings.HasPrefix(start.JobID, "job_") || start.Status != "running" || !strings.Contains(start.Render().String(), "exec_output") {
		t.Fatalf("start: %+v", start)
	}
	var out *ExecJobOutput
	deadline := time.Now().Add(hangGuard)
	for out == nil || out.Output == "" {
		if time.Now().After(deadline) {
			t.Fatal("no output from the job")
		}
		out = e.jobCallOK(newExecOutput(), `{"job_id":"`+start.JobID+`"}`)
	}
	if out.Status != "running" || out.Output != "started\n" || out.ExitCode != nil || out.Command != "echo started; sleep 1000.501" {
		t.Errorf("running job: %+v", out)
	}
	if again := e.jobCallOK(newExecOutput(), `{"job_id":"`+start.JobID+`"}`); again.Output != "" || !strings.Contains(again.Render().String(), "(no new output)") {
		t.Errorf("second read: %+v", again)
	}
	killed := e.jobCallOK(newExecKill(), `{"job_id":"`+start.JobID+`"}`)
	if killed.Status != "killed" || killed.ExitCode != nil {
		t.Errorf("kill: %+v", killed)
	}
	wantGone(t, "sleep 1000.501")
	if after := e.jobCallOK(newExecOutput(), `{"job_id":"`+start.JobID+`"}`); after.Status != "killed" {
		t.Errorf("after kill: %+v", after)
	}
	if again := e.jobCallOK(newExecKill(), `{"job_id":"`+start.JobID+`"}`); again.Status != "killed" {
		t.Errorf("killing twice: %+v", again)
	}
}

func TestBackgroundJobWaitAndExitCode(t *testing.T) {
	e := newExecEnv(t, "echo", "sleep")
	job := e.execOK(`{"command":"sleep 0.3; echo done; exit 4","background":true}`).JobID
	// exec_output may wait ten times the hang guard; it must answer when the
	// job ends, so reaching the guard means it did not.
	type answer struct {
		out *ExecJobOutput
		err error
	}
	done := make(chan answer, 1)
	go func() {
		out, err := e.jobCall(newExecOutput(), `{"job_id":"`+job+`","wait_secs":600}`)
		done <- answer{out, err}
	}()
	var out *ExecJobOutput
	select {
	case a := <-done:
		if a.err != nil {
			t.Fatal(a.err)
		}
		out = a.out
	case <-time.After(hangGuard):
		t.Fatalf("exec_output with wait_secs 600 did not answer when its job ended")
	}
	if out.Status != "exited" || out.ExitCode == nil || *out.ExitCode != 4 || out.Output != "done\n" {
		t.Errorf("%+v", out)
	}
	if view := out.Render().String(); !strings.Contains(view, job+" (sleep 0.3; echo done; exit 4): exited, exit code 4") {
		t.Errorf("view:\n%s", view)
	}
}

func TestBackgroundJobRefusedByTheGate(t *testing.T) {
	e := newExecEnv(t, "echo")
	job := e.execOK(`{"command":"echo a; rm -rf x","background":true}`).JobID
	out := e.jobCallOK(newExecOutput(), `{"job_id":"`+job+`","wait_secs":30}`)
	if out.Status != "refused" || len(out.Refused) != 1 || out.Refused[0].Command != "rm -rf x" {
		t.Errorf("%+v", out)
	}
}

func TestBackgroundJobsEndWithTheToolkit(t *testing.T) {
	e := newExecEnv(t, "sleep")
	for range 2 {
		e.execOK(`{"command":"sleep 1000.511","background":true}`)
	}
	e.shared.Close() // what Toolkit.Close does with its shared dependencies
	wantGone(t, "sleep 1000.511")
}

func TestExecOutputBadInput(t *testing.T) {
	e := newExecEnv(t, "sleep")
	_, err := e.jobCall(newExecOutput(), `{"job_id":"job-9"}`)
	wantToolError(t, err, tool.CodeNotFound, `no job "job-9"`, "background: true")
	_, err = e.jobCall(newExecKill(), `{"job_id":"nope"}`)
	wantToolError(t, err, tool.CodeNotFound, `no job "nope"`)
	_, err = e.jobCall(newExecOutput(), `{"job_id":"job-1","wait_secs":-1}`)
	wantToolError(t, err, tool.CodeInvalidArguments, "wait_secs")
	_, err = e.jobCall(newExecOutput(), `{"job_id":"job-1","wait_secs":601}`)
	wantToolError(t, err, tool.CodeInvalidArguments, "from 0 to 600")
	_, err = e.jobCall(newExecOutput(), `{}`)
	wantToolError(t, err, tool.CodeInvalidArguments, "job_id")
}
