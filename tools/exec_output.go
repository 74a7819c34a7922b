package tools

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/quiverkit/quiver/internal/shell"
	"github.com/quiverkit/quiver/outputcache"
	"github.com/quiverkit/quiver/sandbox"
	"github.com/quiverkit/quiver/tool"
)

//go:embed exec_output.md
var execOutputDescription string

// ExecOutputInput is exec_output's input.
type ExecOutputInput struct {
	JobID    string `json:"job_id" jsonschema:"the job id exec_command returned (job_...), exactly; only your session's jobs are found" minLength:"1"`
	WaitSecs *int   `json:"wait_secs,omitempty" jsonschema:"wait up to this many seconds for the job to finish (default 0: answer at once); use it rather than calling again and again" minimum:"0"`
}

// ExecJobOutput is the state of a background job and the output it printed
// since it was last read; exec_output and exec_kill return it.
type ExecJobOutput struct {
	JobID     string        `json:"job_id"`
	Command   string        `json:"command"`
	Status    string        `json:"status"`              // running, exited, killed, timeout, refused, failed
	ExitCode  *int          `json:"exit_code,omitempty"` // once exited
	Output    string        `json:"output"`              // new since the last read; head and tail with a marker when Truncated
	Truncated bool          `json:"truncated"`
	NewBytes  int64         `json:"new_bytes"`
	LogFile   string        `json:"log_file"`             // the job's whole output: the host's to read (sandbox.PrivateDir)
	OutputRef string        `json:"output_ref,omitempty"` // the job's whole output in the output cache, readable once it has ended
	ElapsedMS int64         `json:"elapsed_ms"`
	Refused   []ExecRefusal `json:"refused,omitempty"`
	Error     string        `json:"error,omitempty"` // the job could not start
}

// ExecOutput is a typed reference to exec_output, for quiver.Call.
var ExecOutput = tool.RefTo[ExecOutputInput, *ExecJobOutput]("exec_output")

func newExecOutput() *tool.Tool {
	return tool.Func("exec_output", execOutputDescription, execOutput, summaryOf("job_id"), tool.ReadOnly())
}

func execOutput(ctx context.Context, tc tool.Context, in ExecOutputInput) (*ExecJobOutput, error) {
	cfg, err := tool.Resolve(ctx, tc, ExecConfigKey)
	if err != nil {
		return nil, err
	}
	cfg = cfg.withDefaults()
	var wait time.Duration
	if in.WaitSecs != nil {
		secs := *in.WaitSecs
		if secs < 0 || time.Duration(secs)*time.Second > cfg.MaxTimeout {
			return nil, tool.Errorf(tool.CodeInvalidArguments, "field \"wait_secs\" is %d; give a number of seconds from 0 to %d", secs, int(cfg.MaxTimeout/time.Second))
		}
		wait = time.Duration(secs) * time.Second
	}
	job, err := findJob(ctx, tc, "job_id", in.JobID)
	if err != nil {
		return nil, err
	}
	split, err := budgetSplit(ctx, tc)
	if err != nil {
		return nil, err
	}
	snap, err := job.Wait(ctx, wait, split)
	if err != nil {
		return nil, tool.Errorf(tool.CodeExecutionFailed, "%w", err)
	}
	return jobAnswer(ctx, tc, job, snap)
}

// findJob returns the job with id that the call's session started (see
// tool.WithSession). Another session's job is NOT_FOUND with the very
// message an id nobody has gets: its existence does not leak.
func findJob(ctx context.Context, tc tool.Context, field, id string) (*shell.Job, error) {
	jobs, err := tool.Resolve(ctx, tc, jobsKey)
	if err != nil {
		return nil, err
	}
	job, err := jobs.Get(tool.SessionOf(ctx), id)
	if errors.Is(err, shell.ErrUnknownJob) {
		return nil, tool.Errorf(tool.CodeNotFound, "field %q: this session has no job %q; exec_command with background: true or yield_time_ms returns job and session ids (a session sees only the jobs it started; finished jobs are forgotten after a while, and all of a session's when it ends)", field, id).WithCause(err)
	}
	return job, err
}

