package edit

import "strings"

// A tolerant strategy matches old_string against file lines that differ from
// it in whitespace, and the model's new_string carries the same drift: the
// trailing spaces, the indentation in the wrong unit or flattened, the
// collapsed alignment. Written as typed, new_string would put that drift into
// every line it covers, and the diff would show lines the model never meant
// to change. So the replacement of one place is built line by line, from a
// line diff of old_string and new_string:
//
//   - a line of new_string that is an unchanged line of old_string (equal but
//     for trailing whitespace) is written as the file line that old line
//     matched, byte for byte;
//   - a line the model changed is written as typed, re-indented from the
//     matched old line nearest it at the same depth (indent.go), so that the
//     body of an if sent flattened keeps its depth in the file.
//
// Only lines that compare whole take part: a diff of very long old and new
// strings that the diff bounds (maxLCSCells) counts every line as changed.

// lineDiff is old_string's lines against new_string's, computed once per
// search.
type lineDiff struct {
	lines  []string // new_string's lines, without its final "\n"
	suffix string   // "\n" when new_string ended with one
	same   []int    // same[i] is the old line that new line i keeps unchanged, or -1
	near   []span   // where new line i sits among the old lines
}

// span places a new line among old_string's lines: it replaces old lines
// a0..a1-1 (none for an inserted line, which goes before a0), and at is the
// one at its own position among them.
type span struct{ a0, a1, at int }

// rank orders old line k by its distance from the new line at s: the lines
// it replaces first, the one at its position before the others, then the
// lines around them, nearest first. The two lines on either side of an
// insertion rank equal.
func (s span) rank(k int) int {
	switch {
	case k < s.a0:
		return s.a1 - s.a0 + s.a0 - k
	case k >= s.a1:
		return s.a1 - s.a0 + k - s.a1 + 1
	}
	return abs(k - s.at)
}

func newLineDiff(oldLines []string, new string) *lineDiff {
	body, nl := strings.CutSuffix(new, "\n")
	d := &lineDiff{lines: strings.Split(body, "\n")}
	if nl {
		d.suffix = "\n"
	}
	d.same = make([]int, len(d.lines))
	d.near = make([]span, len(d.lines))
	ia, ib := 0, 0
	keep := func(upto int) {
		for ; ia < upto; ia, ib = ia+1, ib+1 {
			d.same[ib] = ia
			d.near[ib] = span{ia, ia + 1, ia}
		}
	}
	for _, h := range lineHunks(trimRightAll(oldLines), trimRightAll(d.lines)) {
		keep(h.a0)
		for q := h.b0; q < h.b1; q++ {
			d.same[q] = -1
			d.near[q] = span{h.a0, h.a1, min(h.a0+q-h.b0, max(h.a1-1, h.a0))}
		}
		ia, ib = h.a1, h.b1
	}
	keep(len(oldLines))
	return d
}

func trimRightAll(lines []string) []string {
	out := make([]string, len(lines))
	for i, l := range lines {
		out[i] = trimRight(l)
	}
	return out
}

func (m *matcher) lineDiff() *lineDiff {
	if m.diff == nil {
		m.diff = newLineDiff(m.oldLines, m.new)
	}
	return m.diff
}

// rewrite returns the replacement of one place whose lines in the file are
// file, old_string's line j having matched file[fileOf[j]] (-1: it matched no
// line of the file).
func (m *matcher) rewrite(file []string, fileOf []int) string {
	d := m.lineDiff()
	r := newReindenter(m.oldLines, file, fileOf, d.lines, m.fileUnit)
	var b strings.Builder
	for i, l := range d.lines {
		if i > 0 {
			b.WriteByte('\n')
		}
		if j := d.same[i]; j >= 0 && fileOf[j] >= 0 {
			b.WriteString(file[fileOf[j]])
			continue
		}
		b.WriteString(r.line(l, d.near[i]))
	}
	b.WriteString(d.suffix)
	return b.String()
}

// identity pairs old_string's lines with as many file lines, in order.
func identity(n int) []int {
	fileOf := make([]int, n)
	for i := range fileOf {
		fileOf[i] = i
	}
	return fileOf
}

// unchanged reports whether every hit would write back the text it covers:
// new_string differs from old_string only in whitespace the strategy ignored.
func unchanged(text string, hits []hit) bool {
	for _, h := range hits {
		if text[h.off:h.end] != h.new {
			return false
		}
	}
	return true
}
