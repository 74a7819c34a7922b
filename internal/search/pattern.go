package search

import (
	"bytes"
	"fmt"
	"regexp"
	"regexp/syntax"
	"strings"
	"unicode/utf8"
)

// PatternOptions say how to read a pattern.
type PatternOptions struct {
	Fixed      bool // the pattern is a literal string, not a regexp
	IgnoreCase bool // letters match in either case (Unicode simple case folding)
}

// PatternError is a pattern that does not compile; Msg is the parser's
// message.
type PatternError struct {
	Pattern string
	Msg     string
}

func (e *PatternError) Error() string { return e.Msg }

// Matcher finds the lines that match one pattern. It is immutable and safe
// for concurrent use; each worker scans with its own [Matcher.scanner].
type Matcher struct {
	source string         // the line-safe regexp, in syntax every backend reads the same way
	re     *regexp.Regexp // the line-safe regexp; matches never cross a line break
	lit    []byte         // the literal every match contains, located first (nil: none)
	fold   bool           // lit matches ASCII letters in either case
	exact  bool           // every occurrence of lit is a match: no regexp runs
	others [][]byte       // further literals every matching line contains, checked before the regexp
	alts   []literal      // without lit: literals one of which every match contains (a|b)
}

// Compile builds a matcher. The pattern is Go regexp syntax (RE2: linear
// time, no backtracking blow-up) unless opts.Fixed. Matching is per line: a
// pattern that can only match a line break is refused, character classes
// and "." never match one, and ^ and $ match at the start and end of every
// line. An empty pattern is refused.
func Compile(pattern string, opts PatternOptions) (*Matcher, error) {
	if pattern == "" {
		return nil, &PatternError{Pattern: pattern, Msg: "pattern is empty"}
	}
	src := pattern
	if opts.Fixed {
		if strings.ContainsAny(pattern, "\n") {
			return nil, &PatternError{Pattern: pattern, Msg: "pattern contains a line break; searches match within one line"}
		}
		src = regexp.QuoteMeta(pattern)
	}
	flags := syntax.Perl
	if opts.IgnoreCase {
		flags |= syntax.FoldCase
	}
	tree, err := syntax.Parse(src, flags)
	if err != nil {
		return nil, &PatternError{Pattern: pattern, Msg: err.Error()}
	}
	if hasLineBreakLiteral(tree) {
		return nil, &PatternError{Pattern: pattern, Msg: `pattern contains a literal line break (\n); searches match within one line`}
	}
	lineSafe(tree)
	m := &Matcher{source: tree.String()}
	if m.re, err = regexp.Compile(m.source); err != nil {
		// The parser accepted the pattern, so its printed form must parse:
		// a failure here is a bug, reported with both forms.
		return nil, &PatternError{Pattern: pattern, Msg: fmt.Sprintf("internal error: rewritten pattern %q does not compile: %v", m.source, err)}
	}
	m.chooseLiteral(tree.Simplify())
	return m, nil
}

// Source returns the pattern as a line-safe regexp in the syntax Go's and
// Rust's regexp engines read alike: classes such as \w and \d are spelled
// out (as ASCII ranges, Go's meaning), flags are explicit. The rg backend
// searches with it so that both backends match the same lines.
func (m *Matcher) Source() string { return m.source }

// hasLineBreakLiteral reports whether a literal in re contains '\n'.
func hasLineBreakLiteral(re *syntax.Regexp) bool {
	if re.Op == syntax.OpLiteral && strings.ContainsRune(string(re.Rune), '\n') {
		return true
	}
	for _, sub := range re.Sub {
		if hasLineBreakLiteral(sub) {
			return true
		}
	}
	return false
}

// lineSafe rewrites re in place so that a match over a whole buffer never
// spans lines: classes lose '\n', "." never matches it, and text anchors
// become line anchors.
func lineSafe(re *syntax.Regexp) {
	switch re.Op {
	case syntax.OpAnyChar:
		re.Op = syntax.OpAnyCharNotNL
	case syntax.OpCharClass:
		re.Rune = removeNewline(re.Rune)
		if len(re.Rune) == 0 {
			re.Op = syntax.OpNoMatch
		}
	case syntax.OpBeginText:
		re.Op = syntax.OpBeginLine
	case syntax.OpEndText:
		re.Op = syntax.OpEndLine
	}
	for _, sub := range re.Sub {
		lineSafe(sub)
	}
}

