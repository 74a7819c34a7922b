package search

import (
	"bytes"
	"context"
	"io"
	"strings"
)

// fileSearcher is one worker's searcher: its scanner, its read buffer, and
// the state of the file it is searching.
type fileSearcher struct {
	sc       *scanner
	col      *Collector
	mode     Mode
	context  int
	limit    int
	maxWhole int // read files up to this size whole; the stream window otherwise
	buf      []byte
	n        int // bytes of buf holding file data (stream search)

	// The current file.
	res       FileResult
	kept      int  // matches materialized
	keep      bool // materialize matches (content mode, below the limit)
	closed    bool // the last kept match and its context are done: only count now
	stop      bool // files mode: one match is all it takes
	lastEmit  int  // number of the last line emitted, 0 for none
	lastMatch int  // number of the last kept match, 0 for none
	emitEnd   int  // offset in the current region just past the last emitted line, -1 if it is in an earlier region
	ring      []Line
	line      int // number of the first line of the current region
}

func newFileSearcher(m *Matcher, c *Collector) *fileSearcher {
	return &fileSearcher{sc: m.scanner(), col: c, mode: c.mode, context: c.context, limit: c.limit, maxWhole: maxWhole}
}

func (s *fileSearcher) begin(path string) {
	s.res = FileResult{Path: path}
	s.kept, s.lastEmit, s.lastMatch, s.line, s.n = 0, 0, 0, 1, 0
	s.ring = s.ring[:0]
	s.stop = false
	s.keep = s.mode == ModeContent && !s.col.Full(path)
	s.closed = !s.keep
}

// region searches data, which holds whole lines starting at line s.line.
// final says data ends the file: its last line need not end with '\n'.
// Otherwise data ends with '\n'.
func (s *fileSearcher) region(data []byte, final bool) {
	if s.stop || len(data) == 0 {
		return
	}
	s.sc.reset()
	s.emitEnd = -1
	lineNo, counted := s.line, 0
	for pos := 0; pos < len(data); {
		start, end := s.sc.next(data, pos)
		if start < 0 {
			break
		}
		pos = end + 1
		s.res.Count++
		if s.mode == ModeFiles {
			s.stop = true
			return
		}
		if s.closed {
			continue
		}
		lineNo += bytes.Count(data[counted:start], newline)
		counted = start
		s.flushAfter(data, lineNo)
		if !s.keep {
			s.closed = true
			continue
		}
		s.emitBefore(data, start, lineNo)
		s.emitLine(Line{Num: lineNo, Text: s.sc.clipMatch(data[start:end])}, end)
		s.lastMatch = lineNo
		if s.kept++; s.kept == s.limit {
			s.keep = false
		}
	}
	if s.closed {
		return
	}
	last := lineNo + bytes.Count(data[counted:], newline)
	if final && data[len(data)-1] != '\n' {
		last++ // the unterminated last line
	}
	// last is now the number of the first line after the region.
	s.flushAfter(data, last)
	s.saveRing(data, last)
	s.line = last
}

var newline = []byte{'\n'}

// flushAfter emits the after-context of the last kept match that lies
// before line upto, in the current region.
func (s *fileSearcher) flushAfter(data []byte, upto int) {
	if s.lastMatch == 0 || s.context == 0 {
		return
	}
	to := min(s.lastMatch+s.context, upto-1)
	if s.lastEmit >= to {
		return
	}
	pos := s.emitEnd + 1
	if s.emitEnd < 0 {
		pos = 0 // the pending lines start the region
	}
	for num := s.lastEmit + 1; num <= to && pos < len(data); num++ {
		end := lineEnd(data, pos)
		s.emitLine(Line{Num: num, Text: ClipLine(data[pos:end]), Context: true}, end)
		pos = end + 1
	}
}

// emitBefore emits the before-context of the match on line num, which
// starts at offset start of the region: from the ring for lines before the
// region, from data for the others.
func (s *fileSearcher) emitBefore(data []byte, start, num int) {
	from := max(s.lastEmit+1, num-s.context, 1)
	if s.context == 0 || from >= num {
		return
	}
	for _, l := range s.ring {
		if l.Num >= from && l.Num < s.line {
			s.emitLine(l, -1)
		}
	}
	first := max(from, s.line)
	if first >= num {
		return
	}
	// Walk back num-first lines from the match, then emit them in order.
	pos := start
	for i := 0; i < num-first; i++ {
		pos = lineStart(data, pos-1)
	}
	for n := first; n < num; n++ {
		end := lineEnd(data, pos)
		s.emitLine(Line{Num: n, Text: ClipLine(data[pos:end]), Context: true}, end)
		pos = end + 1
	}
}

