package tools

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"time"

	"github.com/quiverkit/quiver/internal/shell"
	"github.com/quiverkit/quiver/outputcache"
	"github.com/quiverkit/quiver/sandbox"
	"github.com/quiverkit/quiver/tool"
	"github.com/quiverkit/quiver/workspace"
)

//go:embed exec_command.md
var execCommandDescription string

// ExecCommandInput is exec_command's input.
type ExecCommandInput struct {
	Command     string   `json:"command,omitempty" jsonschema:"a bash command line, run by Quiver's own shell (pipes, &&, $(...), redirections to files in the workspace); give this or argv, not both"`
	Argv        []string `json:"argv,omitempty" jsonschema:"a program and its arguments, run without a shell: [\"go\", \"test\", \"./...\"]; give this or command, not both"`
	Workdir     string   `json:"workdir,omitempty" jsonschema:"the directory to run in, relative to the workspace root (default: the root); cd does not carry over between calls"`
	TimeoutSecs *int     `json:"timeout_secs,omitempty" jsonschema:"seconds before the command and everything it started are killed with a TIMEOUT error holding the output so far (default 120, at most 600)" minimum:"1"`
	Env         []string `json:"env,omitempty" jsonschema:"extra environment variables, each NAME=VALUE; the host's environment is not passed on"`
	Background  bool     `json:"background,omitempty" jsonschema:"start the command as a background job and return its id at once (servers, watchers, long builds); read it with exec_output, stop it with exec_kill; your session's jobs are killed when it ends. Processes a command leaves behind without this are killed when it ends"`
	YieldTimeMS *int     `json:"yield_time_ms,omitempty" jsonschema:"answer after this many milliseconds with the output so far and, if the command still runs, a session_id to send it input with write_stdin (at most timeout_secs' limit)" minimum:"0"`
	TTY         bool     `json:"tty,omitempty" jsonschema:"run it in a pseudo-terminal (for programs that need one: REPLs, prompts, pagers); input is echoed, and write_stdin's \u0003 is Ctrl-C"`
}

// ExecCommandOutput is exec_command's typed output.
type ExecCommandOutput struct {
	ExitCode   int           `json:"exit_code"`
	Output     string        `json:"output"` // stdout and stderr interleaved; head and tail with a marker when Truncated
	DurationMS int64         `json:"duration_ms"`
	Truncated  bool          `json:"truncated"`
	TotalBytes int64         `json:"total_bytes"`
	OutputRef  string        `json:"output_ref,omitempty"`  // the whole output in the output cache
	OutputFile string        `json:"output_file,omitempty"` // the whole output in a file, when there is no output cache: the host's to read (sandbox.OwnDir), kept until the toolkit closes within ExecConfig's overflow caps
	Refused    []ExecRefusal `json:"refused,omitempty"`
	JobID      string        `json:"job_id,omitempty"`     // background: the job's id
	SessionID  string        `json:"session_id,omitempty"` // yield_time_ms: the still running command's id, for write_stdin (and exec_output, exec_kill)
	Status     string        `json:"status,omitempty"`     // background, yield_time_ms: "running"
}

// ExecRefusal is a command (or a write) the policy refused while the command
// line ran; the run stopped there.
type ExecRefusal struct {
	Command string `json:"command"`
	Reason  string `json:"reason"`
}

// ExecCommand is a typed reference to exec_command, for quiver.Call.
var ExecCommand = tool.RefTo[ExecCommandInput, *ExecCommandOutput]("exec_command")

// ExecConfig configures exec_command and its jobs. A host sets it through
// [ExecConfigKey]; zero fields take their defaults.
type ExecConfig struct {
	DefaultTimeout time.Duration // 120 s
	MaxTimeout     time.Duration // 600 s; also the longest exec_output wait
	// EnvAllow names variables of the host's environment passed on to
	// commands besides the built-in allowlist (PATH, HOME, USER, LANG,
	// TERM, TMPDIR...): names, or patterns such as "GO*".
	EnvAllow []string
	// OverflowMaxBytes and OverflowMaxFiles bound the files that keep a
	// command's whole output when the toolkit has no output cache
	// (output_file): the newest files within both are kept, older ones
	// removed first, and one output is cut at OverflowMaxBytes. All are
	// removed when the toolkit closes. 1 GiB and 64.
	OverflowMaxBytes int64
	OverflowMaxFiles int
}

