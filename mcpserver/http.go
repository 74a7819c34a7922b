package mcpserver

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// postHeader carries the id under which the HTTP request a message came in
// is registered; the guard overwrites whatever a client sends in it.
const postHeader = "X-Quiver-Request"

// Handler returns the streamable HTTP endpoint, and beside it the probes
// of a container platform: GET /healthz answers 200 while the process
// serves; GET /readyz answers 200 only when the server is not shutting
// down and every one of Options.ReadyChecks passes (503 naming the checks
// that fail, otherwise). The probes need no token and accept any Host.
//
// In front of the SDK's handler it checks, in order:
//
//   - Host: a loopback name, or one of Options.AllowedHosts; else 403 (DNS
//     rebinding: a hostile page whose name resolves to 127.0.0.1 sends its
//     own name as Host);
//   - Origin, when present: a loopback origin or one of
//     Options.AllowedOrigins; else 403;
//   - the bearer token, when Options.Token is set; else 401;
//   - for a request that would open a session at Options.MaxSessions, that
//     a session without a call in flight can make room (the least recently
//     used, one no client is attached to first); else 503 with Retry-After.
//
// DELETE of a session cancels its calls, killing the processes they
// started, then kills the background jobs the session started, with their
// process trees, and answers once all of them have ended. Bodies over
// Options.MaxBodyBytes are refused with 413 by the SDK's handler.
func (s *Server) Handler() http.Handler {
	sdk := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s.mcp }, &mcp.StreamableHTTPOptions{
		Logger:              sdkLogger(s.opts.Logger),
		MaxRequestBodyBytes: s.opts.MaxBodyBytes,
		// The guard below checks Host itself, against the allowed list too,
		// and closes idle sessions itself (the SDK's timeout counts an open
		// event stream as idle, and cannot evict).
		DisableLocalhostProtection: true,
	})
	return &guard{s: s, next: sdk}
}

type guard struct {
	s     *Server
	next  http.Handler
	newMu sync.Mutex
}

func (g *guard) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if g.s.serveHealth(w, r) {
		return
	}
	if !g.hostAllowed(r.Host) {
		http.Error(w, fmt.Sprintf("Forbidden: Host %q is not allowed (DNS rebinding protection)", r.Host), http.StatusForbidden)
		return
	}
	if o := r.Header.Get("Origin"); o != "" && !g.originAllowed(o) {
		http.Error(w, fmt.Sprintf("Forbidden: Origin %q is not allowed", o), http.StatusForbidden)
		return
	}
	if g.s.opts.Token != "" && !bearerMatches(r.Header.Get("Authorization"), g.s.opts.Token) {
		w.Header().Set("WWW-Authenticate", `Bearer realm="quiver"`)
		http.Error(w, "Unauthorized: a bearer token is required", http.StatusUnauthorized)
		return
	}
	session := r.Header.Get("Mcp-Session-Id")
	switch {
	case session == "" && r.Method == http.MethodPost && g.opensSession(r):
		// Session-opening requests are handled one at a time, so that the
		// count of open sessions is exact when the next one is checked: a
		// session joins the table part-way through its initialize request.
		g.newMu.Lock()
		defer g.newMu.Unlock()
		if !g.admit(w, r) {
			return
		}
	case session != "" && r.Method == http.MethodDelete:
		g.delete(w, r, session)
		return
	case session != "" && (r.Method == http.MethodPost || r.Method == http.MethodGet):
		end := g.s.sessions.begin(session, r.Method == http.MethodPost)
		defer end()
	}
	g.forward(w, r)
}

// forward hands r to the SDK, registered among the requests in flight.
func (g *guard) forward(w http.ResponseWriter, r *http.Request) {
	id := rand.Text()
	r.Header.Set(postHeader, id)
	if r.Method == http.MethodPost && g.s.tk.Telemetry() != nil {
		g.s.copyRequestID(r)
	}
	done := g.s.posts.add(id, r.Context(), r.Method == http.MethodPost)
	defer done()
	g.next.ServeHTTP(w, r)
}

