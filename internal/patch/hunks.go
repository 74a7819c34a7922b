package patch

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/quiverkit/quiver/tool"
)

// applyHunks applies hunks, in order, to t and returns the new content and
// the number of lines added and removed. Each hunk is searched for from
// where the previous one ended, so the cost is linear in the file's length
// when the hunks match as written.
func applyHunks(t *text, hunks []Hunk) (content, int, int, error) {
	b := newBuilder(t)
	cur := pos{}
	finalNL := t.finalNL
	added, removed := 0, 0
	for i := range hunks {
		h := &hunks[i]
		start, end, lines, lv, err := locate(t, h, cur)
		if err != nil {
			return content{}, 0, 0, hunkError(t, h, i, len(hunks), err)
		}
		var shift indent
		if lv >= levelTrim {
			shift = indentShift(t, start, lines)
		}
		b.raw(cur.off, start.off)
		p := start
		for _, l := range lines {
			_, next, _ := t.lineAt(p)
			switch l.Kind {
			case Add:
				b.line(shift.apply(l.Text))
				added++
				continue
			case Delete:
				removed++
			default:
				// Context keeps the file's own bytes, even if it matched
				// only loosely.
				b.raw(p.off, next.off)
			}
			p = next
		}
		if end.off == len(t.data) {
			switch {
			case h.NewNoEOL:
				finalNL = false
			case h.OldNoEOL:
				finalNL = true
			}
		}
		cur = end
	}
	b.raw(cur.off, len(t.data))
	return b.finish(finalNL), added, removed, nil
}

// notFound says which part of a hunk could not be found.
type notFound struct {
	header string   // an @@ header, or
	lines  [][]byte // the hunk's old lines
	from   pos      // where the search started
}

func (e *notFound) Error() string { return "not found" }

// locate finds where h applies at or after cur: the start and end of the
// old lines it replaces, and the hunk lines to apply there (h.Lines, less
// trailing bare blank lines if they had to be dropped to match).
// The level says how loosely the old lines matched.
func locate(t *text, h *Hunk, cur pos) (start, end pos, lines []Line, lv level, err error) {
	from := cur
	for _, hd := range h.Headers {
		p, ok := t.seekHeader([]byte(hd), from)
		if !ok {
			return pos{}, pos{}, nil, 0, &notFound{header: hd, from: from}
		}
		_, from, _ = t.lineAt(p)
	}
	lines = h.Lines
	for {
		old := oldSide(lines)
		if len(old) == 0 {
			p := insertionPoint(t, h, from)
			return p, p, lines, levelExact, nil
		}
		if h.HasPos && h.OldLine-1 >= from.line {
			p := t.advance(from, h.OldLine-1-from.line)
			for lv := levelExact; lv <= levelFold; lv++ {
				if end, ok := t.matchAt(p, old, lv); ok {
					return p, end, lines, lv, nil
				}
			}
		}
		if start, end, lv, ok := t.seek(old, from, h.EOF); ok {
			return start, end, lines, lv, nil
		}
		trimmed := dropTrailingBare(lines)
		if len(trimmed) == len(lines) {
			return pos{}, pos{}, nil, 0, &notFound{lines: oldSide(h.Lines), from: from}
		}
		lines = trimmed
	}
}

// indent is a shift of indentation: a prefix to add to lines, or one to
// remove from them.
type indent struct{ add, cut string }

func (in indent) apply(s string) string {
	if in.add != "" && strings.TrimSpace(s) != "" {
		return in.add + s
	}
	if in.cut != "" {
		return strings.TrimPrefix(s, in.cut)
	}
	return s
}

// indentShift returns the shift between the patch's old lines and the file's
// lines they matched, if every non-blank line is shifted by the same prefix
// (the model quoted the code less or more indented than it is); added lines
// get the same shift. Mixed shifts give none: the added lines stay as
// written.
func indentShift(t *text, start pos, lines []Line) indent {
	var shift indent
	first := true
	p := start
	for _, l := range lines {
		if l.Kind == Add {
			continue
		}
		line, next, _ := t.lineAt(p)
		p = next
		if len(bytes.TrimSpace(line)) == 0 || strings.TrimSpace(l.Text) == "" {
			continue
		}
		fileIndent, patIndent := leading(string(line)), leading(l.Text)
		var s indent
		switch {
		case strings.HasSuffix(fileIndent, patIndent):
			s.add = fileIndent[:len(fileIndent)-len(patIndent)]
		case strings.HasSuffix(patIndent, fileIndent):
			s.cut = patIndent[:len(patIndent)-len(fileIndent)]
		default:
			return indent{}
		}
		if !first && s != shift {
			return indent{}
		}
		shift, first = s, false
	}
	return shift
}

