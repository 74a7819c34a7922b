package shell

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"mvdan.cc/sh/v3/syntax"

	"github.com/quiverkit/quiver/audit"
	"github.com/quiverkit/quiver/outputcache"
	"github.com/quiverkit/quiver/sandbox"
	"github.com/quiverkit/quiver/sandbox/netproxy"
	"github.com/quiverkit/quiver/tool"
	"github.com/quiverkit/quiver/workspace"
)

// The types of running commands, on every system; running them needs unix
// (run.go, jobs.go), and elsewhere Run and Jobs.Start refuse (run_other.go).

// Spec says what to run, where, and under which gate.
type Spec struct {
	// Command is a bash command line, run by the in-process interpreter.
	// Argv, when set instead, is a program and its arguments, run directly.
	Command string
	Argv    []string

	Dir       string   // the working directory, absolute, inside Workspace
	Env       []string // the environment, NAME=VALUE
	BaseEnv   []string // the environment before the call's own settings; see UnsafeEnv
	Workspace *workspace.Workspace
	Gate      tool.CommandGate // asked about every program before it starts and every file opened for writing
	// Sandbox confines every program the run starts (nil: unconfined, for
	// tests of the shell itself; tools always set it). A run under a
	// confined profile without a TempDir gets one of its own, removed when
	// the run ends.
	Sandbox *sandbox.Profile

	// Stdin is the run's standard input (nil: /dev/null); the caller owns
	// it. An interactive job's is a pipe (see [Jobs.StartInteractive]).
	Stdin *os.File

	// TTY, when set, is a pseudo-terminal the run's programs get as their
	// standard input, output and error instead of Stdin and a pipe: the
	// output is read from its other end, and input goes in there too
	// ([TTY.Write]). The caller opens it ([OpenTTY]) and closes it once
	// Run has returned.
	TTY *TTY

	// Whole, for a job ([Jobs.Start]), receives the job's whole output as
	// well as its log — an output being stored behind a ref in the output
	// cache — and is closed, sealing the ref, when the job ends. A failing
	// Whole is written no more and the job runs on (see [Snapshot].WholeErr).
	// The job owns it from the moment Start is called.
	Whole outputcache.Writer

	// Output receives standard output and standard error, interleaved as
	// produced (both are one pipe, or the terminal), from a single
	// goroutine.
	Output io.Writer
}

// TTY is a pseudo-terminal for a run ([Spec.TTY]). Quiver keeps its master
// side (opened close-on-exec: no program inherits it); programs get only
// the slave, which the run closes when it ends.
type TTY struct {
	master, slave *os.File
	closeOnce     sync.Once
	closeErr      error
}

// Stop says why a run ended before its commands did.
type Stop string

// The reasons a run is stopped.
const (
	Finished  Stop = ""          // it ran to its end
	TimedOut  Stop = "timeout"   // its context's deadline passed
	Cancelled Stop = "cancelled" // its context was cancelled
	Refused   Stop = "refused"   // the gate refused a command or a write
	Killed    Stop = "killed"    // it was killed (see ErrKilled)
)

// ErrKilled is the cause to cancel a run's context with to have it
// reported as Killed rather than Cancelled (exec_kill does).
var ErrKilled = errors.New("killed")

// Refusal is one command or write the gate refused.
type Refusal struct {
	Command string `json:"command"` // the command as it was about to run, or "write PATH"
	Reason  string `json:"reason"`  // the gate's message, naming the rule
}

// Outcome is how a run ended.
type Outcome struct {
	ExitCode int // the shell's exit status; -1 when stopped by a timeout, a cancellation or a kill
	Stop     Stop
	Refused  []Refusal
	Duration time.Duration
	// Limits are what the kernel counted against the run's [sandbox.limits]
	// in its cgroup (zero when none held them): the evidence for
	// sandbox.Limits.Hit.
	Limits sandbox.LimitEvents
}

// Jobs runs commands in the background and keeps their output until it is
// read. Each job's whole output goes to a log file of its own (so a job that
// prints gigabytes costs disk, not memory); reading a job returns what it
// printed since the last read, its head and tail within an [outputcache.Split].
//
// Each job belongs to the session that started it (see [Jobs.Start]): only
// that session finds it, and [Jobs.CloseSession] kills it when the session
// ends. The registry belongs to whoever made it — for exec_command, the
// toolkit — and every job ends with it: Close kills every job still running
// and removes the logs. It is safe for concurrent use.
type Jobs struct {
	// MaxRunning bounds the jobs of one session running at once (default
	// 16), MaxRunningAll those of all sessions (default 64); MaxKept bounds
	// the finished jobs of one session kept for reading (default 64; the
	// oldest go first).
	MaxRunning, MaxRunningAll, MaxKept int

	mu     sync.Mutex
	closed bool
	dir    string
	jobs   map[string]*Job
	order  []string
	sink   audit.Sink // where the hosts of dropped jobs that no read took go (SetAudit)
}

