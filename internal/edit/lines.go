package edit

import (
	"hash/maphash"
	"strings"
)

// lineIndex is a text split into lines. Line i is text[start[i]:end(i)],
// without its "\n"; a text ending in "\n" has no empty line after it.
type lineIndex struct {
	text  string
	start []int
}

func newLineIndex(text string) *lineIndex {
	starts := make([]int, 0, strings.Count(text, "\n")+1)
	for off := 0; off < len(text); {
		starts = append(starts, off)
		nl := strings.IndexByte(text[off:], '\n')
		if nl < 0 {
			break
		}
		off += nl + 1
	}
	return &lineIndex{text: text, start: starts}
}

// n returns the number of lines.
func (lx *lineIndex) n() int { return len(lx.start) }

// end returns the offset just past line i's content (at its "\n", or the end
// of the text).
func (lx *lineIndex) end(i int) int {
	if i+1 < len(lx.start) {
		return lx.start[i+1] - 1
	}
	if strings.HasSuffix(lx.text, "\n") {
		return len(lx.text) - 1
	}
	return len(lx.text)
}

// line returns line i without its "\n".
func (lx *lineIndex) line(i int) string { return lx.text[lx.start[i]:lx.end(i)] }

// lineCounter turns increasing byte offsets into 1-based line numbers in one
// pass over the text, so numbering every match of a large file stays linear.
type lineCounter struct {
	text string
	off  int
	line int
}

func newLineCounter(text string) *lineCounter { return &lineCounter{text: text, line: 1} }

// at returns the line number of offset off, which must not be smaller than
// the offset of the previous call.
func (c *lineCounter) at(off int) int {
	c.line += strings.Count(c.text[c.off:off], "\n")
	c.off = off
	return c.line
}

// isSpace reports whether b is horizontal whitespace or a carriage return,
// the characters line comparisons may ignore.
func isSpace(b byte) bool { return b == ' ' || b == '\t' || b == '\r' || b == '\f' || b == '\v' }

func trimRight(s string) string {
	i := len(s)
	for i > 0 && isSpace(s[i-1]) {
		i--
	}
	return s[:i]
}

func trimLeft(s string) string {
	i := 0
	for i < len(s) && isSpace(s[i]) {
		i++
	}
	return s[i:]
}

// indentOf returns the leading whitespace of a line.
func indentOf(s string) string { return s[:len(s)-len(trimLeft(s))] }

// collapse returns s without leading and trailing whitespace and with every
// run of whitespace inside replaced by one space.
func collapse(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	space := false
	for i := 0; i < len(s); i++ {
		if isSpace(s[i]) {
			space = true
			continue
		}
		if space && b.Len() > 0 {
			b.WriteByte(' ')
		}
		space = false
		b.WriteByte(s[i])
	}
	return b.String()
}

// collapsedEqual reports whether collapse(a) == b for an a without leading
// or trailing whitespace. It does not allocate: it runs once per line of the
// file.
func collapsedEqual(a, b string) bool {
	i, j := 0, 0
	for i < len(a) {
		if isSpace(a[i]) {
			for i < len(a) && isSpace(a[i]) {
				i++
			}
			if j >= len(b) || b[j] != ' ' {
				return false
			}
			j++
			continue
		}
		if j >= len(b) || a[i] != b[j] {
			return false
		}
		i++
		j++
	}
	return j == len(b)
}

// lineKey is what a line-matching strategy compares of a line. Trailing
// whitespace is always ignored.
type lineKey struct {
	trimLeading    bool // the indentation is ignored
	collapseInside bool // runs of whitespace after the indentation count as one space
}

// canonical returns the part of line the strategy compares. It allocates
// only for lines whose inner whitespace needs collapsing: it runs once per
// line of the file.
func (k lineKey) canonical(line string) string {
	t := trimRight(line)
	ind := indentOf(t)
	rest := t[len(ind):]
	if k.collapseInside && needsCollapse(rest) {
		rest = collapse(rest)
		if !k.trimLeading {
			return ind + rest
		}
	}
	if k.trimLeading {
		return rest
	}
	return t
}

// needsCollapse reports whether s (without leading or trailing whitespace)
// has whitespace other than single spaces.
func needsCollapse(s string) bool {
	return strings.Contains(s, "  ") || strings.ContainsAny(s, "\t\r\f\v")
}

func (k lineKey) equal(a, b string) bool { return k.canonical(a) == k.canonical(b) }

var lineSeed = maphash.MakeSeed()

// hash hashes canonical(line) for the Knuth-Morris-Pratt scan.
func (k lineKey) hash(line string) uint64 { return maphash.String(lineSeed, k.canonical(line)) }