// delete ends session id for its client. The SDK's close waits for the
// session's calls, so they are cancelled first; the SDK then closes the
// session and answers 204, which is held back until the session's jobs
// have ended too.
func (g *guard) delete(w http.ResponseWriter, r *http.Request, id string) {
	s := g.s.sessions.cancel(id, errSessionDeleted)
	if s != nil {
		g.s.opts.Logger.InfoContext(r.Context(), "session deleted by the client", "session", id)
	}
	held := &heldNoContent{ResponseWriter: w}
	g.forward(held, r)
	if !held.held {
		return
	}
	if s != nil {
		g.s.sessions.closed(id, s, errSessionDeleted)
	}
	w.WriteHeader(http.StatusNoContent)
}

// heldNoContent holds back a 204 (the SDK's answer to a DELETE that closed
// its session) for the guard to send when the session's jobs have ended.
type heldNoContent struct {
	http.ResponseWriter
	held bool
}

func (h *heldNoContent) WriteHeader(code int) {
	if code == http.StatusNoContent {
		h.held = true
		return
	}
	h.ResponseWriter.WriteHeader(code)
}

// admit makes room for a new session, evicting one that has no call in
// flight if the server is at its limit, or refuses the request: 503, with
// the limit and the setting that raises it. A slot frees the moment any
// call ends, which nobody can foresee: Retry-After says one second.
func (g *guard) admit(w http.ResponseWriter, r *http.Request) bool {
	max := g.s.opts.MaxSessions
	if g.s.sessions.count() < max {
		return true
	}
	victim, err := g.s.sessions.evict()
	if err == nil {
		g.s.opts.Logger.InfoContext(r.Context(), "session evicted to make room for a new one", "session", victim, "max_sessions", max)
		return true
	}
	g.s.refusals.note(r.Context(), g.s.opts.Logger, max, g.s.opts.MaxSessionsSetting)
	w.Header().Set("Retry-After", "1")
	http.Error(w, fmt.Sprintf("Service Unavailable: all %d sessions have a call in flight, the limit (raise it with %s); "+
		"a session is freed as soon as one of its calls ends", max, g.s.opts.MaxSessionsSetting), http.StatusServiceUnavailable)
	return false
}

// refusalLog logs refused sessions at most once per refusalLogEvery, with
// how many were refused since: a client retrying in a loop must not flood
// the log.
type refusalLog struct {
	mu      sync.Mutex
	last    time.Time
	pending int
}

const refusalLogEvery = time.Minute

func (l *refusalLog) note(ctx context.Context, logger *slog.Logger, max int, setting string) {
	l.mu.Lock()
	l.pending++
	now := time.Now()
	if now.Sub(l.last) < refusalLogEvery {
		l.mu.Unlock()
		return
	}
	n := l.pending
	l.last, l.pending = now, 0
	l.mu.Unlock()
	logger.WarnContext(ctx, "new sessions refused: every session has a call in flight",
		"refused", n, "max_sessions", max, "setting", setting, "interval", refusalLogEvery)
}

// opensSession reports whether a request without a session id would open
// one: whether it is an initialize request. Others (a probe for the newer
// protocol, garbage) get a session only for the length of the request, so
// they are not counted against the limit. The body is read here and put
// back; a body over the limit is left for the SDK's handler to refuse.
func (g *guard) opensSession(r *http.Request) bool {
	body, err := io.ReadAll(io.LimitReader(r.Body, g.s.opts.MaxBodyBytes+1))
	r.Body.Close()
	r.Body = io.NopCloser(bytes.NewReader(body))
	if err != nil || int64(len(body)) > g.s.opts.MaxBodyBytes {
		return false
	}
	var msg struct {
		Method string `json:"method"`
	}
	if json.Unmarshal(body, &msg) == nil {
		return msg.Method == "initialize"
	}
	var batch []struct {
		Method string `json:"method"`
	}
	if json.Unmarshal(body, &batch) == nil {
		for _, m := range batch {
			if m.Method == "initialize" {
				return true
			}
		}
	}
	return false
}

func (g *guard) hostAllowed(host string) bool {
	if isLoopbackHost(host) {
		return true
	}
	name, _, err := net.SplitHostPort(host)
	if err != nil {
		name = host
	}
	for _, a := range g.s.opts.AllowedHosts {
		if strings.EqualFold(a, host) || strings.EqualFold(a, name) {
			return true
		}
	}
	return false
}

