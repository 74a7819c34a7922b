package outputcache

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"unicode/utf8"
)

// GrepOptions says what [Output.Grep] looks for.
type GrepOptions struct {
	Pattern string // a literal, or a regular expression (RE2 syntax) when Regex is set
	Regex   bool
	Before  int // context lines shown before each match
	After   int // context lines shown after each match
	// MaxMatches caps the matching lines returned (default 50); the rest are
	// only counted.
	MaxMatches int
	// LineBytes caps the text shown of one line (default 1000): a longer
	// matching line is shown as a window around its first match, a longer
	// context line by its start.
	LineBytes int
}

// GrepLine is one line of a grep answer: a match, or context.
type GrepLine struct {
	Line
	Match bool `json:"match"`
}

// GrepResult is what [Output.Grep] found.
type GrepResult struct {
	// Groups are runs of consecutive lines: matches and their context, in
	// order, overlapping contexts merged.
	Groups [][]GrepLine
	// Matches is the number of matching lines in the whole output.
	Matches int64
	// Shown is the number of matching lines in Groups.
	Shown int
}

// ErrBadPattern is returned (wrapped) by Grep for a pattern that cannot
// match: empty, holding a newline, or an invalid regular expression.
var ErrBadPattern = errors.New("bad pattern")

// The buffer Grep reads through: lines are searched whole while they fit in
// grepMaxBuf; a longer line is searched in windows of that size, overlapping
// by the pattern's length (a literal) or regexOverlap (a regular expression,
// whose matches in such a line must fit in the overlap to be found across a
// window's edge). Variables so that tests reach the windows with small data.
var (
	grepMinBuf   = 1 << 20
	grepMaxBuf   = 16 << 20
	regexOverlap = 64 << 10
)

// Grep searches the output line by line and returns the first MaxMatches
// matching lines with their context, and the number of all matching lines.
// A literal is found with bytes.Index over large buffers; memory stays
// bounded by the buffer whatever the output's size or the number of
// matches. Like grep, a match never spans lines: a regular expression is
// compiled in multi-line mode (^ and $ match at line ends) and a match
// found across a newline counts only if its first line matches alone.
func (o *Output) Grep(ctx context.Context, opts GrepOptions) (GrepResult, error) {
	if opts.MaxMatches <= 0 {
		opts.MaxMatches = 50
	}
	if opts.LineBytes <= 0 {
		opts.LineBytes = 1000
	}
	opts.Before, opts.After = max(opts.Before, 0), max(opts.After, 0)
	m, err := newMatcher(opts.Pattern, opts.Regex)
	if err != nil {
		return GrepResult{}, err
	}
	g := &grepScan{o: o, m: m, opts: opts, line: 1}
	if err := g.scan(ctx); err != nil {
		return GrepResult{}, err
	}
	groups, err := o.withContext(ctx, g.found, opts)
	if err != nil {
		return GrepResult{}, err
	}
	return GrepResult{Groups: groups, Matches: g.matches, Shown: len(g.found)}, nil
}

// grepScan is the state of one pass over an output.
type grepScan struct {
	o    *Output
	m    *matcher
	opts GrepOptions

	line      int64 // the number of the line at the current segment's start
	midLine   bool  // the segment starts inside a line longer than the buffer
	lineStart int64 // where that line starts
	skipLine  bool  // ...and that line has matched already
	pending   int   // index in found of a match whose line's end is not yet known, or -1
	pendEnd   int64 // where that match's shown window ends

	found   []Line
	matches int64
}

// scan reads the output through a buffer, handing complete lines to
// lines, or windows of a line longer than the buffer to window.
func (g *grepScan) scan(ctx context.Context) error {
	buf := make([]byte, min(int64(grepMinBuf), max(g.o.Size, 1)))
	g.pending = -1
	var base int64 // the output offset of buf[0]
	fill := 0
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		n, err := g.o.ReadAt(buf[fill:], base+int64(fill))
		fill += n
		eof := base+int64(fill) >= g.o.Size
		if n == 0 && !eof {
			if err == nil || errors.Is(err, io.EOF) {
				err = ErrDamaged
			}
			return fmt.Errorf("outputcache: grep %s: %w", g.o.Ref, err)
		}
		data := buf[:fill]
		if base == 0 {
			g.m.tune(data)
		}
		end := bytes.LastIndexByte(data, '\n') + 1
		switch {
		case eof:
			end = fill
			g.lines(data, base)
		case end > 0:
			g.lines(data[:end], base)
		case len(buf) < grepMaxBuf:
			buf = append(buf, make([]byte, len(buf))...)
			continue
		default:
			end = max(fill-g.m.overlap, 1)
			g.window(data, end, base)
		}
		copy(buf, data[end:])
		fill -= end
		base += int64(end)
		if eof && fill == 0 {
			g.finishPending(g.o.Size)
			return nil
		}
	}
}

// counting reports whether matches are still being recorded (and line
// numbers therefore needed).
func (g *grepScan) counting() bool { return len(g.found) < g.opts.MaxMatches }

