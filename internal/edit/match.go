package edit

import "strings"

// Strategy names a way of locating old_string in a file. The names are part
// of the edit tool's output.
type Strategy string

// The strategies, in the order [Find] tries them. See the package
// documentation for what each accepts.
const (
	Exact                Strategy = "exact"
	LineTrimmed          Strategy = "line-trimmed"
	WhitespaceNormalized Strategy = "whitespace-normalized"
	IndentationFlexible  Strategy = "indentation-flexible"
	EscapeNormalized     Strategy = "escape-normalized"
	BlockAnchor          Strategy = "block-anchor"
)

// Strategies lists every strategy in the order they are tried.
var Strategies = []Strategy{Exact, LineTrimmed, WhitespaceNormalized, IndentationFlexible, EscapeNormalized, BlockAnchor}

// MinBlockScore is the similarity (0..1) the lines between a block-anchor
// match's first and last lines must reach. Below it the block is reported as
// the closest region, not edited.
const MinBlockScore = 0.75

// Edit is one replacement asked for by a model.
type Edit struct {
	Old, New string
	// ReplaceAll replaces every match instead of requiring exactly one.
	ReplaceAll bool
	// ExpectedReplacements, when positive, is how many matches there must be;
	// all of them are replaced.
	ExpectedReplacements int
}

// Change replaces Len bytes at Off with New.
type Change struct {
	Off, Len int
	New      string
}

// Match is where an edit applies.
type Match struct {
	Strategy Strategy
	Changes  []Change // sorted by Off, not overlapping
	Lines    []int    // the first line (1-based) of each change
}

// Find locates e.Old in text, trying the strategies in order, and returns the
// changes that make the edit. Errors: [ErrEmptyOld], [ErrNoChange],
// [*UnchangedError], [*AmbiguousError], [*CountError], [*NotFoundError].
func Find(text string, e Edit) (Match, error) {
	switch {
	case e.Old == "":
		return Match{}, ErrEmptyOld
	case e.Old == e.New:
		return Match{}, ErrNoChange
	}
	m := newMatcher(text, e.Old, e.New)
	for _, s := range m.strategies() {
		hits := s.find(m)
		if len(hits) == 0 {
			continue
		}
		if unchanged(text, hits) {
			return Match{}, &UnchangedError{Strategy: s.name}
		}
		return choose(s.name, hits, e)
	}
	return Match{}, m.notFound()
}

// choose turns a strategy's hits into a Match, or the error that the number
// of hits calls for.
func choose(s Strategy, hits []hit, e Edit) (Match, error) {
	lines := make([]int, len(hits))
	for i, h := range hits {
		lines[i] = h.line
	}
	switch {
	case e.ExpectedReplacements > 0 && len(hits) != e.ExpectedReplacements:
		return Match{}, &CountError{Strategy: s, Want: e.ExpectedReplacements, Lines: lines}
	case len(hits) > 1 && !e.ReplaceAll && e.ExpectedReplacements == 0:
		return Match{}, &AmbiguousError{Strategy: s, Lines: lines}
	}
	m := Match{Strategy: s, Lines: lines, Changes: make([]Change, len(hits))}
	for i, h := range hits {
		m.Changes[i] = Change{Off: h.off, Len: h.end - h.off, New: h.new}
	}
	return m, nil
}

// hit is one place a strategy found, with the text that replaces it there
// (re-indented strategies write each place differently).
type hit struct {
	off, end int
	new      string
	line     int
}

type strategy struct {
	name Strategy
	find func(*matcher) []hit
}

// matcher holds one search: the text, the model's strings, and what is
// computed from them at most once (the line index, the file's indent unit).
type matcher struct {
	text     string
	old, new string

	oldLines   []string // old without one trailing "\n", split into lines
	trailingNL bool     // old ended with "\n"

	lx   *lineIndex
	unit *string
	diff *lineDiff

	blockMiss *BlockMiss
	score     *scorer
}

func newMatcher(text, old, new string) *matcher {
	m := &matcher{text: text, old: old, new: new, score: newScorer()}
	body, trailing := strings.CutSuffix(old, "\n")
	m.trailingNL = trailing
	m.oldLines = strings.Split(body, "\n")
	return m
}