// leading returns the spaces and tabs s starts with.
func leading(s string) string {
	return s[:len(s)-len(strings.TrimLeft(s, " \t"))]
}

// insertionPoint is where a hunk without old lines goes: at its line number
// if it has one, after its last header if it has headers, else at the end.
func insertionPoint(t *text, h *Hunk, from pos) pos {
	switch {
	case h.HasPos && !h.EOF:
		if n := h.OldLine - 1 - from.line; n > 0 {
			return t.advance(from, n)
		}
		return from
	case len(h.Headers) > 0 && !h.EOF:
		return from
	}
	return t.end()
}

func oldSide(lines []Line) [][]byte {
	var out [][]byte
	for _, l := range lines {
		if l.Kind != Add {
			out = append(out, []byte(l.Text))
		}
	}
	return out
}

func dropTrailingBare(lines []Line) []Line {
	n := len(lines)
	for n > 0 && lines[n-1].Bare {
		n--
	}
	return lines[:n]
}

// hunkError explains a hunk that did not apply: which hunk, what was not
// found from where, and where the first of its lines does occur.
func hunkError(t *text, h *Hunk, i, n int, err error) error {
	nf, ok := err.(*notFound)
	if !ok {
		return err
	}
	name := fmt.Sprintf("hunk %d of %d", i+1, n)
	if hd := h.header(); hd != "" {
		name += fmt.Sprintf(" (@@ %s)", hd)
	}
	if h.PatchLine > 0 {
		name += fmt.Sprintf(" at patch line %d", h.PatchLine)
	}
	var b strings.Builder
	if nf.header != "" {
		fmt.Fprintf(&b, "%s did not apply: its @@ line %q matches no line of the file at or after line %d", name, nf.header, nf.from.line+1)
	} else {
		fmt.Fprintf(&b, "%s did not apply: these lines were not found at or after line %d (compared exactly, then ignoring whitespace at line ends, then at both ends, then with Unicode punctuation folded to ASCII):\n", name, nf.from.line+1)
		quote(&b, nf.lines)
		if w := whereFirst(t, nf); w != "" {
			b.WriteString(w + "\n")
		}
	}
	if nf.header != "" {
		b.WriteString(". ")
	}
	b.WriteString("Read the file again and resend the patch with context lines copied from it")
	// The same code as edit's old_string not found: the call's text does
	// not match the file as it is, and other arguments will.
	e := tool.Errorf(tool.CodeInvalidArguments, "%s", b.String()).WithDetail("field", "patch")
	e.WithDetail("hunk", i+1)
	if hd := h.header(); hd != "" {
		e.WithDetail("header", hd)
	}
	return e
}

// quote writes up to a dozen lines, indented.
func quote(b *strings.Builder, lines [][]byte) {
	const max = 12
	for i, l := range lines {
		if i == max {
			fmt.Fprintf(b, "    ... (%d more lines)\n", len(lines)-max)
			break
		}
		b.WriteString("    ")
		b.WriteString(clip(string(l)))
		b.WriteByte('\n')
	}
}

// whereFirst says where the first non-blank line the hunk looked for does
// occur, which tells a model whether its hunks are out of order or its
// context is stale.
func whereFirst(t *text, nf *notFound) string {
	for _, l := range nf.lines {
		if len(strings.TrimSpace(string(l))) == 0 {
			continue
		}
		for lv := levelExact; lv <= levelFold; lv++ {
			p, _, ok := t.seekLevel([][]byte{l}, pos{}, lv)
			if !ok {
				continue
			}
			if p.line < nf.from.line {
				return fmt.Sprintf("Its first line %q occurs at line %d, above where this hunk was searched for: hunks of a file must be in the order of the file, and must not overlap.", clip(string(l)), p.line+1)
			}
			return fmt.Sprintf("Its first line %q occurs at line %d, but the lines after it there differ from the hunk's.", clip(string(l)), p.line+1)
		}
		return fmt.Sprintf("Its first line %q occurs nowhere in the file.", clip(string(l)))
	}
	return ""
}