// jobAnswer is what a call that observes a job (exec_command's session,
// write_stdin, exec_output, exec_kill) answers: the job's output, or, once
// the job has ended at one of its [sandbox.limits] limits, the
// LIMIT_EXCEEDED error a command in the foreground gets (limitError),
// naming the job. Every observation of that end answers so. The hosts the
// job's processes asked the network proxy for since it was last observed
// go into this call's audit record (the call's sandbox profile counts
// them), whatever the answer: the call that started the job has written
// its own.
func jobAnswer(ctx context.Context, tc tool.Context, job *shell.Job, snap shell.Snapshot) (*ExecJobOutput, error) {
	if box, err := tool.Resolve(ctx, tc, sandbox.Key); err == nil {
		box.Contacts().Merge(snap.Contacts, snap.ContactsOmitted)
	}
	out := jobOutput(snap)
	if snap.Running || snap.Err != nil {
		return out, nil
	}
	if e := limitError(job.Sandbox, snap.Outcome, job, out.commandOutput()); e != nil {
		return nil, e.WithDetail("job_id", job.ID)
	}
	return out, nil
}

// jobOutput turns a job's snapshot into the tool's output.
func jobOutput(s shell.Snapshot) *ExecJobOutput {
	out := &ExecJobOutput{JobID: s.ID, Command: s.Command, Status: "running", LogFile: s.LogFile,
		ElapsedMS: s.Elapsed.Milliseconds(), Truncated: s.Output.Truncated, NewBytes: s.Output.TotalBytes}
	kept := outputcache.Kept{File: s.LogFile}
	if s.Ref != "" && s.WholeErr == nil {
		out.OutputRef = s.Ref
		if !s.Running {
			kept = outputcache.Kept{Ref: s.Ref}
		}
	}
	out.Output = s.Output.Text(kept)
	if s.Running {
		return out
	}
	out.Refused = refusals(s.Outcome.Refused)
	switch {
	case s.Err != nil:
		out.Status, out.Error = "failed", s.Err.Error()
		return out
	case s.Outcome.Stop == shell.Finished:
		out.Status = "exited"
	case s.Outcome.Stop == shell.TimedOut:
		out.Status = "timeout"
	case s.Outcome.Stop == shell.Refused:
		out.Status = "refused"
	default:
		out.Status = "killed"
	}
	if s.Outcome.ExitCode >= 0 {
		code := s.Outcome.ExitCode
		out.ExitCode = &code
	}
	return out
}

// Render is the model's view: the job's status line and its new output.
func (o *ExecJobOutput) Render() tool.Result {
	var b strings.Builder
	fmt.Fprintf(&b, "%s (%s): %s", o.JobID, o.Command, o.Status)
	if o.ExitCode != nil {
		fmt.Fprintf(&b, ", exit code %d", *o.ExitCode)
	}
	fmt.Fprintf(&b, " · %s", formatDuration(o.ElapsedMS))
	if o.OutputRef != "" {
		when := "; readable with " + outputcache.ReadTool + " once it ends"
		if o.Status != "running" {
			when = ": read it with " + outputcache.ReadTool + " or search it with " + outputcache.GrepTool
		}
		fmt.Fprintf(&b, " · whole output ref=%s%s", o.OutputRef, when)
	}
	b.WriteByte('\n')
	if o.Error != "" {
		fmt.Fprintf(&b, "error: %s\n", o.Error)
	}
	for _, r := range o.Refused {
		fmt.Fprintf(&b, "REFUSED %s: %s (the run stopped here)\n", r.Command, r.Reason)
	}
	if o.Output == "" {
		b.WriteString("(no new output)")
	} else {
		b.WriteString(o.Output)
	}
	res := tool.Text(b.String())
	if o.Status != "running" {
		res.OutputRef = o.OutputRef // sealed
	}
	return res
}
