package main

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/quiverkit/quiver"
	"github.com/quiverkit/quiver/agent"
	"github.com/quiverkit/quiver/driver"
	"github.com/quiverkit/quiver/mcpserver"
	"github.com/quiverkit/quiver/policy"
	"github.com/quiverkit/quiver/policy/approve"
	"github.com/quiverkit/quiver/sandbox"
	"github.com/spf13/cobra"
)

// serveFlags are the flags of `quiver serve`.
type serveFlags struct {
	http           string
	tokenEnv       string
	allowedHosts   []string
	allowedOrigins []string
	maxSessions    int
	sessionTimeout time.Duration
	shutdownGrace  time.Duration
	maxBody        int64
	logFile        string
	verbose        bool
	toolSearch     bool
}

func (a *app) serveCommand() *cobra.Command {
	var f serveFlags
	cmd := &cobra.Command{
		Use:   "serve [--http ADDR]",
		Short: "Serve the tools to MCP clients (stdio, or streamable HTTP with --http)",
		Long: `Serve the allowed tools to MCP clients — Claude Desktop, Claude Code, Codex, Cursor,
the MCP Inspector — under this workspace's policy. Calls the policy asks about are put
to the client's user through MCP elicitation; a client that cannot ask gets
[serve] ask_fallback (deny unless set to allow).

Without --http the server speaks on standard input and output, and writes nothing
else there: logs go to standard error (or --log FILE). It exits when the client
closes standard input.

With --http ADDR it serves streamable HTTP on ADDR (PORT or HOST:PORT; a bare port
binds 127.0.0.1). Requests whose Host or Origin is not a loopback name, or one of
--allowed-host / --allowed-origin, are refused. Binding another address than
loopback requires --token-env: a bearer token every request must carry.

Sessions: at most --max-sessions are open; a session with no call in flight and
no event stream open for --session-timeout is closed; at the limit a newcomer
takes the place of the least recently used session without a call in flight,
and is refused (503) only when every session has one. DELETE of a session
cancels its calls and kills their processes. Background jobs belong to the
session that started them (another gets NOT_FOUND) and are killed, with their
process trees, when it ends: DELETE, eviction, timeout, the end of a stdio
session, shutdown. GET /healthz answers while the
process serves; GET /readyz answers 200 once the sandbox works and every MCP
server of [[tools.mcp.servers]] is up or marked down (and, with a Redis
output store, while Redis answers), and 503 from the moment shutdown begins. SIGINT or SIGTERM stops accepting, lets calls run for
--shutdown-grace, then cancels them, kills their processes and exits 0.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return a.serve(cmd, f) },
	}
	fl := cmd.Flags()
	fl.StringVar(&f.http, "http", "", "serve streamable HTTP on ADDR (PORT or HOST:PORT) instead of stdio")
	fl.StringVar(&f.tokenEnv, "token-env", "", "require the bearer token held in this environment variable (HTTP)")
	fl.StringSliceVar(&f.allowedHosts, "allowed-host", nil, "accept this Host header too (HTTP; repeatable)")
	fl.StringSliceVar(&f.allowedOrigins, "allowed-origin", nil, "accept this Origin too (HTTP; repeatable)")
	fl.IntVar(&f.maxSessions, "max-sessions", 64, "HTTP sessions open at most (HTTP)")
	fl.DurationVar(&f.sessionTimeout, "session-timeout", mcpserver.DefaultSessionTimeout,
		"close an HTTP session with no call and no event stream for this long (HTTP)")
	fl.DurationVar(&f.shutdownGrace, "shutdown-grace", 10*time.Second,
		"on SIGTERM or SIGINT, let calls in flight run this long before cancelling them (HTTP)")
	fl.Int64Var(&f.maxBody, "max-request-bytes", mcpserver.DefaultMaxBodyBytes, "largest request accepted, in bytes")
	fl.StringVar(&f.logFile, "log", "", "append logs to this file instead of standard error")
	fl.BoolVar(&f.verbose, "verbose", false, "log debug detail (each MCP server's stderr among it)")
	fl.BoolVar(&f.toolSearch, "tool-search", false, "list only the tools [tools] defer does not hold back, and a tool_search that lists the others as they are found (for clients that defer nothing themselves)")
	return cmd
}

func (a *app) serve(cmd *cobra.Command, f serveFlags) error {
	// Before anything can print: stdout is the protocol's alone.
	var protocolOut *os.File
	if f.http == "" {
		out, err := reserveStdout()
		if err != nil {
			return fmt.Errorf("serve: %w", err)
		}
		protocolOut = out
	}
	logger, closeLog, err := serveLogger(f)
	if err != nil {
		return &exitError{code: exitUsage, msg: "quiver serve: " + err.Error()}
	}
	defer closeLog()
	a.mcpLog = logger

	opts, addr, err := a.serveOptions(f, logger)
	if err != nil {
		return err
	}
	tkOpts, err := a.telemetry(logger)
	if err != nil {
		return err
	}
	tkOpts = append(tkOpts, quiver.WithLogger(logger))
	if !a.flags.yes {
		approver, err := a.elicitApprover(logger)
		if err != nil {
			return err
		}
		tkOpts = append(tkOpts, quiver.WithApprover(approver))
	} else {
		logger.Warn("--yes: every call the policy asks about runs without asking anyone")
	}
	tk, err := a.toolkit(tkOpts...)
	if err != nil {
		return err
	}
	defer a.close()

	ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	opts.ReadyChecks = a.readyChecks()
	if a.redis != nil {
		if p := a.redis.EvictionPolicy(ctx); p != "" && p != "noeviction" {
			logger.Warn("the Redis output store may evict chunks of stored outputs, which readers then find damaged; set maxmemory-policy noeviction (docs/deploy.md)",
				"maxmemory-policy", p)
		}
	}
	// What every built-in tool shares is said once, here, rather than in
	// each tool's description.
	opts.Instructions = agent.Guidance
	opts.Defer, opts.ToolSearch = deferral(a.cfg, driver.ToolChoice{}), f.toolSearch
	if line := trustNotice(a.cfg); line != "" {
		// The client's user may never see standard error: the
		// instructions reach the model and, through it, the person.
		logger.Warn(strings.TrimPrefix(line, "quiver: "))
		opts.Instructions += "\nNote for the person running this server: " + strings.TrimPrefix(line, "quiver: ")
	}
	srv, err := mcpserver.New(ctx, tk, opts)
	if err != nil {
		return &exitError{code: exitUsage, msg: "quiver serve: " + err.Error()}
	}
	a.onMCPChange(func() {
		if err := srv.Refresh(context.WithoutCancel(ctx)); err != nil {
			logger.Warn("refreshing the tool listing", "err", err)
		}
	})
	if f.http == "" {
		logger.Info("serving MCP on standard input and output", "root", cmp.Or(tk.Workspace().Dir(), tk.Workspace().ReadOnlyBackend()))
		return srv.Run(ctx, os.Stdin, protocolOut)
	}
	return serveHTTP(ctx, srv, addr, logger)
}

// elicitApprover asks the client's user, falling back to [serve]
// ask_fallback: deny by default, allow only when written out.
func (a *app) elicitApprover(logger *slog.Logger) (policy.Approver, error) {
	cfg, err := a.loadConfig()
	if err != nil {
		return nil, err
	}
	fallback := cfg.Serve.AskFallback.Decision
	switch fallback {
	case "", policy.Deny:
		fallback = policy.Deny
	case policy.Allow:
		logger.Warn(`[serve] ask_fallback = "allow": calls the policy asks about run unasked when the client cannot ask its user`)
	default:
		return nil, &exitError{code: exitUsage, msg: fmt.Sprintf(
			`quiver serve: %s: [serve] ask_fallback = %q: want "deny" or "allow"`, cfg.Path, fallback)}
	}
	return approve.Elicit{Fallback: fallback}, nil
}

// serveOptions turns the flags into server options and, for --http, the
// address to listen on; bad ones are usage errors.
func (a *app) serveOptions(f serveFlags, logger *slog.Logger) (mcpserver.Options, string, error) {
	o := mcpserver.Options{Name: "quiver", Version: buildVersion().Version, Logger: logger,
		AllowedHosts: f.allowedHosts, AllowedOrigins: f.allowedOrigins,
		MaxSessions: f.maxSessions, MaxSessionsSetting: "--max-sessions", MaxBodyBytes: f.maxBody,
		SessionTimeout: f.sessionTimeout, ShutdownGrace: f.shutdownGrace}
	usage := func(format string, args ...any) (mcpserver.Options, string, error) {
		return o, "", &exitError{code: exitUsage, msg: "quiver serve: " + fmt.Sprintf(format, args...)}
	}
	switch {
	case f.maxSessions < 1:
		return usage("--max-sessions %d: want at least 1", f.maxSessions)
	case f.sessionTimeout <= 0:
		return usage("--session-timeout %s: want a positive duration", f.sessionTimeout)
	case f.shutdownGrace <= 0:
		return usage("--shutdown-grace %s: want a positive duration", f.shutdownGrace)
	}
	if f.tokenEnv != "" {
		o.Token = os.Getenv(f.tokenEnv)
		if o.Token == "" {
			return usage("--token-env %s: the variable is empty or unset", f.tokenEnv)
		}
	}
	if f.http == "" {
		return o, "", nil
	}
	addr, host, loopback, err := listenAddr(f.http)
	if err != nil {
		return usage("%v", err)
	}
	if !loopback {
		if o.Token == "" {
			return usage("--http %s listens beyond this machine: set --token-env VAR to require a bearer token", addr)
		}
		// Clients reach a specific address by that address; for 0.0.0.0 the
		// names they use must be given with --allowed-host.
		if ip := net.ParseIP(host); ip == nil || !ip.IsUnspecified() {
			o.AllowedHosts = append(o.AllowedHosts, host)
		}
	}
	return o, addr, nil
}

// listenAddr reads --http: a bare port (or ":PORT") binds 127.0.0.1.
func listenAddr(flag string) (addr, host string, loopback bool, err error) {
	if !strings.Contains(flag, ":") {
		flag = ":" + flag
	}
	host, port, err := net.SplitHostPort(flag)
	if err != nil || port == "" {
		return "", "", false, fmt.Errorf("--http %q: want PORT or HOST:PORT", flag)
	}
	if host == "" {
		host = "127.0.0.1"
	}
	ip := net.ParseIP(host)
	loopback = host == "localhost" || (ip != nil && ip.IsLoopback())
	return net.JoinHostPort(host, port), host, loopback, nil
}

func serveHTTP(ctx context.Context, srv *mcpserver.Server, addr string, logger *slog.Logger) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return &exitError{code: exitUsage, msg: "quiver serve: " + err.Error()}
	}
	fmt.Fprintf(os.Stderr, "quiver: serving MCP (streamable HTTP) on http://%s/mcp\n", ln.Addr())
	logger.Info("serving MCP over streamable HTTP", "addr", ln.Addr().String())
	if err := srv.Serve(ctx, ln); err != nil {
		return &exitError{code: exitUsage, msg: "quiver serve: " + err.Error()}
	}
	logger.Info("shut down")
	return nil
}

// serveLogger logs to --log FILE or standard error, at info (debug with
// --verbose).
func serveLogger(f serveFlags) (*slog.Logger, func(), error) {
	level := slog.LevelInfo
	if f.verbose {
		level = slog.LevelDebug
	}
	var w io.Writer = os.Stderr
	closeLog := func() {}
	if f.logFile != "" {
		file, err := os.OpenFile(f.logFile, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
		if err != nil {
			return nil, nil, fmt.Errorf("--log: %w", err)
		}
		w, closeLog = file, func() { file.Close() }
	}
	h := slog.NewTextHandler(w, &slog.HandlerOptions{Level: level})
	return slog.New(mcpserver.LogHandler(h)), closeLog, nil
}

// readyChecks are what /readyz checks. The configuration needs none: the
// server does not listen before it is loaded.
func (a *app) readyChecks() []mcpserver.Check {
	var checks []mcpserver.Check
	if cfg, err := a.loadConfig(); err == nil && !cfg.Sandbox.Disabled {
		checks = append(checks, mcpserver.Check{Name: "sandbox", Func: func(context.Context) error { return sandbox.Check() }})
	}
	if a.redis != nil {
		// Replicas share their outputs there: without it, a ref another
		// replica made cannot be read, nor a large output kept.
		checks = append(checks, mcpserver.Check{Name: "output store (redis)", Func: a.redis.Ping})
	}
	for _, p := range a.mcp {
		// Up, or down and marked so: either way Tools returns. A server
		// still starting past the probe's deadline is not ready.
		checks = append(checks, mcpserver.Check{Name: p.ID(), Func: func(ctx context.Context) error {
			if _, err := p.Tools(ctx); ctx.Err() != nil {
				return fmt.Errorf("still starting: %w", err)
			}
			return nil
		}})
	}
	return checks
}
