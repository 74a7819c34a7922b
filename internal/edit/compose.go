package edit

import "strings"

// Apply returns text with changes made; changes must be sorted by Off and
// must not overlap.
func Apply(text string, changes []Change) string {
	size := len(text)
	for _, c := range changes {
		size += len(c.New) - c.Len
	}
	var b strings.Builder
	b.Grow(size)
	at := 0
	for _, c := range changes {
		b.WriteString(text[at:c.Off])
		b.WriteString(c.New)
		at = c.Off + c.Len
	}
	b.WriteString(text[at:])
	return b.String()
}

// Compose turns the changes of edits made one after another — each step's
// changes in the coordinates of the text the steps before it produced — into
// changes to the original text of length origLen, so that one diff shows
// them all. It keeps the current text as a piece table: runs of the original
// and inserted strings; each step is one pass over the pieces.
func Compose(origLen int, steps ...[]Change) []Change {
	pieces := []piece{{orig: true, off: 0, n: origLen}}
	for _, step := range steps {
		pieces = applyStep(pieces, step)
	}
	return changesOf(pieces, origLen)
}

// piece is a run of the original text (orig, off, n) or an inserted string.
type piece struct {
	orig   bool
	off, n int
	text   string
}

func (p piece) len() int {
	if p.orig {
		return p.n
	}
	return len(p.text)
}

func (p piece) slice(from, to int) piece {
	if p.orig {
		return piece{orig: true, off: p.off + from, n: to - from}
	}
	return piece{text: p.text[from:to]}
}

// applyStep replaces the spans of changes (current coordinates) in pieces.
func applyStep(pieces []piece, changes []Change) []piece {
	out := make([]piece, 0, len(pieces)+2*len(changes))
	i, within, pos := 0, 0, 0 // pieces[i] from byte within is at current offset pos
	advance := func(to int, keep bool) {
		for pos < to && i < len(pieces) {
			p := pieces[i]
			take := min(p.len()-within, to-pos)
			if keep {
				out = append(out, p.slice(within, within+take))
			}
			pos += take
			within += take
			if within == p.len() {
				i, within = i+1, 0
			}
		}
	}
	for _, c := range changes {
		advance(c.Off, true)
		advance(c.Off+c.Len, false)
		if c.New != "" {
			out = append(out, piece{text: c.New})
		}
	}
	for ; i < len(pieces); i, within = i+1, 0 {
		if p := pieces[i]; within < p.len() {
			out = append(out, p.slice(within, p.len()))
		}
	}
	return out
}

// changesOf reads the changes to the original off a piece table: every gap
// between consecutive original runs, with the strings inserted there.
func changesOf(pieces []piece, origLen int) []Change {
	var out []Change
	next := 0 // the original offset the text would continue at if unchanged
	var ins strings.Builder
	flush := func(to int) {
		if to != next || ins.Len() > 0 {
			out = append(out, Change{Off: next, Len: to - next, New: ins.String()})
			ins.Reset()
		}
	}
	for _, p := range pieces {
		if !p.orig {
			ins.WriteString(p.text)
			continue
		}
		if p.n == 0 {
			continue
		}
		flush(p.off)
		next = p.off + p.n
	}
	flush(origLen)
	return out
}