func (m *matcher) lines() *lineIndex {
	if m.lx == nil {
		m.lx = newLineIndex(m.text)
	}
	return m.lx
}

func (m *matcher) fileUnit() string {
	if m.unit == nil {
		u := detectIndentUnit(m.lines())
		m.unit = &u
	}
	return *m.unit
}

// strategies returns the strategies worth trying: the loose ones need some
// text in old_string besides whitespace, or they would match every blank line.
func (m *matcher) strategies() []strategy {
	all := []strategy{
		{Exact, (*matcher).exact},
		{LineTrimmed, (*matcher).lineTrimmed},
		{WhitespaceNormalized, (*matcher).whitespaceNormalized},
		{IndentationFlexible, (*matcher).indentationFlexible},
		{EscapeNormalized, (*matcher).escapeNormalized},
		{BlockAnchor, (*matcher).blockAnchor},
	}
	if strings.TrimSpace(m.old) == "" {
		return all[:1]
	}
	return all
}

func (m *matcher) tried() []Strategy {
	var out []Strategy
	for _, s := range m.strategies() {
		out = append(out, s.name)
	}
	return out
}

// exact finds old_string byte for byte, without overlaps, left to right.
func (m *matcher) exact() []hit { return findAll(m.text, m.old, m.new) }

func findAll(text, old, new string) []hit {
	var hits []hit
	lc := newLineCounter(text)
	for off := 0; ; {
		i := strings.Index(text[off:], old)
		if i < 0 {
			return hits
		}
		start := off + i
		hits = append(hits, hit{off: start, end: start + len(old), new: new, line: lc.at(start)})
		off = start + len(old)
	}
}

// lineTrimmed compares whole lines without their trailing whitespace.
func (m *matcher) lineTrimmed() []hit {
	return m.findLines(lineKey{})
}

// whitespaceNormalized compares whole lines with equal indentation and runs
// of whitespace counted as one space. A one-line old_string may match inside
// a line.
func (m *matcher) whitespaceNormalized() []hit {
	if len(m.oldLines) == 1 {
		return m.inlineNormalized()
	}
	return m.findLines(lineKey{collapseInside: true})
}

// inlineNormalized finds a one-line old_string anywhere in a line, with runs
// of spaces and tabs matching any run. The whitespace trimmed from old_string's
// ends is trimmed from new_string's too, so the file's own indentation stays.
func (m *matcher) inlineNormalized() []hit {
	fields := strings.Fields(m.oldLines[0])
	if len(fields) == 0 {
		return nil
	}
	old := m.oldLines[0]
	new := strings.TrimPrefix(m.new, indentOf(old))
	if tail := old[len(trimRight(old)):]; tail != "" && !m.trailingNL {
		new = strings.TrimSuffix(new, tail)
	}
	var hits []hit
	lc := newLineCounter(m.text)
	for off := 0; off < len(m.text); {
		i := strings.Index(m.text[off:], fields[0])
		if i < 0 {
			break
		}
		start := off + i
		fieldsEnd, ok := matchFields(m.text, start+len(fields[0]), fields[1:])
		end := fieldsEnd
		if ok && m.trailingNL {
			if end < len(m.text) && m.text[end] == '\n' {
				end++
			} else {
				ok = end == len(m.text)
			}
		}
		if !ok {
			off = start + 1
			continue
		}
		hits = append(hits, hit{off: start, end: end, new: m.inlineNew(start, fieldsEnd, new), line: lc.at(start)})
		off = end
	}
	return hits
}

// matchFields matches fields at pos, each after a run of spaces or tabs, and
// returns the end of the last. A field never starts with a space or a tab,
// so taking the whole run is never wrong.
func matchFields(text string, pos int, fields []string) (int, bool) {
	for _, f := range fields {
		ws := pos
		for pos < len(text) && (text[pos] == ' ' || text[pos] == '\t') {
			pos++
		}
		if pos == ws || !strings.HasPrefix(text[pos:], f) {
			return 0, false
		}
		pos += len(f)
	}
	return pos, true
}

