package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"path"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/quiverkit/quiver/audit"
	"github.com/quiverkit/quiver/provider"
	"github.com/quiverkit/quiver/sandbox"
	"github.com/quiverkit/quiver/sandbox/netproxy"
	"github.com/quiverkit/quiver/tool"
)

// Config describes one MCP server: [[tools.mcp.servers]] in quiver.toml.
type Config struct {
	Name string // the server's name, the SERVER in SERVER__TOOL

	// A stdio server: the command, its arguments, extra environment (on top
	// of the minimal one, see sandbox.BaseEnvNames; values expand ${VAR} from
	// Quiver's environment) and working directory.
	Command string
	Args    []string
	Env     map[string]string
	Dir     string

	// A streamable HTTP server: its URL and extra request headers.
	URL     string
	Headers map[string]string

	// EnabledTools, when set, keeps only the server's tools whose names
	// match one of these patterns (path.Match syntax, the server's own tool
	// names); DisabledTools leaves out those that match.
	EnabledTools  []string
	DisabledTools []string

	// Timeout bounds each call; StartTimeout bounds starting the server (the
	// initialize handshake) and each listing of its tools. Both default to
	// 60 seconds.
	Timeout      time.Duration
	StartTimeout time.Duration
	// Risk, when set, is the risk of every tool of the server; else a tool is
	// low-risk when it says it is read-only, high-risk otherwise.
	Risk tool.Risk

	// Sandbox confines a stdio server like every process Quiver starts
	// (package sandbox): nil means sandbox.Default for Dir (workspace-write,
	// network off). NoSandbox runs it unconfined: the operator's opt-out for
	// a server that needs the network or writes elsewhere.
	Sandbox   *sandbox.Profile
	NoSandbox bool

	// Logger receives the provider's events and the server's stderr lines
	// (at debug level); default discard.
	Logger *slog.Logger
	// HTTPClient is used for URL servers; default http.DefaultClient.
	HTTPClient *http.Client
}

// DefaultTimeout is the default of Config.Timeout and Config.StartTimeout.
const DefaultTimeout = 60 * time.Second

// healthyAfter is how long a server must have run for its end to count as
// a crash to recover from at once rather than a failed start to back off
// from (a variable for tests).
var healthyAfter = 5 * time.Second

// protocolVersion is the revision Quiver's client asks for. Servers that
// only speak older ones answer with theirs; see package mcpserver for why
// 2026-07-28 is not used yet.
const protocolVersion = "2025-11-25"

// Provider serves one MCP server's tools. It is safe for concurrent use;
// Close it when done.
type Provider struct {
	cfg    Config
	log    *slog.Logger
	prefix string // namePrefix(cfg.Name)

	mu       sync.Mutex
	conn     *conn        // the live connection, nil when there is none
	tools    []*tool.Tool // the last listing
	stale    bool         // the server said its tools changed
	lastErr  error        // why the last start failed
	failures int          // consecutive failed starts
	retryAt  time.Time    // no new start before this, after failures
	skipped  []string     // tools left out of the last listing, and why
	closed   bool

	notifyMu   sync.Mutex
	invalidate func()
	listeners  []func()
	retryTimer *time.Timer

	// contacts counts the requests the server's processes make to the
	// network proxy, between calls as during them: the next call to the
	// server carries them into its audit record (carryContacts), and
	// those left when it closes go into a record of their own (sink).
	contacts netproxy.Tally
	sink     audit.Sink // guarded by mu
}

var (
	_ provider.Provider    = (*Provider)(nil)
	_ provider.Invalidator = (*Provider)(nil)
	_ provider.Audited     = (*Provider)(nil)
)

// New checks cfg and returns a provider for it. The server is not started
// until its tools are first needed.
func New(cfg Config) (*Provider, error) {
	switch {
	case cfg.Name == "":
		return nil, errors.New("mcp server: name is required")
	case (cfg.Command == "") == (cfg.URL == ""):
		return nil, fmt.Errorf("mcp server %q: set exactly one of command and url", cfg.Name)
	case cfg.Risk != "" && cfg.Risk != tool.RiskLow && cfg.Risk != tool.RiskHigh:
		return nil, fmt.Errorf("mcp server %q: risk must be low or high, not %q", cfg.Name, cfg.Risk)
	}
	for _, pats := range [][]string{cfg.EnabledTools, cfg.DisabledTools} {
		for _, p := range pats {
			if _, err := path.Match(p, ""); err != nil {
				return nil, fmt.Errorf("mcp server %q: tool pattern %q: %w", cfg.Name, p, err)
			}
		}
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = DefaultTimeout
	}
	if cfg.StartTimeout <= 0 {
		cfg.StartTimeout = DefaultTimeout
	}
	log := cfg.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	p := &Provider{cfg: cfg, log: log.With("mcp_server", cfg.Name), prefix: namePrefix(cfg.Name)}
	p.contacts.Max = audit.MaxHosts
	return p, nil
}