// ExecConfigKey is the dependency key of exec_command's configuration.
var ExecConfigKey = tool.Key[ExecConfig]{ID: "quiver.exec.config", Shared: true,
	Create: func(context.Context) (ExecConfig, error) { return ExecConfig{}.withDefaults(), nil }}

func (c ExecConfig) withDefaults() ExecConfig {
	if c.DefaultTimeout <= 0 {
		c.DefaultTimeout = 120 * time.Second
	}
	if c.MaxTimeout <= 0 {
		c.MaxTimeout = 600 * time.Second
	}
	c.DefaultTimeout = min(c.DefaultTimeout, c.MaxTimeout)
	if c.OverflowMaxBytes <= 0 {
		c.OverflowMaxBytes = 1 << 30
	}
	if c.OverflowMaxFiles <= 0 {
		c.OverflowMaxFiles = 64
	}
	return c
}

// jobsKey is the toolkit-wide registry of background jobs. It is Shared, so
// jobs outlive the call that started them; an io.Closer, so the toolkit's
// Close kills them; and a tool.SessionCloser, so the end of the session that
// started a job kills it (Toolkit.EndSession).
var jobsKey = tool.Key[*shell.Jobs]{ID: "quiver.exec.jobs", Shared: true,
	Create: func(context.Context) (*shell.Jobs, error) { return shell.NewJobs(), nil }}

func newExecCommand() *tool.Tool {
	return withPathArgs(tool.Func("exec_command", execCommandDescription, execCommand, commandView,
		tool.WithRisk(tool.RiskHigh),
		tool.WithAnnotations(tool.Annotations{Destructive: true, OpenWorld: true}),
		tool.WithCallRisk(execRisk),
		tool.ReadOnlyWhenLowRisk(),
		tool.WithSubjects(func(in ExecCommandInput) []tool.Subject {
			return []tool.Subject{{Kind: tool.SubjectCommand, Value: in.line()}}
		})),
		onePath("workdir", aDir, func(in ExecCommandInput) string { return in.Workdir }))
}

// execRisk rates a call low when the toolkit's command classifier
// ([tool.CommandClassifierKey], the one the command gate checks each command
// with as it runs) accepts it and it changes no variable that changes what
// programs do. A line is judged by [shell.ReadOnlyCommand]: an operator's
// entry ([exec] low_risk_commands) counts only for a line that is that
// command alone. argv is one command, judged as such. A call with env is
// judged by the built-in list too: an entry vouches for a command, not for
// the variables it is given. No classifier, no low-risk call. A low rating
// an operator's entry vouched for names the entry (the classifier's by),
// which the audit record gives as the rule that let the call run.
func execRisk(ctx context.Context, tc tool.Context, in ExecCommandInput) tool.Rating {
	high := tool.Rating{Risk: tool.RiskHigh}
	classify, err := tool.Resolve(ctx, tc, tool.CommandClassifierKey)
	if err != nil || classify == nil {
		return high
	}
	by := ""
	check := func(argv []string) bool {
		ok, b := classify(argv)
		if ok && b != "" {
			by = b // only a command alone on its line counts an entry
		}
		return ok
	}
	for _, kv := range in.Env {
		if name, _, _ := strings.Cut(kv, "="); shell.UnsafeEnv(name) || name == "PATH" {
			return high
		}
		check = func(argv []string) bool {
			ok, _ := classify(argv)
			return shell.ReadOnlyArgv(argv, nil) && ok
		}
	}
	readOnly := false
	switch {
	case in.Argv != nil && in.Command == "":
		readOnly = len(in.Argv) > 0 && check(in.Argv)
	case in.Argv == nil:
		readOnly = shell.ReadOnlyCommand(in.Command, check)
	}
	if readOnly {
		return tool.Rating{Risk: tool.RiskLow, By: by}
	}
	return high
}

