package edit

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

const (
	maxQuotedLines   = 30  // lines of the closest region quoted in an error
	maxQuotedWidth   = 200 // bytes of each quoted line
	maxFuzzyScanLine = 100_000
)

// notFound builds the error for an old_string no strategy placed, with the
// region of the file most like it.
func (m *matcher) notFound() *NotFoundError {
	e := &NotFoundError{Tried: m.tried(), Block: m.blockMiss}
	n := len(m.oldLines)
	first := -1
	if m.blockMiss != nil {
		first, n = m.blockMiss.First-1, m.blockMiss.Last-m.blockMiss.First+1
	} else {
		first = m.closestStart()
	}
	if first < 0 {
		return e
	}
	lx := m.lines()
	last := min(first+n, lx.n(), first+maxQuotedLines) - 1
	r := &Region{First: first + 1, Last: last + 1}
	for k := first; k <= last; k++ {
		r.Lines = append(r.Lines, clip(lx.line(k)))
	}
	e.Closest = r
	return e
}

// closestStart returns the line (0-based) where the window of old_string's
// length holds the most lines equal to its lines (ignoring whitespace), or, if
// no line is equal, where the line most like old_string's longest line is;
// -1 when nothing is alike. Lines without a letter or digit ("}", "") do not
// vote: they are everywhere.
func (m *matcher) closestStart() int {
	want := map[string][]int{}
	for k, o := range m.oldLines {
		if c := collapse(o); distinctive(c) {
			want[c] = append(want[c], k)
		}
	}
	lx := m.lines()
	votes := map[int]int{}
	best, bestVotes := -1, 0
	for i := 0; i < lx.n(); i++ {
		ks, ok := want[collapse(lx.line(i))]
		if !ok {
			continue
		}
		for _, k := range ks {
			start := max(0, i-k)
			votes[start]++
			if v := votes[start]; v > bestVotes || v == bestVotes && start < best {
				best, bestVotes = start, v
			}
		}
	}
	if best >= 0 {
		return best
	}
	return m.mostSimilarLine()
}

// mostSimilarLine returns the line most like old_string's longest line, when
// it is at least half alike; it gives up (-1) on files too long to compare
// line by line.
func (m *matcher) mostSimilarLine() int {
	lx := m.lines()
	if lx.n() > maxFuzzyScanLine {
		return -1
	}
	probe, at := "", 0
	for k, o := range m.oldLines {
		if c := collapse(o); len(c) > len(probe) {
			probe, at = c, k
		}
	}
	if probe == "" {
		return -1
	}
	best, bestScore := -1, 0.5
	for i := 0; i < lx.n(); i++ {
		c := collapse(lx.line(i))
		if similarityBound(probe, c) < bestScore {
			continue
		}
		if s := m.score.similarity(probe, c); s > bestScore {
			best, bestScore = i, s
		}
	}
	if best < 0 {
		return -1
	}
	return max(0, best-at)
}

func distinctive(s string) bool {
	return strings.IndexFunc(s, func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }) >= 0
}

// clip shortens a quoted line to maxQuotedWidth bytes, on a rune boundary.
func clip(s string) string {
	if len(s) <= maxQuotedWidth {
		return s
	}
	cut := maxQuotedWidth
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + " [...]"
}