// SetAudit implements provider.Audited: the hosts the server asked for
// that no call carried are recorded in sink when the provider closes.
func (p *Provider) SetAudit(sink audit.Sink) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.sink = sink
}

// carryContacts adds the hosts the server asked the proxy for since a call
// last carried them to this call's audit record (its sandbox profile's
// tally; none when the toolkit keeps no records): a server runs between
// calls, and the next call to it carries what it did meanwhile.
func (p *Provider) carryContacts(ctx context.Context, tc tool.Context) {
	box, err := tool.Resolve(ctx, tc, sandbox.Key)
	if err != nil || box.Contacts() == nil {
		return
	}
	box.Contacts().Merge(p.contacts.Take())
}

// recordLeftContacts writes the hosts no call carried, once the server has
// stopped, to the sink: a record with no tool, the provider's ID and the
// outcome "closed".
func (p *Provider) recordLeftContacts() {
	p.mu.Lock()
	sink := p.sink
	p.mu.Unlock()
	counts, omitted := p.contacts.Take()
	if sink == nil || (len(counts) == 0 && omitted == 0) {
		return
	}
	r := audit.Record{Time: time.Now(), Provider: p.ID(), Outcome: "closed"}
	r.Hosts, r.HostsOmitted = audit.Hosts(counts, omitted)
	if err := sink.Record(context.Background(), r); err != nil {
		p.log.Warn("recording the hosts the server asked for", "err", err)
	}
}

// ID returns "mcp:NAME".
func (p *Provider) ID() string { return "mcp:" + p.cfg.Name }

// Priority returns [provider.PriorityMCP].
func (p *Provider) Priority() int { return provider.PriorityMCP }

// MayOffer reports whether name begins as every name of this server's
// tools does ([provider.Scoped]), so that resolving any other name never
// starts the server.
func (p *Provider) MayOffer(name string) bool { return strings.HasPrefix(name, p.prefix) }

// SetInvalidate implements provider.Invalidator.
func (p *Provider) SetInvalidate(f func()) {
	p.notifyMu.Lock()
	p.invalidate = f
	p.notifyMu.Unlock()
}

// OnChange registers f to be called whenever the provider's catalogue may
// have changed (the server's list-changed notification, a crash, a start
// that may now succeed): an MCP server in front of the toolkit uses it to
// tell its own clients.
func (p *Provider) OnChange(f func()) {
	p.notifyMu.Lock()
	p.listeners = append(p.listeners, f)
	p.notifyMu.Unlock()
}

func (p *Provider) changed() {
	p.notifyMu.Lock()
	fs := append([]func(){p.invalidate}, p.listeners...)
	p.notifyMu.Unlock()
	for _, f := range fs {
		if f != nil {
			f()
		}
	}
}

// Tools lists the server's tools, starting the server if it is not
// running. A server that fails to start is reported with the reason; after
// a failure it is not started again before a pause (1s, doubling to 1m),
// at the end of which the registry is told to ask again.
func (p *Provider) Tools(ctx context.Context) ([]*tool.Tool, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return nil, fmt.Errorf("mcp server %q: provider closed", p.cfg.Name)
	}
	if p.conn != nil && !p.stale {
		return p.tools, nil
	}
	c, err := p.connLocked(ctx, true)
	if err != nil {
		return nil, err
	}
	if err := p.listLocked(ctx, c); err != nil {
		return nil, err
	}
	return p.tools, nil
}

// Skipped lists the server's tools left out of the last listing, each with
// the reason ("get-weather: input schema is not an object schema").
func (p *Provider) Skipped() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.skipped...)
}

