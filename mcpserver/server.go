package mcpserver

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/quiverkit/quiver"
	"github.com/quiverkit/quiver/driver"
	"github.com/quiverkit/quiver/outputcache"
	"github.com/quiverkit/quiver/policy/approve"
	"github.com/quiverkit/quiver/tool"
)

// ProtocolVersions are the MCP revisions the server negotiates, newest
// first (see the package documentation for why 2026-07-28 is not among them).
var ProtocolVersions = []string{"2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"}

// DefaultMaxBodyBytes is the largest request the server reads unless
// Options.MaxBodyBytes says otherwise: 4 MiB, the MCP SDK's default. It is
// also the cap `quiver call` puts on the arguments it reads, so that one
// number bounds a call's arguments whichever way they arrive, and the
// memory a call takes with them.
const DefaultMaxBodyBytes = mcp.DefaultMaxRequestBodyBytes

// Options configure a [Server]. The zero value serves with the defaults
// noted on each field.
type Options struct {
	Name    string // server name in the initialize answer; default "quiver"
	Version string // server version; default "dev"
	// Instructions are shown to clients that pass them to the model.
	Instructions string
	// Defer, when set, says which tools wait behind tool search: tools/list
	// marks the others with _meta["anthropic/alwaysLoad"], for clients that
	// defer tools themselves. Every tool stays callable by name.
	Defer *driver.Deferral
	// ToolSearch, with Defer set, is for clients that defer nothing: the
	// listing holds the tools not deferred and a tool_search that returns
	// the matching deferred tools' definitions and adds them to the listing
	// (clients are sent notifications/tools/list_changed). What a search
	// loads stays listed for every session of the server.
	ToolSearch bool
	// Logger receives the server's own logs (never stdout); default
	// discard. Records about a call carry its session and call ids (see
	// [LogHandler]).
	Logger *slog.Logger

	// The HTTP transport's settings; see [Server.Handler].

	// AllowedHosts are Host header values accepted besides the loopback
	// names (localhost, 127.0.0.1, [::1], any port). A value without a port
	// matches any port.
	AllowedHosts []string
	// AllowedOrigins are Origin header values accepted besides loopback
	// origins (http or https, any port). Requests without Origin are
	// accepted: only browsers send it.
	AllowedOrigins []string
	// Token, when set, must come with every HTTP request as
	// "Authorization: Bearer TOKEN".
	Token string
	// MaxBodyBytes bounds one HTTP request body, and one line of stdio;
	// default DefaultMaxBodyBytes.
	MaxBodyBytes int64
	// MaxSessions bounds the HTTP sessions open at once; default 64. At the
	// limit a newcomer takes the place of the least recently used session
	// that has no call in flight; only when every session has one is it
	// told 503, with Retry-After.
	MaxSessions int
	// MaxSessionsSetting names, in that 503's body, the setting that
	// raises MaxSessions (for `quiver serve`, its --max-sessions flag);
	// default "MaxSessions".
	MaxSessionsSetting string
	// SessionTimeout closes an HTTP session that has had no request open
	// — no call in flight, no event stream — for this long; default 2
	// minutes. A client that is connected keeps its event stream open, so
	// this reclaims the sessions of clients that went away without DELETE.
	SessionTimeout time.Duration
	// ShutdownGrace is how long [Server.Serve] lets calls in flight finish
	// after its context ends, before it cancels them (killing the processes
	// they started); default 10 seconds.
	ShutdownGrace time.Duration
	// ReadyChecks are what /readyz checks besides the server itself (see
	// [Server.Handler]).
	ReadyChecks []Check
	// ProgressInterval is how often a call whose client gave a progress
	// token is reported on while it runs; default DefaultProgressInterval.
	ProgressInterval time.Duration
	// StdinGrace is how long [Server.Run] lets calls in flight finish after
	// the client closed its end; default 2 seconds.
	StdinGrace time.Duration
}

