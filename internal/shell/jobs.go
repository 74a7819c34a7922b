//go:build unix

package shell

import (
	"bytes"
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"time"

	"github.com/quiverkit/quiver/audit"
	"github.com/quiverkit/quiver/outputcache"
	"github.com/quiverkit/quiver/sandbox"
)

// Start starts spec in the background for session, detached from ctx's
// cancellation (the call that started it returns at once). timeout, if
// positive, bounds the job's run. spec.Output is set by Start.
//
// A job belongs to the session that started it (see [tool.WithSession]):
// [Jobs.Get] finds it for that session only, and [Jobs.CloseSession] kills
// it. Its id is random, so that one session can neither guess another's
// ids nor learn from its own how many jobs others started. A ctx that is
// done already starts nothing: the session of a call cancelled because it
// ended may have been closed already, and a job started now would outlive
// it.
func (js *Jobs) Start(ctx context.Context, session string, spec Spec, timeout time.Duration) (*Job, error) {
	return js.start(ctx, session, spec, timeout, false)
}

// StartInteractive starts spec as [Jobs.Start] does, with a pipe for its
// standard input that [Job.Write] writes to — or spec.TTY, a terminal, to
// type into — so that a REPL, a prompt, a debugger can be driven. The pipe
// or the terminal closes when the job ends (a job owns the spec.TTY it was
// given, interactive or not, from the moment Start is called). It is the same job in
// every other way: confined, capped, its session's, killed with it.
func (js *Jobs) StartInteractive(ctx context.Context, session string, spec Spec, timeout time.Duration) (*Job, error) {
	return js.start(ctx, session, spec, timeout, true)
}

func (js *Jobs) start(ctx context.Context, session string, spec Spec, timeout time.Duration, interactive bool) (*Job, error) {
	var dropped []*Job
	// After the unlock below; a record lost is not the new job's failure.
	defer func() { _ = js.recordUnread(dropped) }()
	js.mu.Lock()
	defer js.mu.Unlock()
	handed := false
	defer func() {
		if !handed && spec.TTY != nil {
			spec.TTY.Close()
		}
		if !handed && spec.Whole != nil {
			spec.Whole.Close()
		}
	}()
	if js.closed {
		return nil, errors.New("the job registry is closed")
	}
	if ctx.Err() != nil {
		return nil, fmt.Errorf("the call ended before its job started: %w", context.Cause(ctx))
	}
	if err := js.admit(session); err != nil {
		return nil, err
	}
	if js.dir == "" {
		// In Quiver's private directory, which no confined process can
		// read: a command of another session could otherwise read this
		// one's logs. In this process's own part of it, which the next
		// Quiver sweeps if this one is killed before Close removes it.
		private, err := sandbox.OwnDir()
		if err != nil {
			return nil, fmt.Errorf("job log directory: %w", err)
		}
		dir, err := os.MkdirTemp(private, "jobs-")
		if err != nil {
			return nil, fmt.Errorf("job log directory: %w", err)
		}
		js.dir = dir
	}
	j := &Job{ID: js.newID(), session: session, Command: spec.Command, Started: time.Now(), Sandbox: spec.Sandbox, done: make(chan struct{})}
	if spec.Argv != nil {
		j.Command = Join(spec.Argv)
	}
	if spec.Sandbox.Proxied() {
		// Counted for the calls that read the job: the one that started it
		// may have returned.
		j.contacts.Max = audit.MaxHosts
		spec.Sandbox = spec.Sandbox.RecordingContacts(&j.contacts)
	}
	if err := j.openLog(js.dir); err != nil {
		return nil, err
	}
	switch {
	case spec.TTY != nil:
		j.tty = spec.TTY
	case interactive:
		r, w, err := os.Pipe()
		if err != nil {
			j.log.Close()
			j.release()
			return nil, fmt.Errorf("job input: %w", err)
		}
		spec.Stdin, j.input = r, w
	}
	jctx, stop := context.WithCancelCause(context.WithoutCancel(ctx))
	j.stop = stop
	runCtx, cancelTimeout := jctx, context.CancelFunc(func() {})
	if timeout > 0 {
		runCtx, cancelTimeout = context.WithTimeout(jctx, timeout)
	}
	spec.Output = countingWriter{w: j.log, n: &j.written}
	if spec.Whole != nil {
		j.whole = &wholeWriter{w: spec.Whole}
		spec.Output = countingWriter{w: io.MultiWriter(j.log, j.whole), n: &j.written}
	}
	go func() {
		defer close(j.done)
		out, err := Run(runCtx, spec)
		cancelTimeout()
		stop(errRunEnded)
		j.log.Close()
		j.whole.seal()
		if spec.Stdin != nil {
			spec.Stdin.Close()
		}
		j.mu.Lock()
		j.outcome, j.err = out, err
		j.mu.Unlock()
		j.inMu.Lock()
		if j.input != nil {
			j.input.Close()
			j.input = nil
		}
		if j.tty != nil {
			j.tty.Close()
			j.tty = nil
		}
		j.inMu.Unlock()
	}()
	handed = true
	js.jobs[j.ID] = j
	js.order = append(js.order, j.ID)
	dropped = js.expire(session)
	return j, nil
}