func (g *guard) originAllowed(origin string) bool {
	for _, a := range g.s.opts.AllowedOrigins {
		if strings.EqualFold(strings.TrimSuffix(a, "/"), strings.TrimSuffix(origin, "/")) {
			return true
		}
	}
	u, err := url.Parse(origin)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") {
		return false
	}
	return isLoopbackHost(u.Host)
}

// isLoopbackHost reports whether a Host value (name, optional port) names
// this machine's loopback interface.
func isLoopbackHost(host string) bool {
	name, _, err := net.SplitHostPort(host)
	if err != nil {
		name = strings.TrimSuffix(strings.TrimPrefix(host, "["), "]")
	}
	if strings.EqualFold(name, "localhost") {
		return true
	}
	ip := net.ParseIP(name)
	return ip != nil && ip.IsLoopback()
}

func bearerMatches(header, token string) bool {
	got, ok := strings.CutPrefix(header, "Bearer ")
	return ok && subtle.ConstantTimeCompare([]byte(strings.TrimSpace(got)), []byte(token)) == 1
}

// inflight maps the id the guard gave an HTTP request to that request's
// context, so that a call can end when its client goes away.
type inflight struct {
	mu   sync.Mutex
	reqs map[string]request
}

type request struct {
	ctx  context.Context
	post bool
}

func (f *inflight) add(id string, ctx context.Context, post bool) (done func()) {
	f.mu.Lock()
	if f.reqs == nil {
		f.reqs = map[string]request{}
	}
	f.reqs[id] = request{ctx, post}
	f.mu.Unlock()
	return func() {
		f.mu.Lock()
		delete(f.reqs, id)
		f.mu.Unlock()
	}
}

// countPosts counts the POST requests in flight.
func (f *inflight) countPosts() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	n := 0
	for _, r := range f.reqs {
		if r.post {
			n++
		}
	}
	return n
}

// bind returns ctx cancelled also when the HTTP request the call came in
// ends before the call does: the client hung up, and without an event store
// the answer could never be delivered.
func (f *inflight) bind(ctx context.Context, extra *mcp.RequestExtra) (context.Context, func()) {
	if extra == nil || extra.Header == nil {
		return ctx, func() {}
	}
	f.mu.Lock()
	reqCtx := f.reqs[extra.Header.Get(postHeader)].ctx
	f.mu.Unlock()
	if reqCtx == nil {
		return ctx, func() {}
	}
	ctx, cancel := context.WithCancelCause(ctx)
	stop := context.AfterFunc(reqCtx, func() { cancel(errClientGone) })
	return ctx, func() { stop(); cancel(nil) }
}

var errClientGone = errors.New("the client closed its HTTP request")

// Serve serves the HTTP endpoint on ln until ctx ends, then shuts down
// gracefully: it stops accepting connections and answers /readyz 503, lets
// calls in flight finish for up to Options.ShutdownGrace, then cancels the
// calls left (killing the processes they started), closes the sessions and
// returns. A listener that fails is an error; an orderly shutdown is not.
func (s *Server) Serve(ctx context.Context, ln net.Listener) error {
	srv := &http.Server{Handler: s.Handler(), ReadHeaderTimeout: 10 * time.Second}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	select {
	case err := <-served:
		return fmt.Errorf("mcpserver: %w", err)
	case <-ctx.Done():
	}
	s.health.stopping.Store(true)
	s.opts.Logger.Info("shutting down", "grace", s.opts.ShutdownGrace, "calls_in_flight", s.postsInFlight())
	shutdown := make(chan error, 1)
	go func() {
		sctx, cancel := context.WithTimeout(context.Background(), s.opts.ShutdownGrace+5*time.Second)
		defer cancel()
		shutdown <- srv.Shutdown(sctx)
	}()
	deadline := time.Now().Add(s.opts.ShutdownGrace)
	for s.postsInFlight() > 0 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	s.sessions.endAll(errServerStopping)
	for ss := range s.mcp.Sessions() {
		ss.Close()
	}
	if err := <-shutdown; err != nil {
		srv.Close()
	}
	<-served
	return nil
}

// postsInFlight counts HTTP requests that carry messages and are not done;
// an open event stream (GET) does not count, since it never ends by itself.
func (s *Server) postsInFlight() int { return s.posts.countPosts() }
