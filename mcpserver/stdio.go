package mcpserver

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"
)

// lineFilter stands between a stdio client and the SDK. The SDK reads the
// stream with one JSON decoder, so a single malformed line would end the
// session; the filter answers such a line itself — a JSON-RPC parse error,
// as the specification asks — and so does a line longer than max, and only
// well-formed lines reach the SDK.
type lineFilter struct {
	src io.Reader
	out *lockedWriter // shared with the SDK, which writes its answers there
	dst *io.PipeWriter
	max int
}

// filterLines starts the filter and returns what the SDK should read.
func filterLines(src io.Reader, out *lockedWriter, max int) io.ReadCloser {
	pr, pw := io.Pipe()
	f := &lineFilter{src: src, out: out, dst: pw, max: max}
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
	_, err := f.dst.Write(append(line, '\n'))
	return err
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

// lockedWriter serialises whole messages from the SDK and the filter.
type lockedWriter struct {
	mu sync.Mutex
	w  io.WriteCloser
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

func (l *lockedWriter) Close() error { return l.w.Close() }