// Close stops the server (its whole process group, for a command).
func (p *Provider) Close() error {
	p.mu.Lock()
	c := p.conn
	p.conn, p.closed = nil, true
	p.mu.Unlock()
	p.notifyMu.Lock()
	if p.retryTimer != nil {
		p.retryTimer.Stop()
	}
	p.notifyMu.Unlock()
	if c == nil {
		p.recordLeftContacts()
		return nil
	}
	err := c.close(true)
	p.recordLeftContacts()
	return err
}

// connLocked returns the live connection, starting the server if needed.
// With honourPause, a start inside the pause after a failure is not tried:
// the last failure is returned. p.mu is held.
func (p *Provider) connLocked(ctx context.Context, honourPause bool) (*conn, error) {
	if p.conn != nil && p.conn.ended() {
		// The session ended and watch has not caught up yet: a call right
		// after a crash must start the server again, not use the dead one.
		p.retireLocked(p.conn, p.conn.waitErr)
		go p.changed()
	}
	if p.conn != nil {
		return p.conn, nil
	}
	if honourPause && p.lastErr != nil && time.Now().Before(p.retryAt) {
		return nil, p.lastErr
	}
	startCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), p.cfg.StartTimeout)
	defer cancel()
	c, err := p.start(startCtx)
	if err != nil {
		p.failedLocked(err)
		return nil, p.lastErr
	}
	p.conn, p.stale, p.lastErr = c, true, nil
	go p.watch(c)
	return c, nil
}

// failedLocked records a failed start and schedules the next attempt.
func (p *Provider) failedLocked(err error) {
	p.failures++
	pause := time.Second << min(p.failures-1, 6)
	pause = min(pause, time.Minute)
	p.lastErr = fmt.Errorf("mcp server %q: %w (next try in %s)", p.cfg.Name, err, pause)
	p.retryAt = time.Now().Add(pause)
	// Logged as well as kept for the caller: a start is as often a tool
	// listing's or the retry timer's, whose error reaches no person, and the
	// log is the operator's one record of the retry schedule.
	p.log.Warn("MCP server failed", "err", err, "retry_in", pause)
	p.notifyMu.Lock()
	if p.retryTimer != nil {
		p.retryTimer.Stop()
	}
	p.retryTimer = time.AfterFunc(pause, p.changed)
	p.notifyMu.Unlock()
}

// watch waits for a connection to end. A server that stops is restarted on
// the next use; one that stops within seconds of starting counts as a
// failed start, so that a crash loop backs off.
func (p *Provider) watch(c *conn) {
	err := c.wait()
	p.mu.Lock()
	if p.conn != c {
		p.mu.Unlock()
		return
	}
	p.retireLocked(c, err)
	p.mu.Unlock()
	p.changed()
}

// retireLocked forgets the ended connection c. p.mu is held.
func (p *Provider) retireLocked(c *conn, err error) {
	p.conn = nil
	c.close(false)
	reason := c.describeEnd(err)
	if time.Since(c.started) < healthyAfter {
		p.failedLocked(reason)
	} else {
		p.failures = 0
		p.log.Warn("MCP server stopped; it is restarted on the next use", "err", reason)
	}
}

// listLocked lists the server's tools on c and converts them. p.mu is held.
func (p *Provider) listLocked(ctx context.Context, c *conn) error {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), p.cfg.StartTimeout)
	defer cancel()
	var wire []*sdk.Tool
	for t, err := range c.sess.Tools(ctx, nil) {
		if err != nil {
			err = fmt.Errorf("mcp server %q: tools/list: %w", p.cfg.Name, c.describeErr(ctx, err))
			p.lastErr = err
			return err
		}
		wire = append(wire, t)
	}
	p.tools, p.skipped = p.convert(wire)
	p.stale, p.failures = false, 0
	return nil
}

// convert turns the server's tools into Quiver tools, leaving out those
// not enabled and those that cannot be served (saying why).
func (p *Provider) convert(wire []*sdk.Tool) ([]*tool.Tool, []string) {
	var tools []*tool.Tool
	var skipped []string
	names := map[string]string{} // Quiver name -> the server's name
	for _, w := range wire {
		if !p.enabled(w.Name) {
			continue
		}
		t, err := p.toTool(w)
		if err != nil {
			skipped = append(skipped, fmt.Sprintf("%s: %v", w.Name, err))
			continue
		}
		if other, taken := names[t.Name]; taken {
			t.Name = withHash(t.Name, p.cfg.Name+"__"+w.Name)
			p.log.Info("tool names collide after sanitizing", "tool", w.Name, "other", other, "name", t.Name)
		}
		names[t.Name] = w.Name
		tools = append(tools, t)
	}
	return tools, skipped
}

