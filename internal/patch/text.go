package patch

import (
	"bytes"
	"io"
)

// text is a file's content seen as lines, without copying it or indexing
// its lines: hunks are searched forward from a cursor, so a position (byte
// offset and line number) is all that is needed.
type text struct {
	data    []byte
	eol     string // the line ending added lines get
	finalNL bool   // the content ends with a line ending (true for an empty file)
	nlines  int    // -1 until counted

	compares int // line comparisons made, for benchmarks to show the search is linear
}

// pos is the start of a line: its byte offset and 0-based line number. A pos
// at len(data) is the end of the text.
type pos struct{ off, line int }

func newText(data []byte) *text {
	t := &text{data: data, eol: "\n", finalNL: len(data) == 0 || data[len(data)-1] == '\n', nlines: -1}
	if i := bytes.IndexByte(data, '\n'); i > 0 && data[i-1] == '\r' {
		t.eol = "\r\n"
	}
	return t
}

// lineAt returns the line starting at p (without its terminator; a final
// '\r' is dropped, so CRLF files match LF patches) and the start of the next
// line. ok is false at the end of the text.
func (t *text) lineAt(p pos) (line []byte, next pos, ok bool) {
	if p.off >= len(t.data) {
		return nil, p, false
	}
	rest := t.data[p.off:]
	i := bytes.IndexByte(rest, '\n')
	next = pos{p.off + i + 1, p.line + 1}
	if i < 0 {
		i, next = len(rest), pos{len(t.data), p.line + 1}
	}
	if i > 0 && rest[i-1] == '\r' {
		i--
	}
	return rest[:i], next, true
}

// lines returns the number of lines.
func (t *text) lines() int {
	if t.nlines < 0 {
		t.nlines = bytes.Count(t.data, []byte{'\n'})
		if !t.finalNL {
			t.nlines++
		}
	}
	return t.nlines
}

// end returns the position after the last line.
func (t *text) end() pos { return pos{len(t.data), t.lines()} }

// tail returns the start of the k-th line from the end (k ≥ 1), or false if
// the text has fewer than k lines.
func (t *text) tail(k int) (pos, bool) {
	n := t.lines()
	if k > n {
		return pos{}, false
	}
	e := len(t.data)
	if t.finalNL && e > 0 {
		e-- // the final terminator starts no line
	}
	start := e
	for j := 0; j < k; j++ {
		if j > 0 {
			start-- // step over the terminator of the line before
		}
		start = bytes.LastIndexByte(t.data[:start], '\n') + 1
	}
	return pos{start, n - k}, true
}

// advance returns the position n lines after p (or the end).
func (t *text) advance(p pos, n int) pos {
	for ; n > 0; n-- {
		_, next, ok := t.lineAt(p)
		if !ok {
			break
		}
		p = next
	}
	return p
}

// builder assembles a file's new content as slices of the original and
// buffers of added lines, so a large file is never copied whole. Adjacent
// slices of the original are merged into one.
type builder struct {
	orig    []byte
	eol     string
	segs    [][]byte
	rawFrom int // when the last segment is orig[rawFrom:rawTo]; -1 otherwise
	rawTo   int
	pending []byte // added lines not yet appended to segs
	size    int
	endsNL  bool // the content so far ends with '\n' (or is empty)
}

func newBuilder(t *text) *builder {
	return &builder{orig: t.data, eol: t.eol, rawFrom: -1, endsNL: true}
}

// raw appends the original bytes orig[from:to].
func (b *builder) raw(from, to int) {
	if from >= to {
		return
	}
	b.terminate()
	b.flush()
	if b.rawFrom >= 0 && b.rawTo == from {
		b.segs[len(b.segs)-1] = b.orig[b.rawFrom:to]
	} else {
		b.segs = append(b.segs, b.orig[from:to])
		b.rawFrom = from
	}
	b.rawTo = to
	b.size += to - from
	b.endsNL = b.orig[to-1] == '\n'
}

// line appends an added line and the file's line ending.
func (b *builder) line(s string) {
	b.terminate()
	b.pending = append(b.pending, s...)
	b.pending = append(b.pending, b.eol...)
	b.size += len(s) + len(b.eol)
	b.endsNL = true
}

// terminate ends an unterminated last line (the old end of a file without a
// final newline) before more lines follow it.
func (b *builder) terminate() {
	if !b.endsNL {
		b.pending = append(b.pending, b.eol...)
		b.size += len(b.eol)
		b.endsNL = true
	}
}

func (b *builder) flush() {
	if len(b.pending) > 0 {
		b.segs = append(b.segs, b.pending)
		b.pending = nil
		b.rawFrom = -1
	}
}

// finish sets the final line ending as finalNL says and returns the content.
func (b *builder) finish(finalNL bool) content {
	b.flush()
	if b.size == 0 {
		return content{}
	}
	if finalNL && !b.endsNL {
		b.segs = append(b.segs, []byte(b.eol))
		b.size += len(b.eol)
	}
	if !finalNL && b.endsNL {
		last := b.segs[len(b.segs)-1]
		cut := 1
		if len(last) > 1 && last[len(last)-2] == '\r' {
			cut = 2
		}
		b.segs[len(b.segs)-1] = last[:len(last)-cut]
		b.size -= cut
	}
	return content{segs: b.segs, size: b.size}
}

// content is a file's bytes as a list of slices.
type content struct {
	segs [][]byte
	size int
}

func bytesContent(b []byte) content {
	if len(b) == 0 {
		return content{}
	}
	return content{segs: [][]byte{b}, size: len(b)}
}

// bytes returns the content as one slice, copying only if it is in pieces.
func (c content) bytes() []byte {
	switch len(c.segs) {
	case 0:
		return nil
	case 1:
		return c.segs[0]
	}
	return bytes.Join(c.segs, nil)
}

// reader streams the content.
func (c content) reader() io.Reader {
	rs := make([]io.Reader, len(c.segs))
	for i, s := range c.segs {
		rs[i] = bytes.NewReader(s)
	}
	return io.MultiReader(rs...)
}

// countLines returns the number of lines in b.
func countLines(b []byte) int {
	n := bytes.Count(b, []byte{'\n'})
	if len(b) > 0 && b[len(b)-1] != '\n' {
		n++
	}
	return n
}
