package shell

import (
	"bytes"
	"io"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/quiverkit/quiver/outputcache"
)

// Spool receives one output as it is produced. It keeps in memory only
// what a model may be shown — the head and the tail within an
// [outputcache.Split] of the message budget — and
// streams the whole output to a sink, which it opens the first time the
// output outgrows the budget (small outputs never touch the disk or the
// cache). Memory use is bounded whatever the output's size.
//
// A Spool takes its writes from one goroutine (the runner's); [Spool.Last]
// may be called from another while it is written.
type Spool struct {
	budget outputcache.Split
	open   func() (io.WriteCloser, error)

	mu sync.Mutex // guards what Last reads: head, tail

	head     []byte
	tail     []byte // the bytes after head; only its last budget.TailBytes count
	total    int64
	newlines int64
	sink     io.WriteCloser
	sinkErr  error
}

// NewSpool returns a spool that keeps the head and tail b; open makes the
// sink for the whole output when it is first needed (nil: the whole output
// is not kept).
func NewSpool(b outputcache.Split, open func() (io.WriteCloser, error)) *Spool {
	return &Spool{budget: b, open: open}
}

// Write records p. It never fails: a sink that cannot be opened or written
// is recorded (see [Spool.View]) and the head and tail are still kept.
func (s *Spool) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := len(p)
	s.total += int64(n)
	s.newlines += int64(bytes.Count(p, []byte{'\n'}))
	if s.sink == nil && s.sinkErr == nil && s.overBudget() {
		s.spill()
	}
	if s.sink != nil {
		if _, err := s.sink.Write(p); err != nil {
			s.sinkErr = err
			s.sink.Close()
			s.sink = nil
		}
	}
	if room := s.budget.HeadBytes - len(s.head); room > 0 {
		k := min(room, len(p))
		s.head = append(s.head, p[:k]...)
		p = p[k:]
	}
	if len(p) > 0 {
		s.appendTail(p)
	}
	return n, nil
}

func (s *Spool) overBudget() bool {
	b := s.budget
	return s.total > int64(b.HeadBytes+b.TailBytes) || s.newlines > int64(b.HeadLines+b.TailLines)
}

// spill opens the sink and writes to it everything kept so far, which is
// the whole output before the current write: nothing is dropped from the
// tail before the output outgrows the budget.
func (s *Spool) spill() {
	if s.open == nil {
		s.sinkErr = errNoSink
		return
	}
	w, err := s.open()
	if err != nil {
		s.sinkErr = err
		return
	}
	for _, part := range [][]byte{s.head, s.tail} {
		if _, err := w.Write(part); err != nil {
			s.sinkErr = err
			w.Close()
			return
		}
	}
	s.sink = w
}

func (s *Spool) appendTail(p []byte) {
	max := s.budget.TailBytes
	if len(p) >= max {
		s.tail = append(s.tail[:0], p[len(p)-max:]...)
		return
	}
	s.tail = append(s.tail, p...)
	if len(s.tail) > 2*max {
		s.tail = append(s.tail[:0], s.tail[len(s.tail)-max:]...)
	}
}

// Last returns the end of the output so far, as safe text: at most lines
// lines and maxBytes bytes, starting at a line boundary when that keeps at
// least half of it. It is what a progress report shows of a running command,
// and may be called while the spool is written.
func (s *Spool) Last(lines, maxBytes int) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var b []byte
	switch {
	case len(s.tail) >= maxBytes:
		b = append(b, s.tail[len(s.tail)-maxBytes:]...)
	case s.total > int64(len(s.head)+len(s.tail)):
		b = append(b, s.tail...) // the bytes between head and tail are gone
	default:
		head := s.head[max(0, len(s.head)-(maxBytes-len(s.tail))):]
		b = append(append(b, head...), s.tail...)
	}
	newlines := lines // a last line without its newline is a line too
	if len(b) > 0 && b[len(b)-1] != '\n' {
		newlines--
	}
	if int64(len(b)) == s.total && bytes.Count(b, []byte{'\n'}) <= newlines {
		return SafeText(b) // the whole output: no partial line to drop
	}
	return SafeText(cutTail(b, newlines))
}