// inlineNew returns the replacement for a one-line match text[off:end];
// trimmed is new_string without old_string's indentation and trailing
// whitespace. When the match starts a line's text, the replacement is built
// as for a whole line (rewrite), its first line after the file's own
// indentation. Inside a line, the lines of new_string that keep old_string
// take the file's text of the match and the others are written as typed.
func (m *matcher) inlineNew(off, end int, trimmed string) string {
	matched := m.text[off:end]
	lineStart := strings.LastIndexByte(m.text[:off], '\n') + 1
	prefix := m.text[lineStart:off]
	if strings.TrimLeft(prefix, " \t") == "" {
		out := m.rewrite([]string{prefix + matched}, []int{0})
		if rest, ok := strings.CutPrefix(out, prefix); ok {
			return rest
		}
		return trimLeft(out)
	}
	same := m.lineDiff().same
	lines := strings.Split(trimmed, "\n")
	for i, l := range lines {
		if i < len(same) && same[i] == 0 {
			lines[i] = indentOf(l) + matched
		}
	}
	return strings.Join(lines, "\n")
}

// indentationFlexible compares whole lines without their indentation and
// re-indents new_string to the file's.
func (m *matcher) indentationFlexible() []hit {
	return m.findLines(lineKey{trimLeading: true, collapseInside: true})
}

// findLines finds runs of whole lines equal to old_string's lines under key,
// left to right, without overlaps; each is replaced as rewrite builds it. It runs Knuth-Morris-Pratt over the lines'
// hashes, so a file of many similar lines cannot make it quadratic, and checks
// each hash match line by line.
func (m *matcher) findLines(key lineKey) []hit {
	want := make([]uint64, len(m.oldLines))
	for i, o := range m.oldLines {
		want[i] = key.hash(o)
	}
	fail := kmpTable(want)
	lx := m.lines()
	var hits []hit
	k := 0 // lines of want matched so far
	for i := 0; i < lx.n(); i++ {
		h := key.hash(lx.line(i))
		for k > 0 && want[k] != h {
			k = fail[k-1]
		}
		if want[k] == h {
			k++
		}
		if k < len(want) {
			continue
		}
		first := i - len(want) + 1
		if !m.linesEqual(key, first) {
			k = fail[k-1]
			continue
		}
		file := make([]string, len(want))
		for j := range file {
			file[j] = lx.line(first + j)
		}
		hits = append(hits, m.lineHit(first, i, m.rewrite(file, identity(len(file)))))
		k = 0
	}
	return hits
}

// linesEqual confirms a hash match: old_string's lines equal the file's from
// line first on, under key.
func (m *matcher) linesEqual(key lineKey, first int) bool {
	for j, o := range m.oldLines {
		if !key.equal(m.lx.line(first+j), o) {
			return false
		}
	}
	return true
}

// kmpTable returns the Knuth-Morris-Pratt failure function of p: fail[i] is
// the length of the longest proper prefix of p[:i+1] that is also its suffix.
func kmpTable(p []uint64) []int {
	fail := make([]int, len(p))
	for i, k := 1, 0; i < len(p); i++ {
		for k > 0 && p[i] != p[k] {
			k = fail[k-1]
		}
		if p[i] == p[k] {
			k++
		}
		fail[i] = k
	}
	return fail
}

// lineHit is the hit covering lines first..last, with the "\n" after last
// when old_string ended with one.
func (m *matcher) lineHit(first, last int, new string) hit {
	lx := m.lines()
	end := lx.end(last)
	if m.trailingNL {
		if end < len(m.text) {
			end++
		} else {
			// The file's last line has no "\n" to replace; do not add one.
			new = strings.TrimSuffix(new, "\n")
		}
	}
	return hit{off: lx.start[first], end: end, new: new, line: first + 1}
}

// escapeNormalized unescapes old_string and new_string (a model that escaped
// quotes or newlines once too often in old_string did so in new_string too)
// and matches exactly.
func (m *matcher) escapeNormalized() []hit {
	old := unescape(m.old)
	if old == m.old || old == "" {
		return nil
	}
	return findAll(m.text, old, unescape(m.new))
}

var unescaper = strings.NewReplacer(`\\`, `\`, `\n`, "\n", `\t`, "\t", `\r`, "\r", `\"`, `"`, `\'`, `'`, "\\`", "`", `\$`, `$`)

func unescape(s string) string { return unescaper.Replace(s) }
