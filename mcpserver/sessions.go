package mcpserver

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// sessions is the server's own account of its HTTP sessions, kept beside
// the SDK's so that a session costs nothing once its client is gone:
//
//   - a session is busy while one of its POST requests is in flight (a call
//     runs), attached while an event stream (GET) is open, idle otherwise;
//   - a session idle for Options.SessionTimeout is closed: a client that
//     crashed never sends DELETE, but its connections end with it;
//   - at Options.MaxSessions, a newcomer takes the place of the least
//     recently used session that is not busy (one no client is attached to
//     first), and is refused only when every session is busy;
//   - a session that ends — DELETE, eviction, timeout, shutdown, its client
//     gone — has its calls cancelled first, which kills the processes they
//     started, since the SDK's close waits for them; then the background
//     jobs its calls started are killed, with their process trees (a call
//     cancelled first starts none after that).
type sessions struct {
	idle   time.Duration
	logger *slog.Logger
	ended  func(*mcp.ServerSession) // kills the jobs of a session that leaves the table

	mu   sync.Mutex
	byID map[string]*session
}

type session struct {
	ss       *mcp.ServerSession
	posts    int       // POST requests in flight
	streams  int       // event streams (GET) open
	lastUsed time.Time // when a request last began or ended
	calls    map[uint64]context.CancelCauseFunc
	timer    *time.Timer   // closes the session when idle too long
	gen      uint64        // bumped at every request, so a stale timer does nothing
	gone     chan struct{} // closed once the session has left the table and its jobs have ended
}

// Why a session's calls were cancelled.
var (
	errSessionDeleted   = errors.New("the client ended the session (DELETE)")
	errSessionEvicted   = errors.New("the session was evicted to make room for a new one")
	errSessionIdle      = errors.New("the session was idle too long")
	errServerStopping   = errors.New("the server is shutting down")
	errSessionEnded     = errors.New("the session ended")
	errEverySessionBusy = errors.New("every session is busy")
)

func newSessions(idle time.Duration, logger *slog.Logger, ended func(*mcp.ServerSession)) *sessions {
	return &sessions{idle: idle, logger: logger, ended: ended, byID: map[string]*session{}}
}

// add records a session that has just been initialized, and forgets it
// when it closes, however that happens.
func (t *sessions) add(ss *mcp.ServerSession) {
	id := ss.ID()
	t.mu.Lock()
	if t.byID[id] != nil {
		t.mu.Unlock()
		return
	}
	s := &session{ss: ss, lastUsed: time.Now(), calls: map[uint64]context.CancelCauseFunc{}, gone: make(chan struct{})}
	t.byID[id] = s
	t.armLocked(id, s)
	t.mu.Unlock()
	go func() {
		ss.Wait()
		t.forget(id, errSessionEnded)
	}()
}

func (t *sessions) count() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return len(t.byID)
}

// begin records a request of session id beginning; the returned func
// records its end. A request for a session the table does not know (one
// that has ended, or never was) changes nothing: the SDK answers it 404.
func (t *sessions) begin(id string, post bool) (end func()) {
	t.mu.Lock()
	defer t.mu.Unlock()
	s := t.byID[id]
	if s == nil {
		return func() {}
	}
	if post {
		s.posts++
	} else {
		s.streams++
	}
	t.touchLocked(s)
	return func() {
		t.mu.Lock()
		defer t.mu.Unlock()
		if post {
			s.posts--
		} else {
			s.streams--
		}
		t.touchLocked(s)
		if t.byID[id] == s {
			t.armLocked(id, s)
		}
	}
}

func (t *sessions) touchLocked(s *session) {
	s.lastUsed = time.Now()
	s.gen++
	if s.timer != nil {
		s.timer.Stop()
		s.timer = nil
	}
}

// armLocked starts the idle clock of s if no request of it is open.
func (t *sessions) armLocked(id string, s *session) {
	if s.posts > 0 || s.streams > 0 || t.idle <= 0 {
		return
	}
	gen := s.gen
	s.timer = time.AfterFunc(t.idle, func() {
		t.mu.Lock()
		stale := t.byID[id] != s || s.gen != gen
		t.mu.Unlock()
		if !stale && t.end(id, errSessionIdle) {
			t.logger.Info("session closed: idle too long", "session", id, "session_timeout", t.idle)
		}
	})
}