// admit refuses a new job of session when the session, or the registry as a
// whole, runs as many as it may. The second message gives no count of
// others' jobs: how busy other sessions are is theirs.
func (js *Jobs) admit(session string) error {
	mine, all := 0, 0
	for _, j := range js.jobs {
		if j.finished() {
			continue
		}
		all++
		if j.session == session {
			mine++
		}
	}
	if mine >= js.MaxRunning {
		return fmt.Errorf("%w: %d background jobs and sessions of this session are running already, the most allowed; wait for one or end one with exec_kill", ErrJobLimit, mine)
	}
	if all >= js.MaxRunningAll {
		return fmt.Errorf("%w: as many background jobs and sessions run as the server allows across its sessions (%d); wait for one of yours or end one with exec_kill", ErrJobLimit, js.MaxRunningAll)
	}
	return nil
}

// newID returns "job_" and at least 128 random bits in lower-case base32,
// an id no job of the registry has.
func (js *Jobs) newID() string {
	for {
		id := "job_" + strings.ToLower(rand.Text())
		if js.jobs[id] == nil {
			return id
		}
	}
}

func (j *Job) openLog(dir string) error {
	j.logPath = filepath.Join(dir, j.ID+".log")
	w, err := os.OpenFile(j.logPath, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return fmt.Errorf("job log: %w", err)
	}
	r, err := os.Open(j.logPath)
	if err != nil {
		w.Close()
		return fmt.Errorf("job log: %w", err)
	}
	j.log, j.reader = w, r
	return nil
}

type countingWriter struct {
	w io.Writer
	n *atomic.Int64
}

func (c countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n.Add(int64(n))
	return n, err
}

// expire forgets the oldest finished jobs of session beyond MaxKept, and
// returns them: one session's many short jobs cannot push out another's
// results.
func (js *Jobs) expire(session string) []*Job {
	var dropped []*Job
	finished := 0
	for _, id := range js.order {
		if j := js.jobs[id]; j.session == session && j.finished() {
			finished++
		}
	}
	kept := js.order[:0]
	for _, id := range js.order {
		j := js.jobs[id]
		if finished > js.MaxKept && j.session == session && j.finished() {
			finished--
			j.release()
			delete(js.jobs, id)
			dropped = append(dropped, j)
			continue
		}
		kept = append(kept, id)
	}
	js.order = kept
	return dropped
}

func (j *Job) finished() bool {
	select {
	case <-j.done:
		return true
	default:
		return false
	}
}

func (j *Job) release() {
	j.reader.Close()
	os.Remove(j.logPath)
}