// emitLine appends l; end is its end offset in the current region (-1: it
// is from an earlier one).
func (s *fileSearcher) emitLine(l Line, end int) {
	s.res.Lines = append(s.res.Lines, l)
	s.lastEmit = l.Num
	if end >= 0 {
		s.emitEnd = end
	}
}

// saveRing keeps copies of the last context lines before line next, for
// the before-context of a match early in the next region.
func (s *fileSearcher) saveRing(data []byte, next int) {
	if s.context == 0 || s.mode != ModeContent {
		return
	}
	var tail []Line
	end := len(data)
	if data[end-1] == '\n' {
		end--
	}
	for num := next - 1; num >= s.line && len(tail) < s.context; num-- {
		start := lineStart(data, end)
		tail = append(tail, Line{Num: num, Text: ClipLine(data[start:end]), Context: true})
		end = start - 1
	}
	for i, j := 0, len(tail)-1; i < j; i, j = i+1, j-1 {
		tail[i], tail[j] = tail[j], tail[i]
	}
	if keep := s.context - len(tail); keep > 0 && len(s.ring) > 0 {
		s.ring = append(s.ring[max(0, len(s.ring)-keep):], tail...)
	} else {
		s.ring = tail
	}
}

// longLine handles a line too long for the window, searched in pieces:
// head is its beginning, matched whether a piece matched.
func (s *fileSearcher) longLine(num int, head []byte, matched bool) {
	text := ClipLine(head)
	if !strings.HasSuffix(text, "…") {
		text += "…" // the line goes on well past its head
	}
	if matched {
		s.res.Count++
		if s.mode == ModeFiles {
			s.stop = true
			return
		}
		if !s.closed {
			if !s.keep {
				s.closed = true
			} else {
				s.line = num // the ring holds every earlier line it needs
				s.emitBefore(nil, 0, num)
				s.emitLine(Line{Num: num, Text: text}, -1)
				s.lastMatch = num
				if s.kept++; s.kept == s.limit {
					s.keep = false
				}
			}
		}
	} else if !s.closed && s.lastMatch > 0 && num <= s.lastMatch+s.context && num > s.lastEmit {
		s.emitLine(Line{Num: num, Text: text, Context: true}, -1)
	}
	if s.context > 0 && s.mode == ModeContent {
		s.ring = append(s.ring, Line{Num: num, Text: text, Context: true})
		if len(s.ring) > s.context {
			s.ring = s.ring[len(s.ring)-s.context:]
		}
	}
	s.line = num + 1
}

// searchStream searches a file too large to read whole, window by window.
// Until a line overflows the window, the windows are cut where ripgrep's
// read blocks end, so that a NUL byte ends the search where it ends
// ripgrep's. s.buf[:s.n] may already hold the file's first bytes.
func (s *fileSearcher) searchStream(ctx context.Context, f io.Reader) (isBinary bool, err error) {
	if cap(s.buf) < s.maxWhole {
		grown := make([]byte, s.maxWhole)
		copy(grown, s.buf[:s.n])
		s.buf = grown
	}
	buf := s.buf[:cap(s.buf)]
	sim := rgSim{buflen: rgInitial}
	exact := true  // windows follow ripgrep's blocks
	var base int64 // file offset of buf[0]
	eof := false
	var long longState
	for !s.stop {
		if err := ctx.Err(); err != nil {
			return false, err
		}
		for !eof && s.n < len(buf) {
			k, err := f.Read(buf[s.n:])
			s.n += k
			if err == io.EOF || k == 0 && err == nil {
				eof = true
			} else if err != nil {
				return false, err
			}
		}
		data := buf[:s.n]
		consumed := 0 // bytes of data searched
		if exact {
			r, at := simNeedMore, int64(0)
			for {
				r, at = sim.fill(data, base, base+int64(s.n), eof)
				if r == simNeedMore {
					break
				}
				s.region(data[consumed:at-base], r == simEOF)
				consumed = int(at - base)
				if r != simLines {
					return r == simBinary, nil
				}
			}
			// Not one block fits the window: a line is too long for it.
			exact = consumed > 0 || s.n < len(buf)
		}
		if !exact {
			var done bool
			consumed, done, isBinary = s.inexact(data, eof, s.n == len(buf), &long)
			if done {
				return isBinary, nil
			}
		}
		copy(buf, data[consumed:])
		s.n -= consumed
		base += int64(consumed)
	}
	return false, nil
}

