package gitref

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"

	"github.com/quiverkit/quiver/sandbox"
)

// batch is the backend's long-lived `git cat-file --batch`: one object id
// written, its header and content read back, one request at a time. It is
// started on first use and again after it failed.
type batch struct {
	b *Backend

	mu     sync.Mutex
	closed bool
	proc   *sandbox.Process
	cancel context.CancelFunc
	in     io.WriteCloser
	out    *bufio.Reader
}

// errClosed is the error of a read after Close.
var errClosed = errors.New("the git ref backend is closed")

// read returns the content of the object oid, expected to be size bytes.
func (q *batch) read(oid string, size int64) ([]byte, error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.closed {
		return nil, errClosed
	}
	if q.proc == nil {
		if err := q.start(); err != nil {
			return nil, err
		}
	}
	data, err := q.ask(oid, size)
	if err != nil {
		q.stop() // the stream may be out of step: the next read starts afresh
	}
	return data, err
}

func (q *batch) ask(oid string, size int64) ([]byte, error) {
	if _, err := io.WriteString(q.in, oid+"\n"); err != nil {
		return nil, fmt.Errorf("git cat-file: %w", err)
	}
	header, err := q.out.ReadString('\n')
	if err != nil {
		return nil, fmt.Errorf("git cat-file: %w", err)
	}
	f := strings.Fields(header)
	if len(f) != 3 || f[0] != oid {
		return nil, fmt.Errorf("git cat-file: object %s: %q", oid, strings.TrimSpace(header))
	}
	n, err := strconv.ParseInt(f[2], 10, 64)
	if err != nil || n != size || n > batchMax {
		return nil, fmt.Errorf("git cat-file: object %s is %s bytes, the tree said %d", oid, f[2], size)
	}
	data := make([]byte, n+1) // the content and its newline
	if _, err := io.ReadFull(q.out, data); err != nil {
		return nil, fmt.Errorf("git cat-file: object %s: %w", oid, err)
	}
	return data[:n], nil
}

func (q *batch) start() error {
	ctx, cancel := context.WithCancel(context.Background())
	proc := sandbox.GitCommand(ctx, q.b.box, q.b.dir, "cat-file", "--batch")
	in, err := proc.StdinPipe()
	if err != nil {
		cancel()
		return err
	}
	out, err := proc.StdoutPipe()
	if err != nil {
		cancel()
		return err
	}
	if err := proc.Start(); err != nil {
		cancel()
		return sandbox.ToolError(err)
	}
	q.proc, q.cancel, q.in, q.out = proc, cancel, in, bufio.NewReaderSize(out, 64<<10)
	return nil
}

// stop ends the process, if any.
func (q *batch) stop() {
	if q.proc == nil {
		return
	}
	q.in.Close()
	q.cancel()
	q.proc.Wait()
	q.proc, q.in, q.out = nil, nil, nil
}

func (q *batch) close() {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.closed = true
	q.stop()
}