// line is the call's command as one shell line: the command, or argv quoted.
func (in ExecCommandInput) line() string {
	if in.Argv != nil {
		return shell.Join(in.Argv)
	}
	return in.Command
}

func execCommand(ctx context.Context, tc tool.Context, in ExecCommandInput) (*ExecCommandOutput, error) {
	cfg, err := tool.Resolve(ctx, tc, ExecConfigKey)
	if err != nil {
		return nil, err
	}
	cfg = cfg.withDefaults()
	if in.Background && tool.OneCallSession(ctx) {
		return nil, oneCallBackground()
	}
	if in.Background && in.YieldTimeMS != nil {
		return nil, tool.Errorf(tool.CodeInvalidArguments, "give \"background\" (no input, no wait) or \"yield_time_ms\" (a session that takes input), not both")
	}
	timeout, err := checkExecInput(in, cfg)
	if err != nil {
		return nil, err
	}
	spec, err := execSpec(ctx, tc, in, cfg)
	if err != nil {
		return nil, err
	}
	if in.TTY {
		// Owned from here by the run or the job that gets it.
		if spec.TTY, err = shell.OpenTTY(); err != nil {
			return nil, tool.Errorf(tool.CodeExecutionFailed, "field \"tty\": %w", err)
		}
	}
	if in.Background {
		return startJob(ctx, tc, spec, in)
	}
	if in.YieldTimeMS != nil && !tool.OneCallSession(ctx) {
		return startSession(ctx, tc, spec, in)
	}
	return runForeground(ctx, tc, spec, timeout)
}

// oneCallBackground refuses a job that would be killed, unread, as its call
// returns: the session of a one-call host (quiver call) ends with the call,
// and its jobs with it.
func oneCallBackground() error {
	return tool.Errorf(tool.CodeInvalidArguments,
		"field \"background\": this call's session ends when the call returns (quiver call runs one call and exits), and a background job would be killed with it; run the command in the foreground, or start it from a session that lasts (quiver serve, quiver run, a program using the library)")
}

// checkExecInput refuses bad input with the field it concerns, and returns
// the timeout.
func checkExecInput(in ExecCommandInput, cfg ExecConfig) (time.Duration, error) {
	switch {
	case in.Command != "" && in.Argv != nil:
		return 0, tool.Errorf(tool.CodeInvalidArguments, "give either \"command\" (a shell line) or \"argv\" (a program and its arguments), not both")
	case in.Command == "" && in.Argv == nil:
		return 0, tool.Errorf(tool.CodeInvalidArguments, "give \"command\" (a shell line) or \"argv\" (a program and its arguments)")
	case in.Argv == nil && strings.TrimSpace(in.Command) == "":
		return 0, tool.Errorf(tool.CodeInvalidArguments, "field \"command\" is empty; give the command line to run")
	case in.Argv != nil && (len(in.Argv) == 0 || in.Argv[0] == ""):
		return 0, tool.Errorf(tool.CodeInvalidArguments, "field \"argv\" must start with the program to run")
	case strings.IndexByte(in.Command, 0) >= 0:
		return 0, tool.Errorf(tool.CodeInvalidArguments, "field \"command\" contains a NUL byte")
	}
	for i, a := range in.Argv {
		if strings.IndexByte(a, 0) >= 0 {
			return 0, tool.Errorf(tool.CodeInvalidArguments, "field \"argv\"[%d] contains a NUL byte", i)
		}
	}
	for i, kv := range in.Env {
		if !shell.ValidEnvEntry(kv) {
			return 0, tool.Errorf(tool.CodeInvalidArguments, "field \"env\"[%d] %q is not NAME=VALUE with a name of letters, digits and _ (not starting with a digit)", i, kv)
		}
	}
	if in.Argv == nil {
		if _, err := shell.Parse(in.Command); err != nil {
			return 0, tool.Errorf(tool.CodeInvalidArguments, "field \"command\": shell syntax error at %w", err)
		}
	}
	if in.YieldTimeMS != nil && (*in.YieldTimeMS < 0 || time.Duration(*in.YieldTimeMS)*time.Millisecond > cfg.MaxTimeout) {
		return 0, tool.Errorf(tool.CodeInvalidArguments, "field \"yield_time_ms\" is %d; give a number of milliseconds from 0 to %d", *in.YieldTimeMS, cfg.MaxTimeout.Milliseconds())
	}
	timeout := cfg.DefaultTimeout
	if in.TimeoutSecs != nil {
		secs := *in.TimeoutSecs
		if secs < 1 || time.Duration(secs)*time.Second > cfg.MaxTimeout {
			return 0, tool.Errorf(tool.CodeInvalidArguments, "field \"timeout_secs\" is %d; give a number of seconds from 1 to %d", secs, int(cfg.MaxTimeout/time.Second))
		}
		timeout = time.Duration(secs) * time.Second
	}
	return timeout, nil
}

