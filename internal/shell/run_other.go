//go:build !unix

package shell

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/quiverkit/quiver/outputcache"
)

// errNoRun is why nothing runs here: a run's guarantees (every process in
// one group, killed whole; waitid) are unix's, and without them a command
// could outlive its call. Reading command lines (Parse, SimpleCommands,
// the read-only classifier) works everywhere.
var errNoRun = fmt.Errorf("running commands needs a unix system (process groups): %w", errors.ErrUnsupported)

// Run refuses: see errNoRun.
func Run(context.Context, Spec) (Outcome, error) { return Outcome{ExitCode: -1}, errNoRun }

// Start refuses: see errNoRun.
func (js *Jobs) Start(context.Context, string, Spec, time.Duration) (*Job, error) {
	return nil, errNoRun
}

// StartInteractive starts nothing: running commands needs unix.
func (js *Jobs) StartInteractive(context.Context, string, Spec, time.Duration) (*Job, error) {
	return nil, errNoRun
}

// Write has no job to write to: none can start here.
func (j *Job) Write([]byte) error { return ErrNoInput }

// Get finds no job: none can start here.
func (js *Jobs) Get(string, string) (*Job, error) { return nil, ErrUnknownJob }

// CloseSession has nothing to stop.
func (js *Jobs) CloseSession(string) error { return nil }

// Close has nothing to stop.
func (js *Jobs) Close() error { return nil }

// Wait refuses: no job can start here.
func (j *Job) Wait(context.Context, time.Duration, outputcache.Split) (Snapshot, error) {
	return Snapshot{}, errNoRun
}

// Kill refuses: no job can start here.
func (j *Job) Kill(outputcache.Split) (Snapshot, error) { return Snapshot{}, errNoRun }

// Read refuses: no job can start here.
func (j *Job) Read(outputcache.Split) (Snapshot, error) { return Snapshot{}, errNoRun }

// OpenTTY refuses: see errNoRun.
func OpenTTY() (*TTY, error) { return nil, errNoRun }

// Write refuses: see errNoRun.
func (t *TTY) Write([]byte, time.Time) error { return errNoRun }

// Close does nothing: no terminal opens here.
func (t *TTY) Close() error { return nil }

// Last has no output to show: no job can start here.
func (j *Job) Last(int, int) string { return "" }