// longState is the line being searched in pieces.
type longState struct {
	active  bool
	head    []byte // its first bytes, enough to show it
	matched bool
}

// longPiece searches one piece of an over-long line (no '\n' in it).
func (s *fileSearcher) longPiece(piece []byte, st *longState) {
	if !st.active {
		st.active, st.matched = true, false
		st.head = append(st.head[:0], piece[:min(len(piece), 4*MaxLineRunes)]...)
	}
	if !st.matched && s.sc.lineMatches(piece) {
		st.matched = true
	}
}

// inexact searches a window once ripgrep's blocks can no longer be
// followed (a line outgrew the window): whole lines up to the last '\n',
// an over-long line piece by piece (pieces overlap by a few bytes, so a
// match longer than that which straddles two pieces can be missed), and a
// NUL byte ends the search at the start of its line. full says data fills
// the window. It returns how many bytes of data it is done with.
func (s *fileSearcher) inexact(data []byte, eof, full bool, st *longState) (consumed int, done, isBinary bool) {
	if z := bytesIndexNUL(data); z >= 0 {
		cut := lineStart(data, z)
		if st.active && cut == 0 {
			return 0, true, true // the NUL is in the long line, which is not shown
		}
		data, eof, full, isBinary = data[:cut], true, false, true
	}
	for {
		rest := data[consumed:]
		if st.active {
			nl := bytes.IndexByte(rest, '\n')
			switch {
			case nl >= 0 || eof:
				if nl < 0 {
					nl = len(rest)
				}
				s.longPiece(rest[:nl], st)
				s.longLine(s.line, st.head, st.matched)
				st.active = false
				consumed += min(nl+1, len(rest))
				continue
			case len(rest) > overlap:
				s.longPiece(rest[:len(rest)-overlap], st)
				consumed += len(rest) - overlap
			}
			return consumed, false, false
		}
		if eof {
			s.region(rest, true)
			return len(data), true, isBinary
		}
		if last := bytes.LastIndexByte(rest, '\n'); last >= 0 {
			s.region(rest[:last+1], false)
			consumed += last + 1
		}
		if consumed > 0 || !full {
			return consumed, false, false
		}
		s.longPiece(rest[:len(rest)-overlap], st) // the window holds part of one line
		consumed = len(rest) - overlap
		return consumed, false, false
	}
}

// bytesIndexNUL returns the index of the first NUL byte in data, or -1.
func bytesIndexNUL(data []byte) int { return bytes.IndexByte(data, 0) }

// rgSim follows ripgrep's line buffer through a file: its fills decide
// which lines ripgrep has searched when it meets a NUL byte. Offsets are
// absolute in the file.
type rgSim struct {
	start  int64 // first byte not yet searched (ripgrep's buffer start)
	end    int64 // end of the bytes ripgrep has read
	buflen int64 // ripgrep's buffer size
}

type simResult int

const (
	simNeedMore simResult = iota // the next fill needs bytes not read yet
	simLines                     // a fill ended with whole lines: search up to the offset returned
	simEOF                       // the file ended: search everything up to the offset returned
	simBinary                    // the fill met a NUL: the search ends at the offset returned
)

// fill simulates one fill of ripgrep's buffer. data holds the file's bytes
// from offset base up to avail; eof says avail is the end of the file. The
// state changes only when the fill could be decided.
func (s *rgSim) fill(data []byte, base, avail int64, eof bool) (simResult, int64) {
	st := *s
	for {
		if st.end-st.start == st.buflen {
			st.buflen *= rgGrowthBy
		}
		readEnd := st.start + st.buflen
		if readEnd > avail {
			if !eof {
				return simNeedMore, 0
			}
			readEnd = avail
		}
		if readEnd == st.end {
			*s = st
			return simEOF, st.end
		}
		fresh := data[st.end-base : readEnd-base]
		if bytes.IndexByte(fresh, 0) >= 0 {
			*s = st
			return simBinary, st.start
		}
		old := st.end
		st.end = readEnd
		if k := bytes.LastIndexByte(fresh, '\n'); k >= 0 {
			st.start = old + int64(k) + 1
			*s = st
			return simLines, st.start
		}
	}
}
