package process

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/quiverkit/quiver/driver"
	"github.com/quiverkit/quiver/sandbox"
)

// Config says which program to start and for which model.
type Config struct {
	// Path is the program: quiver-models, or any program that calls [Serve].
	Path string
	// Args are its arguments, after the program's name.
	Args []string
	// Spec is the model it opens.
	Spec driver.Spec
	// Sandbox is the profile the program runs under (nil: unconfined): the
	// quiver command confines it read-only, with the network on. A profile
	// the kernel cannot enforce fails the model with its error.
	Sandbox *sandbox.Profile
	// Env is the program's whole environment; nil is the minimal one
	// (sandbox.HostEnv). quiver-models needs the API keys, so the quiver
	// command passes its own.
	Env []string
}

// Model is a [driver.Model] served by a program of its own. The program
// starts at the first request, not before, and again at the next request
// after it has ended (a crash fails the requests it was serving, not the
// ones after). It is safe for concurrent use; Close ends the program.
type Model struct {
	cfg    Config
	mu     sync.Mutex
	conn   *conn
	closed bool
}

// New returns the model cfg describes, without starting anything.
func New(cfg Config) *Model { return &Model{cfg: cfg} }

// Generate sends req to the program and waits for its reply.
func (m *Model) Generate(ctx context.Context, req driver.Request) (*driver.Response, error) {
	c, call, err := m.send(opGenerate, req)
	if err != nil {
		return nil, err
	}
	for {
		r, err := call.next(ctx, c)
		if err != nil {
			c.cancel(call.id)
			return nil, err
		}
		if r.Done {
			return r.Response, r.Error.decode()
		}
	}
}

// Stream sends req to the program and returns its events as they come.
// Closing the stream before its end cancels the request.
func (m *Model) Stream(ctx context.Context, req driver.Request) (driver.Stream, error) {
	c, call, err := m.send(opStream, req)
	if err != nil {
		return nil, err
	}
	finished := false
	pull := func(emit func(driver.Event)) (bool, error) {
		r, err := call.next(ctx, c)
		if err != nil {
			return true, err
		}
		if r.Event != nil {
			emit(*r.Event)
		}
		if r.Done {
			finished = true
			return true, r.Error.decode()
		}
		return false, nil
	}
	return driver.NewStream(pull, func() error {
		if !finished {
			c.cancel(call.id)
		}
		return nil
	}), nil
}

// Close ends the program, if it runs, and refuses later requests.
func (m *Model) Close() error {
	m.mu.Lock()
	c := m.conn
	m.conn, m.closed = nil, true
	m.mu.Unlock()
	if c != nil {
		return c.close()
	}
	return nil
}

// send starts the program if it does not run, and sends one request.
func (m *Model) send(op string, req driver.Request) (*conn, *call, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return nil, nil, errors.New("model process: closed")
	}
	if m.conn == nil || m.conn.dead() {
		c, err := start(m.cfg)
		if err != nil {
			return nil, nil, err
		}
		m.conn = c
	}
	call, err := m.conn.send(op, &req)
	return m.conn, call, err
}

// conn is one run of the program.
type conn struct {
	proc   *sandbox.Process
	stdin  io.WriteCloser
	stderr *tail
	wmu    sync.Mutex
	mu     sync.Mutex
	calls  map[int64]*call
	nextID int64
	err    error         // why the program can no longer answer; set once
	gone   chan struct{} // closed when err is set
}

// start starts the program and sends it the spec; it does not wait for
// the program's answer, which comes before any reply to a request.
func start(cfg Config) (*conn, error) {
	proc := sandbox.Command(context.Background(), cfg.Sandbox, cfg.Path, cfg.Args...)
	// It needs no working directory; in / rather than the caller's (the
	// workspace), no file where the tools write can configure it.
	proc.Dir, proc.Env = "/", cfg.Env
	c := &conn{proc: proc, stderr: &tail{}, calls: map[int64]*call{0: newCall(0)}, nextID: 1, gone: make(chan struct{})}
	proc.Stderr = c.stderr
	stdin, err := proc.StdinPipe()
	if err != nil {
		return nil, fmt.Errorf("model process: %w", err)
	}
	stdout, err := proc.StdoutPipe()
	if err != nil {
		return nil, fmt.Errorf("model process: %w", err)
	}
	if err := proc.Start(); err != nil {
		return nil, fmt.Errorf("model process: %w", err)
	}
	c.stdin = stdin
	go c.read(stdout)
	if err := c.write(request{Op: opOpen, Version: version, Spec: &cfg.Spec}); err != nil {
		c.close()
		return nil, err
	}
	return c, nil
}

