package patch

import (
	"bytes"
	"unicode"
	"unicode/utf8"
)

// level is how loosely a line of the patch may match a line of the file.
// Levels are tried in order over the whole search range; the first level
// that finds the lines wins, so an exact match further down beats a loose
// one nearby.
type level int

const (
	levelExact     level = iota
	levelTrimRight       // ignoring whitespace at the end of lines
	levelTrim            // ignoring whitespace at both ends
	levelFold            // and Unicode dashes, quotes and spaces folded to ASCII
	levelPrefix          // @@ headers only: the file's line starts with the header
	numLevels
)

var levelNames = [...]string{"exact", "trailing whitespace ignored", "surrounding whitespace ignored", "Unicode punctuation folded", "header prefix"}

func (l level) String() string { return levelNames[l] }

// lineEqual reports whether a file line matches a pattern line at lv.
func lineEqual(line, pat []byte, lv level) bool {
	switch lv {
	case levelExact:
		return bytes.Equal(line, pat)
	case levelTrimRight:
		return bytes.Equal(bytes.TrimRight(line, " \t\r\v\f"), bytes.TrimRight(pat, " \t\r\v\f"))
	case levelTrim:
		return bytes.Equal(bytes.TrimSpace(line), bytes.TrimSpace(pat))
	case levelFold:
		return foldEqual(bytes.TrimSpace(line), bytes.TrimSpace(pat), false)
	case levelPrefix:
		p := bytes.TrimSpace(pat)
		return len(p) > 0 && foldEqual(bytes.TrimSpace(line), p, true)
	}
	return false
}

// foldEqual compares a and b rune by rune with [fold] applied, without
// allocating. With prefix, b need only be a prefix of a that does not end
// inside a word ("def f" is a prefix of "def f(x):", not of "def foo():").
func foldEqual(a, b []byte, prefix bool) bool {
	var last rune
	for len(a) > 0 && len(b) > 0 {
		ra, na := utf8.DecodeRune(a)
		rb, nb := utf8.DecodeRune(b)
		if fold(ra) != fold(rb) {
			return false
		}
		a, b, last = a[na:], b[nb:], rb
	}
	if len(b) > 0 {
		return false
	}
	if len(a) == 0 {
		return true
	}
	next, _ := utf8.DecodeRune(a)
	return prefix && !(isWord(last) && isWord(next))
}

func isWord(r rune) bool {
	return r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r)
}

// fold maps the typographic characters models and editors swap for ASCII
// ones (dashes, curly quotes, unusual spaces) to their ASCII form.
func fold(r rune) rune {
	switch r {
	case '\u2010', '\u2011', '\u2012', '\u2013', '\u2014', '\u2015', '\u2212', '\uFE58', '\uFE63', '\uFF0D':
		return '-'
	case '\u2018', '\u2019', '\u201A', '\u201B', '\uFF07':
		return '\''
	case '\u201C', '\u201D', '\u201E', '\u201F', '\uFF02':
		return '"'
	case '\u00A0', '\u1680', '\u2000', '\u2001', '\u2002', '\u2003', '\u2004', '\u2005', '\u2006',
		'\u2007', '\u2008', '\u2009', '\u200A', '\u202F', '\u205F', '\u3000':
		return ' '
	}
	return r
}

// matchAt reports whether pattern matches the lines starting at p at lv, and
// where the match ends.
func (t *text) matchAt(p pos, pattern [][]byte, lv level) (pos, bool) {
	for _, pat := range pattern {
		line, next, ok := t.lineAt(p)
		t.compares++
		if !ok || !lineEqual(line, pat, lv) {
			return p, false
		}
		p = next
	}
	return p, true
}

// seekLevel finds the first match of pattern at lv starting at or after from.
func (t *text) seekLevel(pattern [][]byte, from pos, lv level) (start, end pos, ok bool) {
	for p := from; ; {
		if end, ok := t.matchAt(p, pattern, lv); ok {
			return p, end, true
		}
		_, next, more := t.lineAt(p)
		if !more {
			return pos{}, pos{}, false
		}
		p = next
	}
}

// seek finds pattern at or after from, trying each level from exact to
// folded in turn. With eof, a match that ends the file is tried first.
func (t *text) seek(pattern [][]byte, from pos, eof bool) (start, end pos, lv level, ok bool) {
	if len(pattern) == 0 {
		return from, from, levelExact, true
	}
	if eof {
		if p, ok := t.tail(len(pattern)); ok && p.off >= from.off {
			for lv := levelExact; lv <= levelFold; lv++ {
				if end, ok := t.matchAt(p, pattern, lv); ok {
					return p, end, lv, true
				}
			}
		}
	}
	for lv := levelExact; lv <= levelFold; lv++ {
		if start, end, ok := t.seekLevel(pattern, from, lv); ok {
			return start, end, lv, true
		}
	}
	return pos{}, pos{}, 0, false
}

// seekHeader finds an @@ header line at or after from: like [text.seek],
// then as a prefix of a line.
func (t *text) seekHeader(header []byte, from pos) (pos, bool) {
	pattern := [][]byte{header}
	for lv := levelExact; lv < numLevels; lv++ {
		if start, _, ok := t.seekLevel(pattern, from, lv); ok {
			return start, true
		}
	}
	return pos{}, false
}