// execSpec builds the run's spec: the gate (without one nothing runs), the
// working directory inside the workspace, the environment.
func execSpec(ctx context.Context, tc tool.Context, in ExecCommandInput, cfg ExecConfig) (shell.Spec, error) {
	gate, err := tool.Resolve(ctx, tc, tool.CommandGateKey)
	if err != nil {
		return shell.Spec{}, tool.Errorf(tool.CodeToolNotAllowed, "exec_command runs commands only under the toolkit's command gate (its policy), and none is provided; nothing was run")
	}
	ws, err := workspace.From(ctx, tc)
	if err != nil {
		return shell.Spec{}, err
	}
	dir, err := execDir(ws, in.Workdir)
	if err != nil {
		return shell.Spec{}, err
	}
	box, err := sandbox.For(ctx, tc, ws.Dir())
	if err != nil {
		return shell.Spec{}, sandbox.ToolError(err)
	}
	base := sandbox.HostEnv(cfg.EnvAllow)
	return shell.Spec{Command: in.Command, Argv: in.Argv, Dir: dir, Env: sandbox.MergeEnv(base, in.Env),
		BaseEnv: base, Workspace: ws, Gate: gate, Sandbox: box}, nil
}

// execDir returns the absolute directory to run in: workdir, which must be
// a directory inside the workspace.
func execDir(ws *workspace.Workspace, workdir string) (string, error) {
	if workdir == "" {
		return ws.Dir(), nil
	}
	rel, _, err := pathArg(ws, "workdir", workdir, aDir)
	if err != nil {
		return "", err
	}
	if filepath.IsAbs(rel) {
		return rel, nil
	}
	return filepath.Join(ws.Dir(), filepath.FromSlash(rel)), nil
}

// progressLines bounds the tail of the output a progress report shows (and
// tool.MaxStatusBytes its size): enough to see which test or package a
// build is at.
const progressLines = 10

// outputLocation is where the whole output went: a ref in the output cache
// or a file.
type outputLocation struct {
	ref, file string
	limit     int64 // the file holds at most the output's first limit bytes
}

