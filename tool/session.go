package tool

import (
	"context"
	"errors"
)

// A session is one client of a toolkit: one MCP client's session, one
// agent of a host that runs several on one toolkit. State a tool keeps from
// one call to the next for whoever called it — exec_command's background
// jobs — belongs to the session that made it: another session's calls
// cannot see it, and when the session ends ([Scope.CloseSession], which the
// toolkit's EndSession calls) it goes.
//
// Calls made without [WithSession] belong to the default session, "": a
// host with a single agent never needs to name one, and its state lives as
// long as the toolkit.

type sessionKey struct{}

type session struct {
	id      string
	oneCall bool
}

// WithSession returns ctx marking the calls made with it as calls of
// session id.
func WithSession(ctx context.Context, id string) context.Context {
	return context.WithValue(ctx, sessionKey{}, session{id: id})
}

// WithOneCallSession returns ctx marking its call as the only call of its
// session, which ends when the call returns: `quiver call` runs one call
// and exits. A tool refuses to start for such a call what would outlive it
// (exec_command's background jobs), instead of starting what would die
// unread at once.
func WithOneCallSession(ctx context.Context) context.Context {
	return context.WithValue(ctx, sessionKey{}, session{oneCall: true})
}

// SessionOf returns the session of the call ctx belongs to ("" for the
// default session).
func SessionOf(ctx context.Context) string {
	s, _ := ctx.Value(sessionKey{}).(session)
	return s.id
}

// OneCallSession reports whether the call ctx belongs to is the only call of
// its session (see [WithOneCallSession]).
func OneCallSession(ctx context.Context) bool {
	s, _ := ctx.Value(sessionKey{}).(session)
	return s.oneCall
}

// SessionCloser is a dependency value that keeps state per session:
// CloseSession ends what session id left behind, such as the processes its
// calls started.
type SessionCloser interface {
	CloseSession(id string) error
}

// CloseSession calls CloseSession(id) on every value made in this scope
// that is a [SessionCloser], and returns their errors joined. A value still
// being made is skipped: no call of any session has used it yet.
func (s *Scope) CloseSession(id string) error {
	s.mu.Lock()
	var closers []SessionCloser
	for _, lv := range s.values {
		if !lv.made.Load() {
			continue
		}
		if c, ok := lv.v.(SessionCloser); ok && lv.err == nil {
			closers = append(closers, c)
		}
	}
	s.mu.Unlock()
	var errs []error
	for _, c := range closers {
		errs = append(errs, c.CloseSession(id))
	}
	return errors.Join(errs...)
}