// send sends one request under a new id. The open request's reply (id 0)
// is checked first, so that a spec the program refused fails every
// request with the program's reason.
func (c *conn) send(op string, req *driver.Request) (*call, error) {
	c.mu.Lock()
	id := c.nextID
	c.nextID++
	call := newCall(id)
	c.calls[id] = call
	c.mu.Unlock()
	if err := c.write(request{ID: id, Op: op, Request: req}); err != nil {
		return nil, err
	}
	return call, nil
}

// cancel tells the program to stop a request, and forgets it.
func (c *conn) cancel(id int64) {
	c.mu.Lock()
	delete(c.calls, id)
	c.mu.Unlock()
	c.write(request{ID: id, Op: opCancel}) // a program that has gone has nothing to stop
}

func (c *conn) write(r request) error {
	b, err := json.Marshal(r)
	if err != nil {
		return fmt.Errorf("model process: encode the request: %w", err)
	}
	c.wmu.Lock()
	defer c.wmu.Unlock()
	if _, err := c.stdin.Write(append(b, '\n')); err != nil {
		return c.fail(fmt.Errorf("model process: %w", err))
	}
	return nil
}

// read hands each reply to its call until the program's output ends.
func (c *conn) read(stdout io.Reader) {
	dec := json.NewDecoder(bufio.NewReader(stdout))
	for {
		var r reply
		if err := dec.Decode(&r); err != nil {
			werr := c.proc.Wait()
			c.fail(c.exitError(err, werr))
			return
		}
		if r.ID == 0 && r.Error != nil { // the program refused the spec
			c.fail(fmt.Errorf("model process: %w", r.Error.decode()))
			continue
		}
		c.mu.Lock()
		call := c.calls[r.ID]
		if r.Done {
			delete(c.calls, r.ID)
		}
		c.mu.Unlock()
		if call != nil {
			call.put(r)
		}
	}
}

// exitError says why the program stopped answering: its exit and the end
// of what it wrote on standard error.
func (c *conn) exitError(readErr, waitErr error) error {
	why := "ended"
	if waitErr != nil {
		why = waitErr.Error()
	} else if !errors.Is(readErr, io.EOF) {
		why = "unreadable reply: " + readErr.Error()
	}
	if s := strings.TrimSpace(c.stderr.String()); s != "" {
		why += ": " + s
	}
	return errors.New("model process " + why)
}

// fail records why the program can no longer answer, the first time, and
// wakes every request waiting on it. It returns the recorded error.
func (c *conn) fail(err error) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.err == nil {
		c.err = err
		close(c.gone)
	}
	return c.err
}

func (c *conn) dead() bool {
	select {
	case <-c.gone:
		return true
	default:
		return false
	}
}

// closeGrace is how long a program whose standard input has closed gets
// to end its requests before it is killed.
const closeGrace = 5 * time.Second

// close ends the program: its standard input closes, and Serve returns
// once its requests have; one that has not ended after closeGrace is
// killed.
func (c *conn) close() error {
	c.stdin.Close()
	select {
	case <-c.gone:
	case <-time.After(closeGrace):
		c.proc.Kill()
		<-c.gone
	}
	return nil
}

// call is the replies to one request, in order, until its final one.
type call struct {
	id      int64
	mu      sync.Mutex
	replies []reply
	ready   chan struct{} // has a token while replies is not empty
}

func newCall(id int64) *call { return &call{id: id, ready: make(chan struct{}, 1)} }

func (c *call) put(r reply) {
	c.mu.Lock()
	c.replies = append(c.replies, r)
	c.mu.Unlock()
	select {
	case c.ready <- struct{}{}:
	default:
	}
}

// next waits for the request's next reply, ctx's end, or the program's.
func (c *call) next(ctx context.Context, cn *conn) (reply, error) {
	for {
		c.mu.Lock()
		if len(c.replies) > 0 {
			r := c.replies[0]
			c.replies = c.replies[1:]
			if len(c.replies) > 0 {
				select {
				case c.ready <- struct{}{}:
				default:
				}
			}
			c.mu.Unlock()
			return r, nil
		}
		c.mu.Unlock()
		select {
		case <-c.ready:
		case <-ctx.Done():
			return reply{}, ctx.Err()
		case <-cn.gone:
			c.mu.Lock()
			pending := len(c.replies) > 0
			c.mu.Unlock()
			if !pending {
				return reply{}, cn.err
			}
		}
	}
}

// tail keeps the last few KB the program wrote on standard error, for the
// error that reports its end.
type tail struct {
	mu  sync.Mutex
	buf []byte
}

const tailSize = 4 << 10

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if len(t.buf) > tailSize {
		t.buf = t.buf[len(t.buf)-tailSize:]
	}
	return len(p), nil
}

func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.buf)
}