// Get returns session's job with id. A job of another session is
// [ErrUnknownJob], exactly as an id nobody has: its existence does not leak.
func (js *Jobs) Get(session, id string) (*Job, error) {
	js.mu.Lock()
	defer js.mu.Unlock()
	j, ok := js.jobs[id]
	if !ok || j.session != session {
		return nil, fmt.Errorf("%w: %q", ErrUnknownJob, id)
	}
	return j, nil
}

// CloseSession kills session's jobs with their process trees, waits for
// them and forgets them, logs included: the session that started them has
// ended. Jobs of other sessions go on. The hosts they asked for that no
// read took are recorded (see [Jobs.SetAudit]).
func (js *Jobs) CloseSession(session string) error {
	js.mu.Lock()
	var jobs []*Job
	kept := js.order[:0]
	for _, id := range js.order {
		j := js.jobs[id]
		if j.session != session {
			kept = append(kept, id)
			continue
		}
		jobs = append(jobs, j)
		delete(js.jobs, id)
	}
	js.order = kept
	js.mu.Unlock()
	return js.stopAll(jobs)
}

// stopAll kills jobs, waits for them to end, removes their logs and
// records the hosts they asked for that no read took.
func (js *Jobs) stopAll(jobs []*Job) error {
	for _, j := range jobs {
		j.stop(ErrKilled)
	}
	for _, j := range jobs {
		<-j.done
		j.release()
	}
	return js.recordUnread(jobs)
}

// SetAudit implements provider.Audited: the hosts a job's processes asked
// the network proxy for that no call read (see [Job.Read]) are recorded in
// sink when the registry drops the job, at its session's end, at Close,
// or when it forgets a finished job.
func (js *Jobs) SetAudit(sink audit.Sink) {
	js.mu.Lock()
	defer js.mu.Unlock()
	js.sink = sink
}

// recordUnread writes, for each of the dropped jobs whose tally still
// holds requests, a record of its own: no tool, Job its id, the outcome
// "closed", as an MCP server's at its close. The jobs have ended: their
// processes ask for nothing more. It returns the sink's errors joined.
func (js *Jobs) recordUnread(jobs []*Job) error {
	js.mu.Lock()
	sink := js.sink
	js.mu.Unlock()
	var errs []error
	for _, j := range jobs {
		counts, omitted := j.contacts.Take()
		if sink == nil || (len(counts) == 0 && omitted == 0) {
			continue
		}
		r := audit.Record{Time: time.Now(), Job: j.ID, Outcome: "closed"}
		r.Hosts, r.HostsOmitted = audit.Hosts(counts, omitted)
		if err := sink.Record(context.Background(), r); err != nil {
			errs = append(errs, fmt.Errorf("recording the hosts job %s asked for: %w", j.ID, err))
		}
	}
	return errors.Join(errs...)
}

// Wait waits up to d for the job to finish (returning early if ctx is
// done), then reads it.
func (j *Job) Wait(ctx context.Context, d time.Duration, b outputcache.Split) (Snapshot, error) {
	if d > 0 {
		t := time.NewTimer(d)
		defer t.Stop()
		select {
		case <-j.done:
		case <-t.C:
		case <-ctx.Done():
		}
	}
	return j.Read(b)
}

// inputStall bounds how long [Job.Write] waits for a job to take its
// input: a program that reads none must not hold the call for ever.
const inputStall = 10 * time.Second

// Write sends p to the job's standard input. A job that takes no input is
// [ErrNoInput]; one that does not read p within ten seconds is an error
// (os.ErrDeadlineExceeded), with what it took written.
func (j *Job) Write(p []byte) error {
	j.inMu.Lock()
	defer j.inMu.Unlock()
	if j.tty != nil {
		if err := j.tty.Write(p, time.Now().Add(inputStall)); err != nil {
			return fmt.Errorf("job input: %w", err)
		}
		return nil
	}
	if j.input == nil {
		return ErrNoInput
	}
	if err := j.input.SetWriteDeadline(time.Now().Add(inputStall)); err != nil {
		return fmt.Errorf("job input: %w", err)
	}
	if _, err := j.input.Write(p); err != nil {
		return fmt.Errorf("job input: %w", err)
	}
	return nil
}