// Close closes the sink, if one was opened.
func (s *Spool) Close() error {
	if s.sink == nil {
		return nil
	}
	err := s.sink.Close()
	s.sink = nil
	if err != nil && s.sinkErr == nil {
		s.sinkErr = err
	}
	return err
}

// View is what a model is shown of an output.
type View struct {
	Head, Tail   string // safe text; Tail is empty unless Truncated
	Truncated    bool
	OmittedBytes int64
	OmittedLines int64 // -1: not counted (a job's log is read at its two ends)
	TotalBytes   int64
	Stored       bool  // the whole output went to the sink
	StoreErr     error // why the whole output could not be kept, if it was not
}

// Text is the output as a model is shown it: whole, or its head and tail
// around the [outputcache.Marker], which says how much was left out and
// where the whole output is (kept; a View's own StoreErr is the reason it
// is nowhere, ahead of kept.Err).
func (v View) Text(kept outputcache.Kept) string {
	if !v.Truncated {
		return v.Head
	}
	if v.StoreErr != nil {
		kept.Err = v.StoreErr
	}
	head := v.Head
	if head != "" && !strings.HasSuffix(head, "\n") {
		head += "\n"
	}
	return head + outputcache.Marker(v.OmittedLines, v.OmittedBytes, kept) + "\n" + v.Tail
}

// View returns the head and tail of the output within the budget.
func (s *Spool) View() View {
	v := View{TotalBytes: s.total, Stored: s.overBudget() && s.sinkErr == nil, StoreErr: s.sinkErr}
	if !s.overBudget() {
		whole := append(s.head[:len(s.head):len(s.head)], s.tail...)
		v.Head = SafeText(whole)
		return v
	}
	tail := s.tail
	if len(tail) > s.budget.TailBytes {
		tail = tail[len(tail)-s.budget.TailBytes:]
	}
	head := cutHead(s.head, s.budget.HeadLines)
	tail = cutTail(tail, s.budget.TailLines)
	v.Truncated = true
	v.Head, v.Tail = SafeText(head), SafeText(tail)
	v.OmittedBytes = s.total - int64(len(head)) - int64(len(tail))
	v.OmittedLines = max(0, s.newlines-int64(bytes.Count(head, []byte{'\n'}))-int64(bytes.Count(tail, []byte{'\n'})))
	return v
}

// cutHead keeps at most lines lines of b and ends it at a line boundary
// when that keeps at least half of it, else at a character boundary.
func cutHead(b []byte, lines int) []byte {
	if i := nthIndex(b, '\n', lines); i >= 0 {
		return b[:i+1]
	}
	if i := bytes.LastIndexByte(b, '\n'); i >= len(b)/2 {
		return b[:i+1]
	}
	return trimPartialRune(b)
}

// cutTail keeps at most lines lines of b and starts it at a line boundary
// when that keeps at least half of it, else at a character boundary.
func cutTail(b []byte, lines int) []byte {
	if n := bytes.Count(b, []byte{'\n'}); n > lines {
		i := nthIndex(b, '\n', n-lines)
		return b[i+1:]
	}
	if i := bytes.IndexByte(b, '\n'); i >= 0 && i < len(b)/2 {
		return b[i+1:]
	}
	for i := 0; i < utf8.UTFMax && i < len(b); i++ {
		if utf8.RuneStart(b[i]) {
			return b[i:]
		}
	}
	return b
}

// trimPartialRune drops an incomplete UTF-8 sequence at the end of b.
func trimPartialRune(b []byte) []byte {
	for i := 1; i <= utf8.UTFMax && i <= len(b); i++ {
		c := b[len(b)-i]
		if !utf8.RuneStart(c) {
			continue
		}
		if !utf8.FullRune(b[len(b)-i:]) {
			return b[:len(b)-i]
		}
		break
	}
	return b
}

// nthIndex returns the index of the n-th (1-based) occurrence of c in b, or
// -1 when there are fewer.
func nthIndex(b []byte, c byte, n int) int {
	if n <= 0 {
		return -1
	}
	off := 0
	for k := 0; k < n; k++ {
		i := bytes.IndexByte(b[off:], c)
		if i < 0 {
			return -1
		}
		off += i + 1
	}
	return off - 1
}

type sinkError string

func (e sinkError) Error() string { return string(e) }

const errNoSink = sinkError("no place to store the whole output")