func (p *Provider) enabled(name string) bool {
	match := func(pats []string) bool {
		for _, pat := range pats {
			if ok, _ := path.Match(pat, name); ok {
				return true
			}
		}
		return false
	}
	if len(p.cfg.EnabledTools) > 0 && !match(p.cfg.EnabledTools) {
		return false
	}
	return !match(p.cfg.DisabledTools)
}

func (p *Provider) toTool(w *sdk.Tool) (*tool.Tool, error) {
	in, err := inputSchema(w.InputSchema)
	if err != nil {
		return nil, err
	}
	ann := annotations(w.Annotations)
	risk := p.cfg.Risk
	if risk == "" {
		risk = tool.RiskHigh
		if ann.ReadOnly {
			risk = tool.RiskLow
		}
	}
	remote := w.Name
	return &tool.Tool{
		Name:         ToolName(p.cfg.Name, remote),
		Description:  description(w),
		InputSchema:  in,
		OutputSchema: outputSchema(w.OutputSchema),
		Risk:         risk,
		Annotations:  ann,
		Execute: func(ctx context.Context, tc tool.Context, args json.RawMessage) (tool.Result, error) {
			defer p.carryContacts(ctx, tc)
			return p.call(ctx, remote, args)
		},
	}, nil
}

// callBound, when a test sets it, is told the name of each call bound to a
// running server, just before its request is sent: the moment from which
// the server's end is that call's failure, not a restart it waits for.
var callBound atomic.Pointer[func(name string)]

// call runs one tool on the server, starting it again first if it stopped.
func (p *Provider) call(ctx context.Context, name string, args json.RawMessage) (tool.Result, error) {
	p.mu.Lock()
	c, err := p.connLocked(ctx, false)
	p.mu.Unlock()
	if err != nil {
		// %v, not %w: a start that ran out of its own time can wrap
		// context.DeadlineExceeded, which the pipeline would read as the
		// call's deadline (TIMEOUT) rather than a server that failed to start.
		return tool.Result{}, tool.Errorf(tool.CodeExecutionFailed, "%v", err).WithDetail("server", p.cfg.Name)
	}
	callCtx, cancel := context.WithTimeout(ctx, p.cfg.Timeout)
	defer cancel()
	if f := callBound.Load(); f != nil {
		(*f)(name)
	}
	res, err := c.sess.CallTool(callCtx, &sdk.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		return tool.Result{}, p.callError(ctx, callCtx, c, name, err)
	}
	return result(p.cfg.Name, name, res)
}

// callError gives a failed call its code: the caller's cancellation is
// left to the pipeline; the server's silence is TIMEOUT; a server that
// stopped or refused the call is EXECUTION_FAILED with the reason.
func (p *Provider) callError(ctx, callCtx context.Context, c *conn, name string, err error) error {
	switch {
	case ctx.Err() != nil:
		return ctx.Err()
	case errors.Is(callCtx.Err(), context.DeadlineExceeded):
		return tool.Errorf(tool.CodeTimeout, "MCP server %q did not answer %s within %s", p.cfg.Name, name, p.cfg.Timeout).
			WithDetail("server", p.cfg.Name)
	case !isWireError(err) && c.endsWithin(time.Second):
		// %v, not %w: the transport's error of a dying session is shown, not
		// matched; a context error inside it is not the caller's.
		return tool.Errorf(tool.CodeExecutionFailed, "MCP server %q stopped during the call of %s (%v); it is restarted on the next call",
			p.cfg.Name, name, c.withStderr(err)).WithDetail("server", p.cfg.Name)
	}
	return tool.Errorf(tool.CodeExecutionFailed, "MCP server %q refused the call of %s: %s", p.cfg.Name, name,
		strings.TrimSpace(err.Error())).WithDetail("server", p.cfg.Name)
}

// isWireError reports whether err is the server's JSON-RPC error answer,
// as opposed to a failure to get an answer at all.
func isWireError(err error) bool {
	var we *jsonrpc.Error
	return errors.As(err, &we)
}
