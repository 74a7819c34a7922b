//go:build unix

package shell

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/quiverkit/quiver/outputcache"
)

// defaultSplit is what exec_output reads of a job under the default budget.
var defaultSplit = outputcache.DefaultBudget().Split()

func TestJobsRunReportAndStop(t *testing.T) {
	e := newRunEnv(t, "sleep", "echo")
	js := NewJobs()
	defer js.Close()
	ctx, cancel := context.WithCancel(context.Background())
	job, err := js.Start(ctx, "", e.spec("echo one; sleep 0.3; echo two"), 0)
	if err != nil {
		t.Fatal(err)
	}
	cancel() // the call that started it has returned: the job goes on

	s, err := job.Wait(context.Background(), hangGuard, defaultSplit)
	if err != nil {
		t.Fatal(err)
	}
	if s.Running || s.Outcome.ExitCode != 0 || s.Outcome.Stop != Finished || s.Output.Head != "one\ntwo\n" {
		t.Fatalf("finished job: %+v", s)
	}
	s, _ = job.Read(defaultSplit)
	if s.Output.Head != "" || s.Output.TotalBytes != 0 {
		t.Errorf("a second read returned old output: %+v", s.Output)
	}
	if got, err := js.Get("", job.ID); err != nil || got != job {
		t.Errorf("Get(%q) = %v, %v", job.ID, got, err)
	}
	if _, err := js.Get("", "job-99"); !errors.Is(err, ErrUnknownJob) {
		t.Errorf("Get(job-99) = %v", err)
	}
}

func TestJobsNewOutputOnly(t *testing.T) {
	e := newRunEnv(t, "sleep", "echo")
	js := NewJobs()
	defer js.Close()
	job, err := js.Start(context.Background(), "", e.spec("echo first; sleep 0.5; echo second; sleep 1000.301"), 0)
	if err != nil {
		t.Fatal(err)
	}
	// Wait for whole lines: a line can reach the job in more than one
	// write (seen: "second" then "\n"), and a read between them is right
	// to return half of it.
	waitFor(t, func() bool { return job.written.Load() >= int64(len("first\n")) })
	s, _ := job.Read(defaultSplit)
	if !s.Running || s.Output.Head != "first\n" {
		t.Fatalf("first read: %+v", s)
	}
	waitFor(t, func() bool { return job.written.Load() >= int64(len("first\nsecond\n")) })
	s, _ = job.Read(defaultSplit)
	if !s.Running || s.Output.Head != "second\n" {
		t.Fatalf("second read: %+v", s)
	}
	s, err = job.Kill(defaultSplit)
	if err != nil || s.Running || s.Outcome.Stop != Killed {
		t.Fatalf("kill: %+v %v", s, err)
	}
	wantNoProcesses(t, "sleep 1000.301")
}

func TestJobsTimeout(t *testing.T) {
	e := newRunEnv(t, "sleep")
	js := NewJobs()
	defer js.Close()
	job, err := js.Start(context.Background(), "", e.spec("sleep 1000.311"), 300*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	s, _ := job.Wait(context.Background(), hangGuard, defaultSplit)
	if s.Running || s.Outcome.Stop != TimedOut {
		t.Errorf("%+v", s)
	}
	wantNoProcesses(t, "sleep 1000.311")
}

func TestJobsLargeOutputIsTrimmedFromTheLog(t *testing.T) {
	e := newRunEnv(t, "seq")
	js := NewJobs()
	defer js.Close()
	job, err := js.Start(context.Background(), "", e.spec("seq 1 200000"), 0)
	if err != nil {
		t.Fatal(err)
	}
	s, _ := job.Wait(context.Background(), hangGuard, defaultSplit)
	if !s.Output.Truncated || !strings.HasPrefix(s.Output.Head, "1\n2\n") || !strings.HasSuffix(s.Output.Tail, "199999\n200000\n") {
		t.Fatalf("view: truncated %v head %.20q tail ...%q", s.Output.Truncated, s.Output.Head, s.Output.Tail[max(0, len(s.Output.Tail)-20):])
	}
	log, err := os.ReadFile(s.LogFile)
	if err != nil || !strings.HasSuffix(string(log), "\n200000\n") || int64(len(log)) != s.Output.TotalBytes {
		t.Errorf("log file %s: %d bytes, %v; view says %d", s.LogFile, len(log), err, s.Output.TotalBytes)
	}
}

func TestJobsCloseKillsEverything(t *testing.T) {
	e := newRunEnv(t, "sleep")
	js := NewJobs()
	var logs []string
	for range 3 {
		job, err := js.Start(context.Background(), "", e.spec("sleep 1000.321"), 0)
		if err != nil {
			t.Fatal(err)
		}
		logs = append(logs, job.logPath)
	}
	waitFor(t, func() bool { return len(processesWith(t, "sleep 1000.321")) == 3 })
	if err := js.Close(); err != nil {
		t.Fatal(err)
	}
	wantNoProcesses(t, "sleep 1000.321")
	for _, l := range logs {
		if _, err := os.Stat(l); !os.IsNotExist(err) {
			t.Errorf("log %s left behind", l)
		}
	}
	if _, err := js.Start(context.Background(), "", e.spec("sleep 1"), 0); err == nil {
		t.Error("a closed registry started a job")
	}
}

func TestJobsLimits(t *testing.T) {
	e := newRunEnv(t, "sleep", "true")
	js := NewJobs()
	defer js.Close()
	js.MaxRunning, js.MaxKept = 2, 1
	for range 2 {
		if _, err := js.Start(context.Background(), "", e.spec("sleep 1000.331"), 0); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := js.Start(context.Background(), "", e.spec("sleep 1000.331"), 0); err == nil || !strings.Contains(err.Error(), "exec_kill") {
		t.Errorf("a third job: %v", err)
	}
	js.Close()
	wantNoProcesses(t, "sleep 1000.331")

	js = NewJobs()
	defer js.Close()
	js.MaxKept = 1
	var ids []string
	for range 3 {
		j, err := js.Start(context.Background(), "", e.spec("true"), 0)
		if err != nil {
			t.Fatal(err)
		}
		<-j.done
		ids = append(ids, j.ID)
	}
	if _, err := js.Get("", ids[0]); !errors.Is(err, ErrUnknownJob) {
		t.Errorf("the oldest finished job is still kept: %v", err)
	}
	if _, err := js.Get("", ids[2]); err != nil {
		t.Errorf("the newest job is gone: %v", err)
	}
}

func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(hangGuard)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("condition not met within %v", hangGuard)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
