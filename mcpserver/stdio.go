package mcpserver

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"
)

// lineFilter stands between a stdio client and the SDK. The SDK reads the
// stream with one JSON decoder, so a single malformed line would end the
// session; the filter answers such a line itself — a JSON-RPC parse error,
// as the specification asks — and so does a line longer than max, and only
// well-formed lines reach the SDK.
//
// It also keeps count of the requests not yet answered, so that a client
// that closes its end after writing its requests (a script piping them in)
// still gets the answers: the session ends when they are all answered, or
// after grace, when the calls still running are cancelled — a client that
// went away must not leave them running.
type lineFilter struct {
	src   io.Reader
	out   *lockedWriter // shared with the SDK, which writes its answers there
	dst   *io.PipeWriter
	max   int
	grace time.Duration
}

// filterLines starts the filter and returns what the SDK should read.
func filterLines(src io.Reader, out *lockedWriter, max int, grace time.Duration) io.ReadCloser {
	pr, pw := io.Pipe()
	f := &lineFilter{src: src, out: out, dst: pw, max: max, grace: grace}
	go f.run()
	return pr
}

func (f *lineFilter) run() {
	br := bufio.NewReaderSize(f.src, 64<<10)
	for {
		line, tooLong, err := readLine(br, f.max)
		if len(bytes.TrimSpace(line)) > 0 || tooLong {
			if werr := f.pass(line, tooLong); werr != nil {
				f.dst.CloseWithError(werr)
				return
			}
		}
		if err != nil {
			if errors.Is(err, io.EOF) {
				f.out.awaitAnswers(f.grace)
			}
			f.dst.CloseWithError(err) // io.EOF ends the session cleanly
			return
		}
	}
}

func (f *lineFilter) pass(line []byte, tooLong bool) error {
	switch {
	case tooLong:
		return f.reject(-32600, fmt.Sprintf("Invalid Request: message longer than %d bytes", f.max))
	case !json.Valid(line):
		return f.reject(-32700, "Parse error: the line is not valid JSON")
	}
	f.out.expect(count(line, true))
	_, err := f.dst.Write(append(line, '\n'))
	return err
}

// envelope is what the filter reads of a message.
type envelope struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
}

// count returns how many requests (requests true: messages with an id and
// a method) or answers (messages with an id and no method) msg holds, a
// batch counting each of its members.
func count(msg []byte, requests bool) int {
	var batch []envelope
	if t := bytes.TrimSpace(msg); len(t) > 0 && t[0] == '[' {
		if json.Unmarshal(t, &batch) != nil {
			return 0
		}
	} else {
		var e envelope
		if json.Unmarshal(t, &e) != nil {
			return 0
		}
		batch = []envelope{e}
	}
	n := 0
	for _, e := range batch {
		hasID := len(e.ID) > 0 && string(e.ID) != "null"
		if hasID && (e.Method != "") == requests {
			n++
		}
	}
	return n
}

// reject answers a message that could not be read. Its id is unknown, so
// it is null, as JSON-RPC says.
func (f *lineFilter) reject(code int, msg string) error {
	b, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": nil, "error": map[string]any{"code": code, "message": msg}})
	if err != nil {
		return err
	}
	_, err = f.out.Write(append(b, '\n'))
	return err
}

// readLine reads one line without its newline; past max bytes the rest of
// the line is discarded and tooLong is set.
func readLine(br *bufio.Reader, max int) (line []byte, tooLong bool, err error) {
	for {
		chunk, err := br.ReadSlice('\n')
		chunk = bytes.TrimSuffix(chunk, []byte("\n"))
		if !tooLong {
			if len(line)+len(chunk) > max {
				tooLong, line = true, nil
			} else {
				line = append(line, chunk...)
			}
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		return line, tooLong, err
	}
}

// lockedWriter serialises whole messages from the SDK and the filter, and
// counts the requests still to be answered. The count has a lock of its
// own: a write blocked on a client that is not reading must not stop the
// filter from reading.
type lockedWriter struct {
	mu sync.Mutex
	w  io.WriteCloser

	countMu sync.Mutex
	pending int
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	answers := count(p, false)
	l.mu.Lock()
	n, err := l.w.Write(p)
	l.mu.Unlock()
	l.expect(-answers) // once written: the session may end when none is left
	return n, err
}

func (l *lockedWriter) expect(n int) {
	l.countMu.Lock()
	l.pending += n
	l.countMu.Unlock()
}

// awaitAnswers waits until every request has been answered, or grace has
// passed.
func (l *lockedWriter) awaitAnswers(grace time.Duration) {
	deadline := time.Now().Add(grace)
	for time.Now().Before(deadline) {
		l.countMu.Lock()
		done := l.pending <= 0
		l.countMu.Unlock()
		if done {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func (l *lockedWriter) Close() error { return l.w.Close() }
