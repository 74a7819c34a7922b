package tool_test

import (
	"context"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/quiverkit/quiver/tool"
)

// sessionLog is a Shared dependency that keeps state per session and
// records which sessions were closed.
type sessionLog struct {
	mu     sync.Mutex
	closed []string
}

func (l *sessionLog) CloseSession(id string) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.closed = append(l.closed, id)
	return nil
}

// TestSessionsOfCalls: a call's context names its session, "" by default;
// a one-call session names none; the shared scope's CloseSession reaches
// every value made in it that keeps state per session, once made.
func TestSessionsOfCalls(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name    string
		ctx     context.Context
		id      string
		oneCall bool
	}{
		{"no session: the default one", ctx, "", false},
		{"a named session", tool.WithSession(ctx, "mcp:abc"), "mcp:abc", false},
		{"a one-call session", tool.WithOneCallSession(ctx), "", true},
		{"a session named inside a one-call one is not one-call", tool.WithSession(tool.WithOneCallSession(ctx), "x"), "x", false},
	}
	for _, tt := range tests {
		if id, one := tool.SessionOf(tt.ctx), tool.OneCallSession(tt.ctx); id != tt.id || one != tt.oneCall {
			t.Errorf("%s: session %q, one-call %v; want %q, %v", tt.name, id, one, tt.id, tt.oneCall)
		}
	}

	shared := tool.NewScope(nil, nil)
	key := tool.Key[*sessionLog]{ID: "test.sessions", Shared: true,
		Create: func(context.Context) (*sessionLog, error) { return &sessionLog{}, nil }}
	if err := shared.CloseSession("before"); err != nil {
		t.Fatal(err)
	}
	call := tool.NewScope(nil, shared)
	log, err := tool.Resolve(ctx, tool.NewContext("c1", "t", nil, call), key)
	if err != nil {
		t.Fatal(err)
	}
	if err := call.CloseSession("per-call scope"); err != nil {
		t.Fatal(err)
	}
	if err := shared.CloseSession("A"); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"A"}, log.closed); diff != "" {
		t.Errorf("sessions closed (-want +got):\n%s", diff)
	}
}
