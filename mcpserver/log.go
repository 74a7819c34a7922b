package mcpserver

import (
	"context"
	"log/slog"
)

// logIDs are the ids a call's logs carry.
type logIDs struct{ session, call string }

type logIDsKey struct{}

func withLogIDs(ctx context.Context, session, call string) context.Context {
	return context.WithValue(ctx, logIDsKey{}, logIDs{session, call})
}

// LogHandler returns h adding, to every record logged with the context of
// a call the server runs, the call's "session" (the MCP session id; empty
// over stdio) and "call" (the call id, also the audit record's) attributes.
// Give the same logger to the toolkit ([quiver.WithLogger]) and to the
// server (Options.Logger): the pipeline logs with the call's context, so
// its records are tied to the session and the call too.
func LogHandler(h slog.Handler) slog.Handler {
	if ih, ok := h.(idsHandler); ok {
		return ih
	}
	return idsHandler{h}
}

type idsHandler struct{ slog.Handler }

func (h idsHandler) Handle(ctx context.Context, r slog.Record) error {
	if ids, ok := ctx.Value(logIDsKey{}).(logIDs); ok {
		r = r.Clone()
		if ids.session != "" {
			r.AddAttrs(slog.String("session", ids.session))
		}
		r.AddAttrs(slog.String("call", ids.call))
	}
	return h.Handler.Handle(ctx, r)
}

func (h idsHandler) WithAttrs(as []slog.Attr) slog.Handler {
	return idsHandler{h.Handler.WithAttrs(as)}
}

func (h idsHandler) WithGroup(name string) slog.Handler {
	return idsHandler{h.Handler.WithGroup(name)}
}