// removeNewline returns the class ranges r (pairs lo, hi) without '\n'.
func removeNewline(r []rune) []rune {
	out := make([]rune, 0, len(r)+2)
	for i := 0; i+1 < len(r); i += 2 {
		lo, hi := r[i], r[i+1]
		if lo <= '\n' && '\n' <= hi {
			if lo < '\n' {
				out = append(out, lo, '\n'-1)
			}
			if hi > '\n' {
				out = append(out, '\n'+1, hi)
			}
			continue
		}
		out = append(out, lo, hi)
	}
	return out
}

// literal is a string every match contains.
type literal struct {
	text []byte
	fold bool
}

// required returns literals that every match of re contains.
func required(re *syntax.Regexp) []literal {
	switch re.Op {
	case syntax.OpLiteral:
		return []literal{{text: []byte(string(re.Rune)), fold: re.Flags&syntax.FoldCase != 0}}
	case syntax.OpCapture, syntax.OpPlus:
		return required(re.Sub[0])
	case syntax.OpRepeat:
		if re.Min >= 1 {
			return required(re.Sub[0])
		}
	case syntax.OpConcat:
		var out []literal
		for _, sub := range re.Sub {
			out = append(out, required(sub)...)
		}
		return out
	}
	return nil
}

// chooseLiteral picks the literal to locate first: the one whose rarest
// byte is rarest, the longer on a tie. A case-folded literal is cut to its
// longest run of bytes whose folds are all ASCII, since only those can be
// found without decoding.
func (m *Matcher) chooseLiteral(simple *syntax.Regexp) {
	var best literal
	bestScore := 0
	for _, l := range required(simple) {
		if !l.fold {
			m.others = append(m.others, l.text)
		}
		if l.fold {
			l.text = longestFoldSafeRun(l.text)
		}
		if len(l.text) == 0 {
			continue
		}
		score := literalScore(l)
		if best.text == nil || score < bestScore || score == bestScore && len(l.text) > len(best.text) {
			best, bestScore = l, score
		}
	}
	if best.text == nil {
		m.others = nil
		m.alts = alternatives(simple)
		return
	}
	m.lit, m.fold = best.text, best.fold
	if m.fold {
		m.lit = bytes.ToLower(m.lit)
	}
	m.others = slicesDeleteEqual(m.others, m.lit)
	if simple.Op == syntax.OpLiteral {
		whole := []byte(string(simple.Rune))
		m.exact = len(whole) == len(m.lit) && (!m.fold && bytes.Equal(whole, m.lit) || m.fold && isFoldSafe(whole))
	}
	if m.exact {
		m.others = nil
	}
}

// maxAlternatives bounds the literals searched side by side.
const maxAlternatives = 8

// alternatives returns, for an alternation whose every branch contains a
// literal (TODO|FIXME), the best literal of each branch; nil otherwise.
func alternatives(re *syntax.Regexp) []literal {
	for re.Op == syntax.OpCapture || re.Op == syntax.OpPlus || re.Op == syntax.OpRepeat && re.Min >= 1 {
		re = re.Sub[0]
	}
	if re.Op != syntax.OpAlternate || len(re.Sub) > maxAlternatives {
		return nil
	}
	var out []literal
	for _, branch := range re.Sub {
		var best literal
		bestScore := 0
		for _, l := range required(branch) {
			if l.fold {
				l.text = bytes.ToLower(longestFoldSafeRun(l.text))
			}
			if len(l.text) == 0 {
				continue
			}
			if score := literalScore(l); best.text == nil || score < bestScore {
				best, bestScore = l, score
			}
		}
		if best.text == nil {
			return nil // a branch with no literal: any line may match
		}
		out = append(out, best)
	}
	return out
}

// literalScore ranks a literal for locating: lower is better.
func literalScore(l literal) int {
	best := 1 << 30
	for _, b := range l.text {
		r := int(byteRank[b])
		if l.fold {
			r = foldRank(b)
		}
		best = min(best, r)
	}
	return best
}

func longestFoldSafeRun(s []byte) []byte {
	var best []byte
	start := 0
	for i := 0; i <= len(s); i++ {
		if i == len(s) || !foldSafe(s[i]) {
			if i-start > len(best) {
				best = s[start:i]
			}
			start = i + 1
		}
	}
	return best
}

func isFoldSafe(s []byte) bool {
	for _, b := range s {
		if !foldSafe(b) {
			return false
		}
	}
	return true
}