func (o *Options) setDefaults() {
	if o.Name == "" {
		o.Name = "quiver"
	}
	if o.Version == "" {
		o.Version = "dev"
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	o.Logger = slog.New(LogHandler(o.Logger.Handler()))
	if o.MaxBodyBytes <= 0 {
		o.MaxBodyBytes = DefaultMaxBodyBytes
	}
	if o.MaxSessions <= 0 {
		o.MaxSessions = 64
	}
	if o.MaxSessionsSetting == "" {
		o.MaxSessionsSetting = "MaxSessions"
	}
	if o.SessionTimeout <= 0 {
		o.SessionTimeout = DefaultSessionTimeout
	}
	if o.ShutdownGrace <= 0 {
		o.ShutdownGrace = 10 * time.Second
	}
	if o.ProgressInterval <= 0 {
		o.ProgressInterval = DefaultProgressInterval
	}
	if o.StdinGrace <= 0 {
		o.StdinGrace = 2 * time.Second
	}
}

// DefaultSessionTimeout is the default of Options.SessionTimeout.
const DefaultSessionTimeout = 2 * time.Minute

// Server is a toolkit served over MCP. One Server serves any number of
// sessions (one stdio session, or many over HTTP); they share the toolkit,
// and so its output cache: a ref returned in one call can be read in any
// later call. Background jobs are not shared: each is its session's, and
// ends with it.
type Server struct {
	tk   *quiver.Toolkit
	opts Options
	mcp  *mcp.Server

	mu       sync.Mutex
	listed   map[string]*tool.Tool // the tools the listing shows, by name
	loaded   map[string]bool       // deferred tools tool_search has listed
	searched bool                  // tool_search is listed

	posts    inflight  // HTTP requests in flight, for cancellation on disconnect
	sessions *sessions // HTTP sessions: busy or idle, their calls
	calls    atomic.Uint64
	refusals refusalLog
	health   health
}

// New returns a server for tk. It lists the toolkit's allowed tools once; a
// toolkit whose catalogue cannot be read is an error.
func New(ctx context.Context, tk *quiver.Toolkit, opts Options) (*Server, error) {
	opts.setDefaults()
	s := &Server{tk: tk, opts: opts, listed: map[string]*tool.Tool{}, loaded: map[string]bool{}}
	s.sessions = newSessions(opts.SessionTimeout, opts.Logger, func(ss *mcp.ServerSession) { s.endSession(toolSession(ss)) })
	s.mcp = mcp.NewServer(&mcp.Implementation{Name: opts.Name, Version: opts.Version}, &mcp.ServerOptions{
		Instructions:              opts.Instructions,
		Logger:                    sdkLogger(opts.Logger),
		SupportedProtocolVersions: ProtocolVersions,
		Capabilities: &mcp.ServerCapabilities{
			//lint:ignore SA1019 clients of the protocol versions Quiver serves still use logging; it stays functional through the deprecation window
			Logging: &mcp.LoggingCapabilities{},
			Tools:   &mcp.ToolCapabilities{ListChanged: true},
		},
	})
	s.mcp.AddReceivingMiddleware(s.traced, s.middleware)
	if err := s.Refresh(ctx); err != nil {
		return nil, err
	}
	return s, nil
}

// MCP returns the underlying SDK server, for hosts that add prompts or
// resources of their own. Sessions a host connects to it itself, not
// through Run or Handler, keep their background jobs until the toolkit
// closes.
func (s *Server) MCP() *mcp.Server { return s.mcp }

// Refresh brings the listing in line with the toolkit's allowed tools.
// Connected clients are sent a list-changed notification when it changed.
func (s *Server) Refresh(ctx context.Context) error {
	tools, err := s.tk.AllowedTools(ctx)
	if err != nil {
		return fmt.Errorf("mcpserver: list tools: %w", err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	want := make(map[string]*tool.Tool, len(tools))
	deferred := false
	for _, t := range tools {
		if s.opts.ToolSearch && s.opts.Defer.Deferred(t.Name) && !s.loaded[t.Name] {
			deferred = true
			continue
		}
		want[t.Name] = t
		if s.listed[t.Name] != t {
			s.mcp.AddTool(mcpTool(t, s.opts.Defer), s.handle)
		}
	}
	s.offerSearch(deferred)
	var gone []string
	for name := range s.listed {
		if want[name] == nil {
			gone = append(gone, name)
		}
	}
	if len(gone) > 0 {
		s.mcp.RemoveTools(gone...)
	}
	s.listed = want
	return nil
}

// middleware refreshes the listing before tools/list answers, and routes
// tools/call of unlisted names through the pipeline too.
func (s *Server) middleware(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		switch method {
		case "tools/list":
			if err := s.Refresh(ctx); err != nil {
				s.opts.Logger.WarnContext(ctx, "refreshing the tool listing", "err", err)
			}
		case "tools/call":
			if r, ok := req.(*mcp.CallToolRequest); ok && !s.lists(r.Params.Name) {
				return s.callUnlisted(ctx, r)
			}
		case "initialize":
			res, err := next(ctx, method, req)
			if ss, ok := req.GetSession().(*mcp.ServerSession); ok && err == nil && ss.ID() != "" {
				s.sessions.add(ss) // an HTTP session: stdio has no id
				s.opts.Logger.InfoContext(ctx, "session opened", "session", ss.ID())
			}
			return res, err
		}
		return next(ctx, method, req)
	}
}

func (s *Server) lists(name string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.listed[name] != nil || (s.searched && name == driver.ToolSearchName)
}

// callUnlisted runs a call of a name the listing does not show: an alias,
// or a tool the policy hides. Only a name nobody serves is a protocol error.
func (s *Server) callUnlisted(ctx context.Context, req *mcp.CallToolRequest) (mcp.Result, error) {
	out := s.invoke(ctx, req)
	if out.Err != nil && out.Err.Code == tool.CodeToolNotFound {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams,
			Message: fmt.Sprintf("unknown tool %q (%s)", req.Params.Name, out.Err.Code)}
	}
	return callResult(out, nil, s.budget(ctx)), nil
}

// handle is the raw handler of every listed tool.
func (s *Server) handle(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	out := s.invoke(ctx, req)
	s.mu.Lock()
	listed := s.listed[req.Params.Name]
	s.mu.Unlock()
	return callResult(out, listed, s.budget(ctx)), nil
}

// budget is the toolkit's message budget (quiver.WithOutputCache, [output]
// max_bytes): the pipeline trims a call's text to it, and callResult its
// structured content.
func (s *Server) budget(ctx context.Context) outputcache.Budget {
	b, err := quiver.Dependency(ctx, s.tk, outputcache.BudgetKey)
	if err != nil || b.MaxBytes <= 0 { // zero fields take the defaults
		return outputcache.DefaultBudget()
	}
	return b
}

// invoke runs one tools/call through the toolkit's pipeline. The call ends
// early when its client hangs up or its session ends; the logs of the call
// carry its session and call ids (see [LogHandler]).
func (s *Server) invoke(ctx context.Context, req *mcp.CallToolRequest) quiver.Output {
	n := s.calls.Add(1)
	callID := "mcp_" + strconv.FormatUint(n, 10)
	sessionID := req.Session.ID()
	ctx = withLogIDs(ctx, sessionID, callID)
	ctx = approve.WithSession(ctx, req.Session)
	ctx = tool.WithSession(ctx, toolSession(req.Session))
	ctx, stop := s.posts.bind(ctx, req.Extra)
	defer stop()
	ctx, untrack := s.sessions.track(ctx, sessionID, n)
	defer untrack()
	ctx, stopProgress := s.progressReports(ctx, req)
	defer stopProgress()
	args := req.Params.Arguments
	if len(bytes.TrimSpace(args)) == 0 {
		args = json.RawMessage("{}") // arguments are optional in MCP
	}
	start := time.Now()
	out, _ := s.tk.InvokeCall(ctx, driver.ToolCall{ID: callID, Name: req.Params.Name, Arguments: args})
	var code tool.Code
	if out.Err != nil {
		code = out.Err.Code
	}
	if code == tool.CodeCancelled {
		s.opts.Logger.InfoContext(ctx, "call cancelled", "tool", req.Params.Name, "cause", context.Cause(ctx))
	} else {
		s.opts.Logger.DebugContext(ctx, "call", "tool", req.Params.Name, "code", code, "duration", time.Since(start))
	}
	logCall(ctx, req, callID, code, time.Since(start))
	return out
}

// Run serves one session over r and w — stdin and stdout for `quiver serve`
// — until the client closes r or ctx ends. A client that closes its end is a
// clean end, not an error. Calls in flight when the session ends are
// cancelled: when r ends, requests already read are answered if they finish
// within Options.StdinGrace, and the rest are cancelled. Nothing but
// protocol messages is written to w. A line that is not one JSON-RPC 2.0
// message — not JSON, JSON of another shape (`[]`, `{}`, `null`, a batch),
// or longer than Options.MaxBodyBytes — is answered with a JSON-RPC error
// whose id is null, and the session goes on. When the session ends, the
// background jobs its calls started are killed with their process trees,
// before Run returns.
func (s *Server) Run(ctx context.Context, r io.Reader, w io.WriteCloser) error {
	out := &lockedWriter{w: w}
	in := filterLines(r, out, int(s.opts.MaxBodyBytes), s.opts.StdinGrace, s.tk.Telemetry() != nil)
	// The filter bounds a line; the SDK's own bound would end the session
	// instead of answering (and counts bytes read ahead as the message's).
	ss, err := s.mcp.Connect(ctx, &mcp.IOTransport{Reader: in, Writer: out, MaxLineLength: -1}, nil)
	if err == nil {
		err = s.serveSession(ctx, ss)
	}
	if err == nil || errors.Is(err, io.EOF) || errors.Is(err, mcp.ErrConnectionClosed) {
		return nil
	}
	if ctx.Err() != nil && errors.Is(err, ctx.Err()) {
		return nil
	}
	return fmt.Errorf("mcpserver: %w", err)
}

// serveSession waits for a stdio session to end (or ctx), as the SDK's
// Run does, then kills the background jobs it started: the end of a stdio
// session is the end of its client. The session has no call in flight by
// then (the SDK's session ends once its calls have returned), so no job
// can start after.
func (s *Server) serveSession(ctx context.Context, ss *mcp.ServerSession) error {
	defer s.endSession(toolSession(ss))
	ended := make(chan error, 1)
	go func() { ended <- ss.Wait() }()
	select {
	case <-ctx.Done():
		ss.Close()
		<-ended
		return ctx.Err()
	case err := <-ended:
		return err
	}
}

// toolSession is the toolkit's session (tool.WithSession) of an MCP
// session's calls, which its background jobs and its plan belong to: the
// HTTP session's id (random, made by the SDK), or, over stdio, where a
// session has no id, the session's address, its own while it lives, after
// a token of the process's own (a plan kept in a Redis that other
// processes share must not meet theirs); its jobs are ended before Run lets
// it go.
func toolSession(ss *mcp.ServerSession) string {
	if id := ss.ID(); id != "" {
		return "mcp:" + id
	}
	return fmt.Sprintf("mcp-stdio:%s:%p", processToken(), ss)
}

// processToken tells this process's stdio sessions from another's.
var processToken = sync.OnceValue(rand.Text)

// endSession kills the background jobs of a session that has ended.
func (s *Server) endSession(id string) {
	if err := s.tk.EndSession(id); err != nil {
		s.opts.Logger.Warn("ending the background jobs of a session", "session", id, "err", err)
	}
}

// sdkLogger is the logger given to the SDK: its session lifecycle messages
// (info) are kept only when the host logs at debug level.
func sdkLogger(l *slog.Logger) *slog.Logger {
	if l.Enabled(context.Background(), slog.LevelDebug) {
		return l
	}
	return slog.New(minLevel{l.Handler(), slog.LevelWarn})
}

// minLevel drops records below min.
type minLevel struct {
	slog.Handler
	min slog.Level
}

func (m minLevel) Enabled(ctx context.Context, l slog.Level) bool {
	return l >= m.min && m.Handler.Enabled(ctx, l)
}

func (m minLevel) WithAttrs(as []slog.Attr) slog.Handler {
	return minLevel{m.Handler.WithAttrs(as), m.min}
}

func (m minLevel) WithGroup(name string) slog.Handler {
	return minLevel{m.Handler.WithGroup(name), m.min}
}
