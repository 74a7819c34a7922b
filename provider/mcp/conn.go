package mcp

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/quiverkit/quiver/sandbox"
)

// conn is one running session with the server: for a command, one process.
type conn struct {
	sess    *sdk.ClientSession
	proc    *sandbox.Process // nil for a URL server
	stdin   io.WriteCloser
	stderr  *tail
	started time.Time

	stopOnce sync.Once
	stopErr  error

	closeOnce sync.Once
	closeErr  error
	done      chan struct{} // closed when the session has ended
	waitErr   error         // why it ended; read only after done is closed
}

// start starts the server and completes the initialize handshake within
// ctx. A server that fails is stopped before start returns.
func (p *Provider) start(ctx context.Context) (*conn, error) {
	c := &conn{stderr: newTail(4 << 10), started: time.Now(), done: make(chan struct{})}
	var transport sdk.Transport
	if p.cfg.Command != "" {
		if d := depth(); d >= MaxDepth {
			return nil, fmt.Errorf("not started: Quiver is already %d MCP servers deep (%s=%d); does the server start Quiver with this same configuration?", d, depthVar, d)
		}
		t, err := p.startServer(c)
		if err != nil {
			return nil, err
		}
		transport = t
	} else {
		transport = &sdk.StreamableClientTransport{Endpoint: p.cfg.URL, HTTPClient: p.httpClient(), MaxRetries: 2}
	}
	client := sdk.NewClient(&sdk.Implementation{Name: "quiver", Version: "1"}, &sdk.ClientOptions{
		Logger: p.log,
		ToolListChangedHandler: func(context.Context, *sdk.ToolListChangedRequest) {
			p.mu.Lock()
			p.stale = true
			p.mu.Unlock()
			p.changed()
		},
	})
	sess, err := client.Connect(ctx, transport, &sdk.ClientSessionOptions{ProtocolVersion: protocolVersion})
	if err != nil {
		c.stop(false)
		return nil, c.describeErr(ctx, fmt.Errorf("start: %w", err))
	}
	c.sess = sess
	p.log.Info("MCP server started", "server", sess.InitializeResult().ServerInfo)
	return c, nil
}

// startServer starts the server's process through the start path
// (sandbox.Command: the minimal environment set below, its profile, a
// TMPDIR of its own and a process tree that ends with it) and returns the
// transport that talks to it over its standard input and output.
func (p *Provider) startServer(c *conn) (sdk.Transport, error) {
	box, err := p.profile()
	if err != nil {
		return nil, err
	}
	if box.Proxied() {
		box = box.RecordingContacts(&p.contacts)
	}
	proc := sandbox.Command(context.Background(), box, p.cfg.Command, p.cfg.Args...)
	proc.Dir = p.cfg.Dir
	proc.Env = p.env()
	proc.Stderr = &logLines{tail: c.stderr, log: p.log}
	stdin, err := proc.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := proc.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := proc.Start(); err != nil {
		return nil, fmt.Errorf("not started: %w", err)
	}
	c.proc, c.stdin = proc, stdin
	// The session ends the server by closing the writer: stdin closes, and
	// the server gets the time the MCP spec asks for before it is stopped.
	return &sdk.IOTransport{Reader: io.NopCloser(stdout), Writer: stopper{c}}, nil
}

// stopper closes the server's input by stopping the server.
type stopper struct{ c *conn }

func (s stopper) Write(b []byte) (int, error) { return s.c.stdin.Write(b) }
func (s stopper) Close() error                { return s.c.stop(true) }

// terminateGrace is how long a server whose input has closed gets to exit,
// and then how long after SIGTERM, before its tree is killed.
const terminateGrace = 2 * time.Second

// stop ends the server's process, once: gracefully (stdin closed, then
// SIGTERM, then the kill) or at once, and waits for it; its whole tree
// ends with it.
func (c *conn) stop(graceful bool) error {
	if c.proc == nil {
		return nil
	}
	c.stopOnce.Do(func() {
		if !graceful {
			c.proc.Kill()
		}
		c.stopErr = c.proc.Stop(c.stdin, terminateGrace)
	})
	return c.stopErr
}

// env is the server's environment: the minimal one every process Quiver
// starts gets (sandbox.HostEnv: PATH, HOME, the user, the locale, the
// terminal), the configured variables, and the nesting depth. Nothing else
// of Quiver's environment reaches it: not the model providers' API keys,
// not `quiver serve --token-env`'s token. A server that needs a host
// variable names it: env = { GITHUB_TOKEN = "${GITHUB_TOKEN}" }.
func (p *Provider) env() []string {
	extra := make([]string, 0, len(p.cfg.Env)+1)
	for k, v := range p.cfg.Env {
		extra = append(extra, k+"="+expand(v))
	}
	extra = append(extra, fmt.Sprintf("%s=%d", depthVar, depth()+1))
	return sandbox.MergeEnv(sandbox.HostEnv(nil), extra)
}

// profile is the sandbox profile the server runs under: nil (unconfined)
// when the operator opted it out.
func (p *Provider) profile() (*sandbox.Profile, error) {
	if p.cfg.NoSandbox {
		return nil, nil
	}
	if p.cfg.Sandbox != nil {
		return p.cfg.Sandbox, nil
	}
	dir := p.cfg.Dir
	if dir == "" {
		dir = "."
	}
	return sandbox.Default(dir)
}