// lines searches data, complete lines starting at offset base (the first
// may be the end of a line longer than the buffer; the last may lack its
// newline at the end of the output).
func (g *grepScan) lines(data []byte, base int64) {
	pos := 0
	if g.skipLine {
		i := bytes.IndexByte(data, '\n')
		if i < 0 {
			return
		}
		g.finishPending(base + int64(i))
		pos, g.skipLine, g.midLine = i+1, false, false
		g.line++
	}
	counted := pos // g.line is the number of the line holding data[counted]
	for pos < len(data) {
		if !g.counting() {
			g.matches += g.m.countParallel(data[pos:])
			break
		}
		s, e := g.m.find(data[pos:])
		if s < 0 {
			break
		}
		s, e = s+pos, e+pos
		if s == len(data) && data[s-1] == '\n' {
			break // an empty match after the last newline: no line is there
		}
		ls := bytes.LastIndexByte(data[pos:s], '\n') + 1 + pos
		le := len(data)
		if i := bytes.IndexByte(data[s:], '\n'); i >= 0 {
			le = s + i
		}
		if e > le && !g.m.re.Match(data[ls:le]) {
			pos = le + 1
			continue
		}
		g.matches++
		g.line += int64(bytes.Count(data[counted:ls], newline))
		counted = ls
		g.record(data, ls, le, s, base, true)
		pos = le + 1
	}
	if g.counting() {
		g.line += int64(bytes.Count(data[counted:], newline))
	}
	g.midLine = false
}

// window searches data, a window of a line longer than the buffer starting
// at offset base; only matches starting before limit count (later ones are
// found in the next window, which starts at limit).
func (g *grepScan) window(data []byte, limit int, base int64) {
	if !g.midLine {
		g.midLine, g.lineStart = true, base
	}
	if g.skipLine {
		return
	}
	s, _ := g.m.find(data)
	if s < 0 || s >= limit {
		return
	}
	g.matches++
	g.skipLine = true
	if g.counting() {
		g.record(data, 0, len(data), s, base, false)
	}
}

// record keeps a matching line: whole if it is short, else a window around
// the match at s. ls and le bound the line within data; lineEnds says le
// is the line's true end (else it continues past data).
func (g *grepScan) record(data []byte, ls, le, s int, base int64, lineEnds bool) {
	start := base + int64(ls)
	if ls == 0 && g.midLine {
		start = g.lineStart
	}
	ws, we := ls, le
	if le-ls > g.opts.LineBytes || start < base+int64(ls) {
		ws = max(ls, s-g.opts.LineBytes/3)
		for ws < s && !utf8.RuneStart(data[ws]) {
			ws++
		}
		we = min(le, ws+g.opts.LineBytes)
	}
	text := data[ws:we]
	if we < le {
		text = trimRune(text)
	}
	line := Line{N: g.line, Text: string(text), CutBefore: base + int64(ws) - start}
	if lineEnds {
		line.CutAfter = int64(le - ws - len(text))
	} else {
		g.pending, g.pendEnd = len(g.found), base+int64(ws+len(text))
	}
	g.found = append(g.found, line)
}

// finishPending records where the line of a match shown as a window ends.
func (g *grepScan) finishPending(lineEnd int64) {
	if g.pending >= 0 {
		g.found[g.pending].CutAfter = lineEnd - g.pendEnd
		g.pending = -1
	}
}

// withContext returns the found lines with opts.Before and opts.After lines
// of context each, as runs of consecutive lines.
func (o *Output) withContext(ctx context.Context, found []Line, opts GrepOptions) ([][]GrepLine, error) {
	var groups [][]GrepLine
	for i := 0; i < len(found); {
		from := max(found[i].N-int64(opts.Before), 1)
		to := min(found[i].N+int64(opts.After), o.Lines)
		j := i + 1
		for j < len(found) && found[j].N-int64(opts.Before) <= to+1 {
			to = min(found[j].N+int64(opts.After), o.Lines)
			j++
		}
		group, err := o.contextRun(ctx, from, to, found[i:j], opts.LineBytes)
		if err != nil {
			return nil, err
		}
		groups = append(groups, group)
		i = j
	}
	return groups, nil
}

// contextRun reads lines from..to, using the recorded text for matches.
func (o *Output) contextRun(ctx context.Context, from, to int64, matches []Line, lineBytes int) ([]GrepLine, error) {
	if from == to && len(matches) == 1 {
		return []GrepLine{{Line: matches[0], Match: true}}, nil
	}
	sc, err := o.scannerAt(ctx, from)
	if err != nil {
		return nil, err
	}
	run := make([]GrepLine, 0, to-from+1)
	for n := from; n <= to; n++ {
		if len(matches) > 0 && matches[0].N == n {
			if _, _, err := sc.next(0); err != nil {
				return nil, err
			}
			run = append(run, GrepLine{Line: matches[0], Match: true})
			matches = matches[1:]
			continue
		}
		text, full, err := sc.next(lineBytes)
		if err != nil {
			return nil, err
		}
		if int64(len(text)) < full {
			text = trimRune(text)
		}
		run = append(run, GrepLine{Line: Line{N: n, Text: string(text), CutAfter: full - int64(len(text))}})
	}
	return run, nil
}
