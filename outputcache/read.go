package outputcache

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"unicode/utf8"
)

// Line is one line of a stored output, as a reader shows it.
type Line struct {
	N         int64  `json:"n"`                    // 1-based line number
	Text      string `json:"text"`                 // without its newline, possibly a window of a long line
	CutBefore int64  `json:"cut_before,omitempty"` // bytes of the line before Text, not shown
	CutAfter  int64  `json:"cut_after,omitempty"`  // bytes of the line after Text, not shown
}

// Page is a run of lines read from an output.
type Page struct {
	Lines []Line
	Total int64 // lines in the output
	// Next is the line to continue from when the page stopped before the
	// end (at its line limit or its byte limit), 0 at the end.
	Next int64
}

// ErrPastEnd is returned (wrapped) by ReadLines for a first line beyond the
// output's last.
var ErrPastEnd = errors.New("offset is past the end of the output")

// ReadLines returns up to limit lines starting at line first (1-based), and
// at most maxBytes bytes of line text in all. A line longer than what is
// left of maxBytes ends the page, unless it is the page's first line: that
// one is cut to fit, with CutAfter saying how much is not shown. It seeks
// through the sparse index, so its cost does not grow with first.
func (o *Output) ReadLines(ctx context.Context, first, limit int64, maxBytes int) (Page, error) {
	page := Page{Total: o.Lines}
	switch {
	case first < 1:
		return page, fmt.Errorf("first line %d: lines are numbered from 1", first)
	case limit < 1:
		return page, fmt.Errorf("limit %d: must be at least 1", limit)
	case o.Lines == 0 && first == 1:
		return page, nil
	case first > o.Lines:
		return page, fmt.Errorf("%w: line %d asked for, the output has %d lines", ErrPastEnd, first, o.Lines)
	}
	sc, err := o.scannerAt(ctx, first)
	if err != nil {
		return page, err
	}
	used := 0
	for n := first; n <= o.Lines && n < first+limit; n++ {
		keep := maxBytes - used
		if len(page.Lines) > 0 && keep <= 0 {
			page.Next = n
			break
		}
		text, full, err := sc.next(max(keep, 1))
		if err != nil {
			return page, err
		}
		if len(page.Lines) > 0 && full > int64(keep) {
			page.Next = n
			break
		}
		if int64(len(text)) < full {
			text = trimRune(text)
		}
		page.Lines = append(page.Lines, Line{N: n, Text: string(text), CutAfter: full - int64(len(text))})
		used += len(text) + 1
	}
	if page.Next == 0 && first+int64(len(page.Lines)) <= o.Lines {
		page.Next = first + int64(len(page.Lines))
	}
	return page, nil
}

// scannerAt returns a scanner positioned at the start of line n (1-based),
// reached from the nearest indexed line at or before it.
func (o *Output) scannerAt(ctx context.Context, n int64) (*lineScanner, error) {
	every := int64(o.IndexEvery)
	if every <= 0 || len(o.Index) == 0 {
		return nil, fmt.Errorf("%s: %w: no line index", o.Ref, ErrDamaged)
	}
	k := min((n-1)/every, int64(len(o.Index)-1))
	sc := &lineScanner{ctx: ctx, o: o, pos: o.Index[k], buf: make([]byte, 64<<10)}
	if err := sc.skip((n - 1) - k*every); err != nil {
		return nil, err
	}
	return sc, nil
}

// lineScanner reads lines from an output through a window of bytes.
type lineScanner struct {
	ctx      context.Context
	o        *Output
	pos      int64 // the next byte to consume
	buf      []byte
	win      []byte // buf's valid bytes, starting at winStart
	winStart int64
}

// window returns the bytes from pos on that are in the window, filling it
// if pos is past it. It returns nil at the end of the output.
func (s *lineScanner) window() ([]byte, error) {
	if s.pos >= s.winStart && s.pos < s.winStart+int64(len(s.win)) {
		return s.win[s.pos-s.winStart:], nil
	}
	if s.pos >= s.o.Size {
		return nil, nil
	}
	if err := s.ctx.Err(); err != nil {
		return nil, err
	}
	n, err := s.o.ReadAt(s.buf, s.pos)
	if n == 0 {
		if err == nil || errors.Is(err, io.EOF) {
			err = fmt.Errorf("%s: %w: data ends at byte %d, %d recorded", s.o.Ref, ErrDamaged, s.pos, s.o.Size)
		}
		return nil, fmt.Errorf("outputcache: read %s: %w", s.o.Ref, err)
	}
	s.win, s.winStart = s.buf[:n], s.pos
	return s.win, nil
}

// skip moves past n lines.
func (s *lineScanner) skip(n int64) error {
	for n > 0 {
		w, err := s.window()
		if err != nil || w == nil {
			return err
		}
		if c := int64(bytes.Count(w, newline)); c < n {
			n -= c
			s.pos += int64(len(w))
			continue
		}
		for ; n > 0; n-- {
			i := bytes.IndexByte(w, '\n')
			s.pos += int64(i + 1)
			w = w[i+1:]
		}
	}
	return nil
}

// next returns the next line without its newline, at most keep bytes of it,
// and the line's full length in bytes.
func (s *lineScanner) next(keep int) (text []byte, full int64, err error) {
	for {
		w, err := s.window()
		if err != nil || w == nil {
			return text, full, err
		}
		i := bytes.IndexByte(w, '\n')
		part := w
		if i >= 0 {
			part = w[:i]
		}
		if room := keep - len(text); room > 0 {
			text = append(text, part[:min(room, len(part))]...)
		}
		full += int64(len(part))
		s.pos += int64(len(part))
		if i >= 0 {
			s.pos++
			return text, full, nil
		}
	}
}

// trimRune drops a rune cut in two at the end of b, so that a clipped line
// stays valid UTF-8.
func trimRune(b []byte) []byte {
	for i := len(b) - 1; i >= 0 && i >= len(b)-utf8.UTFMax; i-- {
		if utf8.RuneStart(b[i]) {
			if !utf8.FullRune(b[i:]) {
				return b[:i]
			}
			return b
		}
	}
	return b
}