// track registers a call of session id; the returned context is cancelled,
// with the reason as its cause, when the session ends. A call of a session
// that has already left the table (it is being closed: evicted, deleted)
// gets a context cancelled already, so that the close it races with does
// not wait for it. Calls over stdio (no id) are not tracked.
func (t *sessions) track(ctx context.Context, id string, callID uint64) (context.Context, func()) {
	if id == "" {
		return ctx, func() {}
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	ctx, cancel := context.WithCancelCause(ctx)
	s := t.byID[id]
	if s == nil {
		cancel(errSessionEnded)
		return ctx, func() {}
	}
	s.calls[callID] = cancel
	return ctx, func() {
		t.mu.Lock()
		delete(s.calls, callID)
		t.mu.Unlock()
		cancel(nil)
	}
}

// forget drops session id from the table, cancels its calls, then kills
// the jobs they started.
func (t *sessions) forget(id string, why error) (*session, bool) {
	t.mu.Lock()
	s := t.byID[id]
	var calls []context.CancelCauseFunc
	if s != nil {
		delete(t.byID, id)
		if s.timer != nil {
			s.timer.Stop()
		}
		calls = s.snapshotCalls()
	}
	t.mu.Unlock()
	for _, cancel := range calls {
		cancel(why)
	}
	if s == nil {
		return nil, false
	}
	if t.ended != nil {
		t.ended(s.ss)
	}
	close(s.gone)
	return s, true
}

// snapshotCalls copies the cancel funcs of s's calls; the table's lock is
// held.
func (s *session) snapshotCalls() []context.CancelCauseFunc {
	out := make([]context.CancelCauseFunc, 0, len(s.calls))
	for _, c := range s.calls {
		out = append(out, c)
	}
	return out
}

// end cancels the calls of session id and closes it; it returns once the
// SDK has let the session go (its calls have returned).
func (t *sessions) end(id string, why error) bool {
	s, ok := t.forget(id, why)
	if ok {
		s.ss.Close()
	}
	return ok
}

// cancel cancels the calls of session id, keeping the session: DELETE does
// this before the SDK closes the session, since the SDK's close waits for
// the calls to return. It returns the session, nil if there is none.
func (t *sessions) cancel(id string, why error) *session {
	t.mu.Lock()
	s := t.byID[id]
	var calls []context.CancelCauseFunc
	if s != nil {
		calls = s.snapshotCalls()
	}
	t.mu.Unlock()
	for _, c := range calls {
		c(why)
	}
	return s
}

// closed finishes a session the SDK has closed (DELETE): it leaves the
// table, and its jobs are killed, here or by the watch add started,
// whichever comes first; closed returns once they have ended.
func (t *sessions) closed(id string, s *session, why error) {
	t.forget(id, why)
	<-s.gone
}

// evict ends the least recently used session that is not busy, preferring
// one no client is attached to. It returns the id of the session evicted,
// or errEverySessionBusy.
func (t *sessions) evict() (string, error) {
	t.mu.Lock()
	var victim string
	var vs *session
	for id, s := range t.byID {
		if s.posts > 0 {
			continue
		}
		if vs == nil || s.streams == 0 && vs.streams > 0 ||
			(s.streams == 0) == (vs.streams == 0) && s.lastUsed.Before(vs.lastUsed) {
			victim, vs = id, s
		}
	}
	t.mu.Unlock()
	if vs == nil {
		return "", errEverySessionBusy
	}
	t.end(victim, errSessionEvicted)
	return victim, nil
}

// endAll ends every session, for shutdown.
func (t *sessions) endAll(why error) {
	t.mu.Lock()
	ids := make([]string, 0, len(t.byID))
	for id := range t.byID {
		ids = append(ids, id)
	}
	t.mu.Unlock()
	var wg sync.WaitGroup
	for _, id := range ids {
		wg.Go(func() { t.end(id, why) })
	}
	wg.Wait()
}