// runForeground runs the command to its end (or its timeout) and returns
// its output's head and tail, the whole output stored behind a ref or in a
// file when it outgrew the budget.
func runForeground(ctx context.Context, tc tool.Context, spec shell.Spec, timeout time.Duration) (*ExecCommandOutput, error) {
	if spec.TTY != nil {
		defer spec.TTY.Close()
	}
	split, err := budgetSplit(ctx, tc)
	if err != nil {
		return nil, err
	}
	var where outputLocation
	spool := shell.NewSpool(split, func() (io.WriteCloser, error) { return openSink(ctx, tc, &where) })
	spec.Output = spool
	defer tool.SetStatus(ctx, func() string { return spool.Last(progressLines, tool.MaxStatusBytes) })()
	runCtx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	outcome, err := shell.Run(runCtx, spec)
	closeErr := spool.Close()
	if err != nil {
		return nil, runError(err)
	}
	view := spool.View()
	out := &ExecCommandOutput{ExitCode: outcome.ExitCode, DurationMS: outcome.Duration.Milliseconds(),
		Truncated: view.Truncated, TotalBytes: view.TotalBytes, Refused: refusals(outcome.Refused)}
	if view.Stored && closeErr == nil {
		out.OutputRef, out.OutputFile = where.ref, where.file
	}
	kept := outputcache.Kept{Ref: out.OutputRef, File: out.OutputFile, Err: closeErr}
	if out.OutputFile != "" && view.TotalBytes > where.limit {
		kept.Partial = where.limit
	}
	out.Output = view.Text(kept)
	if err := limitError(spec.Sandbox, outcome, spool, out); err != nil {
		return nil, err
	}
	switch outcome.Stop {
	case shell.TimedOut:
		if ctx.Err() == nil {
			return nil, stoppedError(tool.CodeTimeout, fmt.Sprintf("the command did not finish within %s; it and every process it started were killed", timeout), out)
		}
		return nil, stoppedError(tool.CodeTimeout, "the call's deadline passed; the command and every process it started were killed", out)
	case shell.Cancelled, shell.Killed:
		return nil, stoppedError(tool.CodeCancelled, "the call was cancelled; the command and every process it started were killed", out)
	}
	return out, nil
}

// openSink opens where the whole output goes once it outgrows the budget:
// the output cache when the toolkit has one, else a temporary file.
func openSink(ctx context.Context, tc tool.Context, where *outputLocation) (io.WriteCloser, error) {
	if store, err := tool.Resolve(ctx, tc, outputcache.Key); err == nil && store != nil {
		w, err := store.Create(ctx, outputcache.Info{Tool: tc.Tool, CallID: tc.CallID})
		if err != nil {
			return nil, fmt.Errorf("output cache: %w", err)
		}
		where.ref = w.Ref()
		return w, nil
	}
	cfg, err := tool.Resolve(ctx, tc, ExecConfigKey)
	if err != nil {
		return nil, err
	}
	files, err := tool.Resolve(ctx, tc, overflowKey)
	if err != nil {
		return nil, err
	}
	cfg = cfg.withDefaults()
	w, file, err := files.create(ctx, cfg, outputcache.Info{Tool: tc.Tool, CallID: tc.CallID})
	if err != nil {
		return nil, err
	}
	where.file, where.limit = file, cfg.OverflowMaxBytes
	return w, nil
}

// budgetSplit is the head and tail a command's output is trimmed to as it
// streams: a split of the toolkit's message budget (outputcache.BudgetKey),
// so that the view honours [output] max_bytes and max_lines as every other
// tool's does, and the cache step need not trim it again.
func budgetSplit(ctx context.Context, tc tool.Context) (outputcache.Split, error) {
	budget, err := tool.Resolve(ctx, tc, outputcache.BudgetKey)
	if err != nil {
		return outputcache.Split{}, err
	}
	return budget.Split(), nil
}

func refusals(rs []shell.Refusal) []ExecRefusal {
	var out []ExecRefusal
	for _, r := range rs {
		out = append(out, ExecRefusal{Command: r.Command, Reason: r.Reason})
	}
	return out
}

// stoppedError is the TIMEOUT or CANCELLED error of a command that was
// killed: its message carries the output so far, its details the rest.
func stoppedError(code tool.Code, what string, out *ExecCommandOutput) *tool.Error {
	return withOutput(tool.Errorf(code, "%s", what), out)
}