// Kill stops the job and its process tree, waits for it to end, and reads
// it.
func (j *Job) Kill(b outputcache.Split) (Snapshot, error) {
	j.stop(ErrKilled)
	<-j.done
	return j.Read(b)
}

// Read returns the job's state and what it printed since the last Read.
func (j *Job) Read(b outputcache.Split) (Snapshot, error) {
	running := !j.finished()
	end := j.written.Load()
	j.mu.Lock()
	defer j.mu.Unlock()
	s := Snapshot{ID: j.ID, Command: j.Command, Running: running, LogFile: j.logPath, Elapsed: time.Since(j.Started)}
	s.Ref, s.WholeErr = j.whole.state()
	if !running {
		s.Outcome, s.Err = j.outcome, j.err
		s.Elapsed = j.outcome.Duration
	}
	view, err := readRange(j.reader, j.read, end, b)
	if err != nil {
		return s, fmt.Errorf("job %s: read log: %w", j.ID, err)
	}
	j.read = end
	s.Output = view
	s.Contacts, s.ContactsOmitted = j.contacts.Take()
	return s, nil
}

// Last returns the last lines of the job's whole output so far, at most
// maxBytes of them, as [Spool.Last] does for a run in the foreground: the
// evidence of a limit the job reached, which a read since the last one may
// not hold.
func (j *Job) Last(lines, maxBytes int) string {
	end := j.written.Load()
	from := max(0, end-int64(maxBytes))
	b := make([]byte, end-from)
	n, err := j.reader.ReadAt(b, from)
	if err != nil && !errors.Is(err, io.EOF) {
		return ""
	}
	b = b[:n]
	newlines := lines // a last line without its newline is a line too
	if len(b) > 0 && b[len(b)-1] != '\n' {
		newlines--
	}
	if from == 0 && bytes.Count(b, []byte{'\n'}) <= newlines {
		return SafeText(b) // the whole output: no partial line to drop
	}
	return SafeText(cutTail(b, newlines))
}

// readRange returns the bytes [from, to) of f, whole when they fit the
// budget, else their head and tail.
func readRange(f *os.File, from, to int64, b outputcache.Split) (View, error) {
	n := to - from
	if n <= int64(b.HeadBytes+b.TailBytes) {
		buf := make([]byte, n)
		if _, err := f.ReadAt(buf, from); err != nil && !errors.Is(err, io.EOF) {
			return View{}, err
		}
		sp := NewSpool(b, nil)
		sp.Write(buf)
		v := sp.View()
		v.Stored = v.Truncated
		v.StoreErr = nil
		return v, nil
	}
	head := make([]byte, b.HeadBytes)
	tail := make([]byte, b.TailBytes)
	if _, err := f.ReadAt(head, from); err != nil && !errors.Is(err, io.EOF) {
		return View{}, err
	}
	if _, err := f.ReadAt(tail, to-int64(b.TailBytes)); err != nil && !errors.Is(err, io.EOF) {
		return View{}, err
	}
	head, tail = cutHead(head, b.HeadLines), cutTail(tail, b.TailLines)
	return View{
		Head: SafeText(head), Tail: SafeText(tail), Truncated: true, Stored: true,
		OmittedBytes: n - int64(len(head)) - int64(len(tail)), OmittedLines: -1, TotalBytes: n,
	}, nil
}

// Close kills every running job, waits for them, removes their logs, and
// records the hosts of every job that no read took (see [Jobs.SetAudit]).
func (js *Jobs) Close() error {
	js.mu.Lock()
	js.closed = true
	jobs := make([]*Job, 0, len(js.jobs))
	for _, j := range js.jobs {
		jobs = append(jobs, j)
	}
	js.jobs = map[string]*Job{}
	js.order = nil
	dir := js.dir
	js.mu.Unlock()
	err := js.stopAll(jobs)
	if dir != "" {
		err = errors.Join(err, os.RemoveAll(dir))
	}
	return err
}