// MaxDepth bounds how deep stdio MCP servers may nest: a Quiver started as
// a server whose configuration starts Quiver again would otherwise start
// processes without end.
const MaxDepth = 4

// depthVar counts the stdio MCP servers between this process and the first
// Quiver; every server started gets one more.
const depthVar = "QUIVER_MCP_DEPTH"

func depth() int {
	d, _ := strconv.Atoi(os.Getenv(depthVar))
	return d
}

// httpClient adds the configured headers to every request.
func (p *Provider) httpClient() *http.Client {
	base := p.cfg.HTTPClient
	if base == nil {
		base = http.DefaultClient
	}
	if len(p.cfg.Headers) == 0 {
		return base
	}
	h := http.Header{}
	for k, v := range p.cfg.Headers {
		h.Set(k, expand(v))
	}
	rt := base.Transport
	if rt == nil {
		rt = http.DefaultTransport
	}
	c := *base
	c.Transport = headerTransport{h: h, next: rt}
	return &c
}

type headerTransport struct {
	h    http.Header
	next http.RoundTripper
}

func (t headerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	for k, v := range t.h {
		r.Header[k] = v
	}
	return t.next.RoundTrip(r)
}

// expand replaces ${VAR} with the environment's value, so that secrets in
// env values and headers stay out of quiver.toml. Only the braced form is
// expanded: a lone $ (in a password, say) is left as it is. Commands and
// arguments are never expanded: they reach the program as written.
func expand(s string) string {
	var b strings.Builder
	for {
		i := strings.Index(s, "${")
		if i < 0 {
			break
		}
		j := strings.IndexByte(s[i:], '}')
		if j < 0 {
			break
		}
		b.WriteString(s[:i])
		b.WriteString(os.Getenv(s[i+2 : i+j]))
		s = s[i+j+1:]
	}
	b.WriteString(s)
	return b.String()
}

// wait blocks until the session ends.
func (c *conn) wait() error {
	err := c.sess.Wait()
	c.waitErr = err // written before done closes, so readers after <-done see it
	close(c.done)
	return err
}

// ended reports whether the session has ended.
func (c *conn) ended() bool {
	select {
	case <-c.done:
		return true
	default:
		return false
	}
}

// endsWithin reports whether the session has ended or ends within d: a
// call that failed without an answer is often the first sign of a crash.
func (c *conn) endsWithin(d time.Duration) bool {
	select {
	case <-c.done:
		return true
	case <-time.After(d):
		return false
	}
}

// close ends the session and, for a command, reaps it and kills whatever
// is left of its process group. Gracefully, the server is first asked to
// exit by closing its stdin (and given seconds to do so); otherwise — the
// session already broke — the group is killed at once.
func (c *conn) close(graceful bool) error {
	c.closeOnce.Do(func() {
		if !graceful {
			c.stop(false)
		}
		c.closeErr = c.sess.Close()
		c.stop(false)
	})
	return c.closeErr
}

// describeEnd says why a session ended: the process's exit status and the
// end of what it wrote to stderr.
func (c *conn) describeEnd(err error) error {
	msg := "the server closed the connection"
	if c.proc != nil && c.proc.State() != nil {
		msg = "the server process ended (" + c.proc.State().String() + ")"
	}
	if err != nil && !errors.Is(err, sdk.ErrConnectionClosed) {
		msg += ": " + err.Error()
	}
	return c.withStderr(errors.New(msg))
}

// describeErr adds a timeout's meaning and the server's last stderr lines
// to err.
func (c *conn) describeErr(ctx context.Context, err error) error {
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		err = fmt.Errorf("no answer before the timeout: %w", err)
	}
	return c.withStderr(err)
}

func (c *conn) withStderr(err error) error {
	if s := c.stderr.String(); s != "" {
		return fmt.Errorf("%w; its stderr ends with: %s", err, s)
	}
	return err
}

// tail keeps the last bytes written to it.
type tail struct {
	mu  sync.Mutex
	max int
	buf []byte
}

func newTail(max int) *tail { return &tail{max: max} }

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if over := len(t.buf) - t.max; over > 0 {
		t.buf = append(t.buf[:0], t.buf[over:]...)
	}
	return len(p), nil
}

// String returns the last few lines, joined with " | ".
func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	lines := strings.Split(strings.TrimSpace(string(t.buf)), "\n")
	if len(lines) > 5 {
		lines = lines[len(lines)-5:]
	}
	for i := range lines {
		lines[i] = strings.TrimSpace(lines[i])
	}
	return strings.Join(lines, " | ")
}

// logLines sends a server's stderr to the tail and, line by line, to the
// log at debug level.
type logLines struct {
	tail    *tail
	log     interface{ Debug(string, ...any) }
	partial []byte
}

func (l *logLines) Write(p []byte) (int, error) {
	l.tail.Write(p)
	l.partial = append(l.partial, p...)
	for {
		i := bytes.IndexByte(l.partial, '\n')
		if i < 0 {
			break
		}
		l.log.Debug("MCP server stderr", "line", string(l.partial[:i]))
		l.partial = l.partial[i+1:]
	}
	if len(l.partial) > 4<<10 {
		l.partial = l.partial[:0]
	}
	return len(p), nil
}