// withOutput adds the run's output to e, a run's error: to its message,
// and with where the whole output is as its details.
func withOutput(e *tool.Error, out *ExecCommandOutput) *tool.Error {
	if out.Output == "" {
		e.Message += ". It printed nothing."
	} else {
		e.Message += ". Output so far:\n" + out.Output
	}
	e.WithDetail("output", out.Output).
		WithDetail("duration_ms", out.DurationMS).
		WithDetail("total_bytes", out.TotalBytes)
	if out.OutputRef != "" {
		e.WithDetail("output_ref", out.OutputRef)
	}
	if out.OutputFile != "" {
		e.WithDetail("output_file", out.OutputFile)
	}
	return e
}

// outputTail is a run's output as limitError reads it: the last lines of a
// foreground run (*shell.Spool) or of a job (*shell.Job).
type outputTail interface {
	Last(lines, maxBytes int) string
}

// limitError is the LIMIT_EXCEEDED error of a confined run that failed at
// one of its [sandbox.limits] limits (sandbox.Limits.Hit), its output
// attached as stoppedError attaches it, or nil. Its processes are gone: a
// run kills every process it started before it returns. It is the one
// judge of a limit for every way a command runs: in the foreground, and a
// job's or a session's end, whichever call observes it (jobAnswer).
func limitError(box *sandbox.Profile, outcome shell.Outcome, output outputTail, out *ExecCommandOutput) *tool.Error {
	if !box.Confined() || outcome.Stop != shell.Finished {
		return nil
	}
	hit, ok := box.Limits.Hit(outcome.Limits, outcome.ExitCode, output.Last(sandbox.HitTailLines, sandbox.HitTailBytes))
	if !ok {
		return nil
	}
	return withOutput(hit.ToolError(outcome.ExitCode), out)
}

// runError maps a failure to set a run up to a tool error.
func runError(err error) error {
	var se *shell.SyntaxError
	if errors.As(err, &se) {
		return tool.Errorf(tool.CodeInvalidArguments, "field \"command\": shell syntax error at %w", se)
	}
	var ue *sandbox.UnavailableError
	if errors.As(err, &ue) {
		return sandbox.ToolError(err)
	}
	return tool.Errorf(tool.CodeExecutionFailed, "could not start the command: %w", err)
}

// startJob starts the command in the background and returns its job id.
func startJob(ctx context.Context, tc tool.Context, spec shell.Spec, in ExecCommandInput) (*ExecCommandOutput, error) {
	job, err := launchJob(ctx, tc, spec, in, false)
	if err != nil {
		return nil, err
	}
	return &ExecCommandOutput{JobID: job.ID, Status: "running", ExitCode: -1}, nil
}

// startSession starts the command as an interactive job — a pipe for its
// standard input, which write_stdin writes to — and answers after
// yield_time_ms, or sooner if it ends: with its exit code if it ended, else
// with its session id. Either way the output so far, trimmed to the budget,
// the whole of it in the job's log. A session is a job in every other way:
// the same registry, cap, confinement and end with the MCP session; a
// timeout_secs bounds it, none leaves it to its session.
func startSession(ctx context.Context, tc tool.Context, spec shell.Spec, in ExecCommandInput) (*ExecCommandOutput, error) {
	job, err := launchJob(ctx, tc, spec, in, true)
	if err != nil {
		return nil, err
	}
	split, err := budgetSplit(ctx, tc)
	if err != nil {
		return nil, err
	}
	snap, err := job.Wait(ctx, time.Duration(*in.YieldTimeMS)*time.Millisecond, split)
	if err != nil {
		return nil, tool.Errorf(tool.CodeExecutionFailed, "%w", err)
	}
	if !snap.Running && snap.Err != nil {
		return nil, runError(snap.Err)
	}
	jo, err := jobAnswer(ctx, tc, job, snap)
	if err != nil {
		return nil, err
	}
	out := jo.commandOutput()
	if snap.Running {
		out.SessionID, out.Status = job.ID, "running"
		return out, nil
	}
	if jo.ExitCode != nil {
		out.ExitCode = *jo.ExitCode
	}
	return out, nil
}