// NewJobs returns an empty registry.
func NewJobs() *Jobs {
	return &Jobs{MaxRunning: 16, MaxRunningAll: 64, MaxKept: 64, jobs: map[string]*Job{}}
}

// Job is one background command.
type Job struct {
	ID      string // "job_" and 128 random bits or more: an id cannot be guessed
	Command string
	Started time.Time
	// Sandbox is the profile it runs under (its Spec.Sandbox): whoever
	// reads its end judges by it whether the job reached one of its
	// limits.
	Sandbox *sandbox.Profile

	session string // the session that started it (see [Jobs.Start])
	inMu    sync.Mutex
	input   *os.File // the write end of an interactive job's standard input; nil once it ended (guarded by inMu)
	tty     *TTY     // the job's terminal, its input and output; nil once it ended (guarded by inMu)
	whole   *wholeWriter
	// contacts counts the requests its processes make to the network
	// proxy, which each read takes for the call that reads: the job runs on
	// after the call that started it has written its audit record.
	contacts netproxy.Tally
	logPath  string
	log      *os.File // written by the run
	reader   *os.File // read by Read
	written  atomic.Int64
	stop     context.CancelCauseFunc
	done     chan struct{}

	mu      sync.Mutex
	read    int64
	outcome Outcome
	err     error
}

// ErrUnknownJob is returned for a job id the registry does not have.
var ErrUnknownJob = errors.New("no such job")

// ErrJobLimit is the refusal of a job beyond [Jobs].MaxRunning or
// MaxRunningAll.
var ErrJobLimit = errors.New("too many jobs running")

// ErrNoInput is returned by [Job.Write] for a job that takes no input: one
// not started with [Jobs.StartInteractive], or one that has ended.
var ErrNoInput = errors.New("the job takes no input")

// Snapshot is a job's state and the output it printed since the last read.
type Snapshot struct {
	ID, Command string
	Running     bool
	Outcome     Outcome // when not Running
	Err         error   // the run could not be set up
	Output      View    // the new output; its Head and Tail when it outgrew the budget
	LogFile     string  // the job's whole output so far
	// Ref is the ref of Spec.Whole, which holds the whole output: sealed,
	// and so readable, once the job is not Running. WholeErr is why it
	// holds less (a write or the sealing failed); Ref is then of no use.
	Ref      string
	WholeErr error
	Elapsed  time.Duration
	// Contacts are the requests to the network proxy the job's processes
	// made since the last read, allowed or refused, and ContactsOmitted
	// those beyond audit.MaxHosts entries: the reading call adds them to
	// its audit record.
	Contacts        []netproxy.Count
	ContactsOmitted int
}

// Recorder is implemented by a command gate that wants to know which
// programs actually ran, for the record: the toolkit's per-call gate puts
// them in the call's audit record. A gate is asked about several forms of a
// command, and about commands that then never start; Ran is told once per
// program, with argv as it runs (after expansion), after the gate allowed
// it and just before it starts. Shell builtins (cd, echo, read...) start no
// program and are not reported; what eval, source or sh -c run through
// them is.
type Recorder interface {
	Ran(argv []string)
}

// Join returns argv as one shell-quoted line, as a person would type it.
func Join(argv []string) string {
	var b strings.Builder
	for i, a := range argv {
		if i > 0 {
			b.WriteByte(' ')
		}
		q, err := syntax.Quote(a, syntax.LangBash)
		if err != nil {
			q = fmt.Sprintf("%q", a)
		}
		b.WriteString(q)
	}
	return b.String()
}

// wholeWriter passes a job's output on to its Spec.Whole until a write
// fails: a store that is full or unreachable costs the ref, never the job
// (nor its log, which MultiWriter writes first).
type wholeWriter struct {
	w   outputcache.Writer
	mu  sync.Mutex
	err error
}

func (w *wholeWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.err == nil {
		_, w.err = w.w.Write(p)
	}
	return len(p), nil
}

// seal closes the writer, once the job's output has ended.
func (w *wholeWriter) seal() {
	if w == nil {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if err := w.w.Close(); w.err == nil {
		w.err = err
	}
}

// state returns the ref and why it holds less than the whole output.
func (w *wholeWriter) state() (string, error) {
	if w == nil {
		return "", nil
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.w.Ref(), w.err
}