// slicesDeleteEqual removes the entries of list equal to x.
func slicesDeleteEqual(list [][]byte, x []byte) [][]byte {
	out := list[:0]
	for _, l := range list {
		if !bytes.Equal(l, x) {
			out = append(out, l)
		}
	}
	return out
}

// scanner is one worker's state for finding matching lines in a buffer.
type scanner struct {
	m      *Matcher
	f      *finder   // scans buffers
	lf     *finder   // tests single lines, with a state of its own
	alts   []*finder // m.alts, each with the next position it found
	nextAt []int
}

func (m *Matcher) scanner() *scanner {
	s := &scanner{m: m}
	if m.lit != nil {
		s.f = newFinder(m.lit, m.fold)
		s.lf = newFinder(m.lit, m.fold)
	}
	for _, l := range m.alts {
		s.alts = append(s.alts, newFinder(l.text, l.fold))
	}
	s.nextAt = make([]int, len(s.alts))
	return s
}

// reset prepares the scanner for a new buffer.
func (s *scanner) reset() {
	if s.f != nil {
		s.f.reset()
	}
	for i, f := range s.alts {
		f.reset()
		s.nextAt[i] = -2 // not searched yet
	}
}

// nextAlternative returns the first position at or after pos where one of
// the alternatives' literals occurs, or -1.
func (s *scanner) nextAlternative(data []byte, pos int) int {
	first := -1
	for i, f := range s.alts {
		if s.nextAt[i] != -1 && s.nextAt[i] < pos {
			s.nextAt[i] = f.index(data, pos)
		}
		if n := s.nextAt[i]; n >= 0 && (first < 0 || n < first) {
			first = n
		}
	}
	return first
}

// next returns the bounds [start, end) of the first matching line in
// data[pos:], pos being the start of a line; end is the index of the line's
// '\n' or len(data). start is -1 when there is none. The final line of data
// need not end with '\n'.
func (s *scanner) next(data []byte, pos int) (start, end int) {
	for pos < len(data) {
		var i int
		switch {
		case s.f != nil:
			i = s.f.index(data, pos)
		case s.alts != nil:
			i = s.nextAlternative(data, pos)
		default:
			return s.nextByRegexp(data, pos)
		}
		if i < 0 {
			return -1, -1
		}
		start, end = lineStart(data, i), lineEnd(data, i)
		if s.m.exact || s.lineMatches(data[start:end]) {
			return start, end
		}
		pos = end + 1
	}
	return -1, -1
}

// nextByRegexp runs the line-safe regexp over the rest of the buffer: one
// call finds the next match whatever the number of lines before it.
func (s *scanner) nextByRegexp(data []byte, pos int) (start, end int) {
	loc := s.m.re.FindIndex(data[pos:])
	if loc == nil {
		return -1, -1
	}
	i := pos + loc[0]
	if i == len(data) && data[len(data)-1] == '\n' {
		return -1, -1 // an empty match after the last line break is not a line
	}
	return lineStart(data, i), lineEnd(data, i)
}

// lineMatches reports whether one line (no '\n' in it) matches. The line
// may be a window of a line too long to hold whole.
func (s *scanner) lineMatches(line []byte) bool {
	m := s.m
	if m.exact {
		s.lf.reset()
		return s.lf.index(line, 0) >= 0
	}
	for _, o := range m.others {
		if !bytes.Contains(line, o) {
			return false
		}
	}
	return m.re.Match(line)
}

// clipMatch returns a matching line as results show it, cut around its
// first match when it is long.
func (s *scanner) clipMatch(line []byte) string {
	if len(line) <= MaxLineRunes {
		return ClipLineAt(line, -1)
	}
	at := -1
	if s.m.exact {
		s.lf.reset()
		at = s.lf.index(line, 0)
	} else if loc := s.m.re.FindIndex(line); loc != nil {
		at = loc[0]
	}
	return ClipLineAt(line, at)
}

func lineStart(data []byte, i int) int { return bytes.LastIndexByte(data[:i], '\n') + 1 }

func lineEnd(data []byte, i int) int {
	if j := bytes.IndexByte(data[i:], '\n'); j >= 0 {
		return i + j
	}
	return len(data)
}

// HasUpper reports whether s has an upper-case letter: the smart-case rule
// (search case-insensitively unless the query has one).
func HasUpper(s string) bool {
	for _, r := range s {
		if r < utf8.RuneSelf {
			if 'A' <= r && r <= 'Z' {
				return true
			}
			continue
		}
		if strings.ToLower(string(r)) != string(r) {
			return true
		}
	}
	return false
}