// commandOutput is a job's answer as exec_command gives its own: the whole
// output behind its ref, else in its log when the view was trimmed.
func (jo *ExecJobOutput) commandOutput() *ExecCommandOutput {
	out := &ExecCommandOutput{ExitCode: -1, Output: jo.Output, DurationMS: jo.ElapsedMS, Truncated: jo.Truncated,
		TotalBytes: jo.NewBytes, Refused: jo.Refused}
	switch {
	case jo.OutputRef != "":
		out.OutputRef = jo.OutputRef
	case jo.Truncated:
		out.OutputFile = jo.LogFile
	}
	return out
}

// launchJob checks the sandbox and starts the command as a job of the
// call's session, interactive or not.
func launchJob(ctx context.Context, tc tool.Context, spec shell.Spec, in ExecCommandInput, interactive bool) (job *shell.Job, err error) {
	defer func() {
		if job == nil && spec.TTY != nil {
			spec.TTY.Close()
		}
	}()
	jobs, err := tool.Resolve(ctx, tc, jobsKey)
	if err != nil {
		return nil, err
	}
	if store, err := tool.Resolve(ctx, tc, outputcache.Key); err == nil && store != nil {
		// The job's whole output, as a foreground command's is kept; a
		// store that fails here costs the ref, not the job (its log keeps
		// the output for the host).
		if w, err := store.Create(ctx, outputcache.Info{Tool: tc.Tool, CallID: tc.CallID}); err == nil {
			spec.Whole = w
		}
	}
	var timeout time.Duration
	if in.TimeoutSecs != nil {
		timeout = time.Duration(*in.TimeoutSecs) * time.Second
	}
	if spec.Sandbox.Confined() {
		if err := spec.Sandbox.Check(); err != nil {
			return nil, sandbox.ToolError(err)
		}
	}
	start := jobs.Start // which owns spec.TTY from here
	if interactive {
		start = jobs.StartInteractive
	}
	job, err = start(ctx, tool.SessionOf(ctx), spec, timeout)
	if err != nil && ctx.Err() != nil {
		return nil, tool.Errorf(tool.CodeCancelled, "the job was not started: %w", err)
	}
	if errors.Is(err, shell.ErrJobLimit) {
		return nil, tool.Errorf(tool.CodeLimitExceeded, "nothing was started: %w", err)
	}
	if err != nil {
		return nil, tool.Errorf(tool.CodeExecutionFailed, "could not start the job: %w", err)
	}
	return job, nil
}

// Render is the model's view: the status line, any refusals, the output.
func (o *ExecCommandOutput) Render() tool.Result {
	var b strings.Builder
	if o.JobID != "" {
		fmt.Fprintf(&b, "Started background job %s. Read its output with exec_output {\"job_id\": %q}; stop it with exec_kill.", o.JobID, o.JobID)
		return tool.Text(b.String())
	}
	if o.SessionID != "" {
		fmt.Fprintf(&b, "still running after %s, session %s: send input with write_stdin {\"session_id\": %q}, stop it with exec_kill", formatDuration(o.DurationMS), o.SessionID, o.SessionID)
		if o.OutputRef != "" {
			fmt.Fprintf(&b, "; its whole output goes to ref=%s, readable with %s once it ends", o.OutputRef, outputcache.ReadTool)
		}
	} else {
		fmt.Fprintf(&b, "exit code %d · %s", o.ExitCode, formatDuration(o.DurationMS))
	}
	if o.Truncated {
		fmt.Fprintf(&b, " · %d bytes of output, trimmed", o.TotalBytes)
	}
	b.WriteByte('\n')
	for _, r := range o.Refused {
		fmt.Fprintf(&b, "REFUSED %s: %s (the run stopped here)\n", r.Command, r.Reason)
	}
	if o.Output == "" {
		b.WriteString("(no output)")
	} else {
		b.WriteString(o.Output)
	}
	res := tool.Text(b.String())
	if o.SessionID == "" { // a session's ref is sealed when it ends
		res.OutputRef = o.OutputRef
	}
	return res
}

func formatDuration(ms int64) string {
	return (time.Duration(ms) * time.Millisecond).String()
}
