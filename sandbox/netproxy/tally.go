package netproxy

import "sync"

// Tally counts the requests a proxy served, as an audit record lists them:
// one entry per host, port, method and outcome, in the order first made,
// with a count; the first Max entries (Max <= 0: no bound), and a count of
// the requests beyond them. Requests come from the proxy's goroutines, so
// it is safe for concurrent use; its zero value is empty, and a nil Tally
// counts nothing.
//
// A call's record has one; so has a process that runs on after its call
// returned (a background job, a session, an MCP server), whose requests a
// later call takes ([Tally.Take]) and adds to its own ([Tally.Merge]).
type Tally struct {
	Max int

	mu      sync.Mutex
	counts  []Count
	omitted int
}

// Count is one entry of a [Tally]: N requests alike.
type Count struct {
	Contact
	N int
}

// Record counts one request; t.Record is a [Recorder].
func (t *Tally) Record(c Contact) {
	if t == nil {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	t.add(c, 1)
}

// Merge adds counts and omitted, another tally's (see [Tally.Take]).
func (t *Tally) Merge(counts []Count, omitted int) {
	if t == nil {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, c := range counts {
		t.add(c.Contact, c.N)
	}
	t.omitted += omitted
}

func (t *Tally) add(c Contact, n int) {
	for i := range t.counts {
		if t.counts[i].Contact == c {
			t.counts[i].N += n
			return
		}
	}
	if t.Max > 0 && len(t.counts) >= t.Max {
		t.omitted += n
		return
	}
	t.counts = append(t.counts, Count{Contact: c, N: n})
}

// List returns the entries and the count of requests beyond them.
func (t *Tally) List() ([]Count, int) {
	if t == nil {
		return nil, 0
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	return append([]Count(nil), t.counts...), t.omitted
}

// Take returns what List does and empties t: the requests made since the
// last Take.
func (t *Tally) Take() ([]Count, int) {
	if t == nil {
		return nil, 0
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	counts, omitted := t.counts, t.omitted
	t.counts, t.omitted = nil, 0
	return counts, omitted
}
