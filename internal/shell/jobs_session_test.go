//go:build unix

package shell

import (
	"context"
	"errors"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

var jobIDPattern = regexp.MustCompile(`^job_[a-z2-7]{26}$`)

// TestJobIDsAreRandom: ids carry 130 random bits, so that no session can
// guess another's; a counter, a clock or a short random part would show as
// positions that barely change across a thousand ids.
func TestJobIDsAreRandom(t *testing.T) {
	js := NewJobs()
	seen := map[string]bool{}
	perPosition := make([]map[byte]bool, 26)
	for i := range perPosition {
		perPosition[i] = map[byte]bool{}
	}
	for range 1000 {
		id := js.newID()
		if !jobIDPattern.MatchString(id) {
			t.Fatalf("id %q: want job_ and 26 characters of lower-case base32", id)
		}
		if seen[id] {
			t.Fatalf("id %q came twice", id)
		}
		seen[id] = true
		for i := range 26 {
			perPosition[i][id[len("job_")+i]] = true
		}
	}
	for i, chars := range perPosition {
		// Each of 32 characters misses 1,000 uniform draws with odds of
		// 1e-14: 16 distinct characters or fewer means the position is not
		// random.
		if len(chars) <= 16 {
			t.Errorf("position %d of the ids took only %d values in 1,000 ids", i, len(chars))
		}
	}
}

// guesses are the spellings another session may try for id.
func guesses(id string) map[string]string {
	rest := strings.TrimPrefix(id, "job_")
	return map[string]string{
		"the id itself":               id,
		"upper case":                  strings.ToUpper(id),
		"the random part upper case":  "job_" + strings.ToUpper(rest),
		"a leading space":             " " + id,
		"a trailing newline":          id + "\n",
		"a trailing NUL":              id + "\x00",
		"one character short":         id[:len(id)-1],
		"one character more":          id + "a",
		"the prefix alone":            "job_",
		"without the prefix":          rest,
		"the old sequential id":       "job-1",
		"a hyphen for the underscore": "job-" + rest,
		"empty":                       "",
	}
}

// unknownAnswer is err's text with the id asked for taken out: the answer
// to a job of another session must be the answer to an id nobody has.
func unknownAnswer(t *testing.T, err error, id string) string {
	t.Helper()
	if !errors.Is(err, ErrUnknownJob) {
		t.Fatalf("Get(%q) = %v, want ErrUnknownJob", id, err)
	}
	return strings.Replace(err.Error(), strconv.Quote(id), "ID", 1)
}

// TestJobsBelongToTheirSession: a session finds only the jobs it started,
// by their exact id; every other session, whatever it spells, gets the
// answer an id nobody has gets, and cannot end them; closing a session
// kills its jobs and nobody else's.
func TestJobsBelongToTheirSession(t *testing.T) {
	e := newRunEnv(t, "sleep")
	js := NewJobs()
	defer js.Close()
	a, err := js.Start(context.Background(), "A", e.spec("sleep 1000.341"), 0)
	if err != nil {
		t.Fatal(err)
	}
	b, err := js.Start(context.Background(), "B", e.spec("sleep 1000.342"), 0)
	if err != nil {
		t.Fatal(err)
	}
	// Start returns before the programs run.
	waitFor(t, func() bool {
		return len(processesWith(t, "sleep 1000.341")) == 1 && len(processesWith(t, "sleep 1000.342")) == 1
	})
	if got, err := js.Get("A", a.ID); err != nil || got != a {
		t.Fatalf("A's own job: %v, %v", got, err)
	}
	_, nobody := js.Get("A", "job_"+strings.Repeat("a", 26))
	want := unknownAnswer(t, nobody, "job_"+strings.Repeat("a", 26))
	for name, guess := range guesses(a.ID) {
		for _, asker := range []string{"B", "", "a", "A "} {
			if asker == "A" && guess == a.ID {
				continue
			}
			_, err := js.Get(asker, guess)
			if got := unknownAnswer(t, err, guess); got != want {
				t.Errorf("session %q asking for %s (%q): %q, want the answer to an unknown id, %q", asker, name, guess, got, want)
			}
		}
		if guess != a.ID {
			if _, err := js.Get("A", guess); !errors.Is(err, ErrUnknownJob) {
				t.Errorf("A found its job by %s (%q): %v", name, guess, err)
			}
		}
	}
	if err := js.CloseSession("B"); err != nil {
		t.Fatal(err)
	}
	wantNoProcesses(t, "sleep 1000.342")
	if a.finished() || len(processesWith(t, "sleep 1000.341")) != 1 {
		t.Fatal("closing B's session ended A's job")
	}
	if err := js.CloseSession("A"); err != nil {
		t.Fatal(err)
	}
	wantNoProcesses(t, "sleep 1000.341")
	for _, j := range []*Job{a, b} {
		if !j.finished() {
			t.Errorf("job %s still runs after its session closed", j.ID)
		}
	}
	if _, err := js.Get("A", a.ID); !errors.Is(err, ErrUnknownJob) {
		t.Errorf("A's job is still known after its session closed: %v", err)
	}
}

// TestJobsStartNothingOnceTheCallEnded: the call of a session that is
// ending is cancelled before the session's jobs are killed; a job it would
// start after that would outlive its session, so none starts.
func TestJobsStartNothingOnceTheCallEnded(t *testing.T) {
	e := newRunEnv(t, "sleep")
	js := NewJobs()
	defer js.Close()
	ended := errors.New("the session ended")
	ctx, cancel := context.WithCancelCause(context.Background())
	cancel(ended)
	if j, err := js.Start(ctx, "A", e.spec("sleep 1000.351"), 0); !errors.Is(err, ended) {
		t.Fatalf("Start in a cancelled call: %v, %v; want the cancellation's cause", j, err)
	}
	if len(js.jobs) != 0 || len(processesWith(t, "sleep 1000.351")) != 0 {
		t.Error("a cancelled call left a job")
	}
}

// TestJobsLimitsAreEachSessions: one session filling its slots, or its
// finished-job history, takes nothing from another; the bound on all
// sessions together names no other session's count.
func TestJobsLimitsAreEachSessions(t *testing.T) {
	e := newRunEnv(t, "sleep", "true")
	js := NewJobs()
	defer js.Close()
	js.MaxRunning, js.MaxRunningAll, js.MaxKept = 2, 3, 1
	start := func(session, line string) (*Job, error) {
		return js.Start(context.Background(), session, e.spec(line), 0)
	}
	for range 2 {
		if _, err := start("A", "sleep 1000.361"); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := start("A", "sleep 1000.361"); err == nil || !strings.Contains(err.Error(), "of this session") {
		t.Errorf("A's third job: %v, want refused for A's own limit", err)
	}
	if _, err := start("B", "sleep 1000.361"); err != nil {
		t.Fatalf("B's first job while A is at its limit: %v", err)
	}
	_, err := start("C", "sleep 1000.361")
	if err == nil || strings.Contains(err.Error(), "2") {
		t.Errorf("C's job with all slots taken: %v; want refused, naming no other session's count", err)
	}
	js.CloseSession("A")
	js.CloseSession("B")
	wantNoProcesses(t, "sleep 1000.361")

	kept, err := start("A", "true")
	if err != nil {
		t.Fatal(err)
	}
	<-kept.done
	for range 3 {
		j, err := start("B", "true")
		if err != nil {
			t.Fatal(err)
		}
		<-j.done
	}
	if _, err := js.Get("A", kept.ID); err != nil {
		t.Errorf("B's finished jobs pushed out A's: %v", err)
	}
}

// FuzzJobsGet: no spelling but the exact id finds a job, and never for
// another session.
func FuzzJobsGet(f *testing.F) {
	e := newRunEnv(f, "true")
	js := NewJobs()
	f.Cleanup(func() { js.Close() })
	a, err := js.Start(context.Background(), "A", e.spec("true"), time.Minute)
	if err != nil {
		f.Fatal(err)
	}
	for _, g := range guesses(a.ID) {
		f.Add(g, "B")
	}
	f.Add("job_aaaaaaaaaaaaaaaaaaaaaaaaaa", "A")
	f.Fuzz(func(t *testing.T, guess, session string) {
		j, err := js.Get(session, guess)
		if session == "A" && guess == a.ID {
			if j != a || err != nil {
				t.Fatalf("A's own job: %v, %v", j, err)
			}
			return
		}
		if j != nil || !errors.Is(err, ErrUnknownJob) {
			t.Fatalf("session %q found %v by %q (%v)", session, j, guess, err)
		}
	})
}
