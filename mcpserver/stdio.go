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

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// lineFilter stands between a stdio client and the SDK. The SDK's stdio
// connection treats a message it cannot read as the end of the connection:
// its JSON decoder stops at the first malformed value, and a value that is
// JSON but not a JSON-RPC message (`{}`, `[]`, `null`, a wrong version, an id
// that is neither a number nor a string, a batch under a protocol revision
// without batches) makes its Read fail, which closes the session. So the
// filter lets through only what the SDK reads without error — one JSON-RPC
// message per line, checked with the SDK's own decoder, without surrounding
// white space (the SDK refuses anything but a newline after a value) — and
// answers everything else itself: a parse error for a line that is not JSON,
// Invalid Request for a line over max bytes, for a message that is not
// JSON-RPC and for a batch. Batches are refused whatever the revision: MCP
// removed them in 2025-06-18, and under the older revisions that have them
// the filter cannot know in time which revision the session will settle on.
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
	ids   bool // copy each request's id into its _meta, for its span (see requestIDKey)
}

// filterLines starts the filter and returns what the SDK should read.
func filterLines(src io.Reader, out *lockedWriter, max int, grace time.Duration, ids bool) io.ReadCloser {
	pr, pw := io.Pipe()
	f := &lineFilter{src: src, out: out, dst: pw, max: max, grace: grace, ids: ids}
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
	line = bytes.TrimSpace(line)
	if tooLong {
		return f.reject(&jsonrpc.Error{Code: jsonrpc.CodeInvalidRequest,
			Message: fmt.Sprintf("Invalid Request: message longer than %d bytes", f.max)})
	}
	msg, bad := readMessage(line)
	if bad != nil {
		return f.reject(bad)
	}
	if req, ok := msg.(*jsonrpc.Request); ok && req.IsCall() {
		f.out.expect(1)
		if f.ids {
			line = withRequestID(line)
		}
	}
	_, err := f.dst.Write(append(line, '\n'))
	return err
}

// readMessage reads one line as the SDK will, or says why the SDK would
// not take it, as the error to answer with.
func readMessage(line []byte) (jsonrpc.Message, *jsonrpc.Error) {
	if !json.Valid(line) {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeParseError, Message: "Parse error: the line is not valid JSON"}
	}
	if line[0] == '[' {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidRequest,
			Message: "Invalid Request: JSON-RPC batches are not supported; send one message per line"}
	}
	msg, err := jsonrpc.DecodeMessage(line)
	if err != nil {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidRequest,
			Message: "Invalid Request: not a JSON-RPC 2.0 message: " + err.Error()}
	}
	return msg, nil
}

// answers counts the answers in msg, a message the SDK writes (the SDK
// writes an array only to answer a batch, and the filter lets none through).
func answers(msg []byte) int {
	var e struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
	}
	if json.Unmarshal(msg, &e) != nil || e.Method != "" || len(e.ID) == 0 || string(e.ID) == "null" {
		return 0
	}
	return 1
}

// reject answers a message that could not be read. Its id is unknown, so
// it is null, as JSON-RPC says.
func (f *lineFilter) reject(e *jsonrpc.Error) error {
	b, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": nil, "error": e})
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
	answered := answers(p)
	l.mu.Lock()
	n, err := l.w.Write(p)
	l.mu.Unlock()
	l.expect(-answered) // once written: the session may end when none is left
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
