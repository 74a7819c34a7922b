package search

import (
	"bytes"
	"strings"
)

// commonBytes lists bytes from most to least frequent in source code and
// prose: an estimate, not a measurement of any one corpus. A literal is
// located by its least frequent byte, so that the memory-speed
// bytes.IndexByte stops as rarely as possible on a byte that then fails to
// start a match. Bytes not listed (control bytes, non-ASCII) are rarer than
// all listed ones.
const commonBytes = " etaoinsrlcdhupm\t.(),_fgb\"y=/w:;v{}x01k-*ST>ERC<AINPMDL2F'OB[]&+!#|$3456789%?@\\^`~GHUWVKYjqzJXQZ"

// byteRank is a byte's estimated frequency: higher is more common.
var byteRank = func() (r [256]uint8) {
	for i := 0; i < len(commonBytes); i++ {
		r[commonBytes[i]] = uint8(255 - i)
	}
	// Unlisted printable ASCII (none today) and bytes >= 0x80 share a low
	// rank above control bytes.
	for b := 0x80; b < 0x100; b++ {
		r[b] = 60
	}
	return r
}()

// foldRank is the rank of a byte when either case of it may match.
func foldRank(b byte) int {
	lo, up := toLower(b), toUpper(b)
	if lo == up {
		return int(byteRank[b])
	}
	// Both cases are searched: together they are about as frequent as the
	// more frequent of the two, plus a bit.
	return max(int(byteRank[lo]), int(byteRank[up])) + 8
}

func toLower(b byte) byte {
	if 'A' <= b && b <= 'Z' {
		return b + 'a' - 'A'
	}
	return b
}

func toUpper(b byte) byte {
	if 'a' <= b && b <= 'z' {
		return b - ('a' - 'A')
	}
	return b
}

// finder locates a literal in a buffer. A finder carries the state of one
// scan over one buffer (the next position of each case of a folded byte),
// so it belongs to one worker; reset it for every new buffer.
type finder struct {
	lit  []byte // lowercased when fold
	fold bool

	rare  int  // index in lit of the byte searched with IndexByte
	rare2 int  // index of a second byte checked before the full compare
	lo    byte // the rare byte's two cases (equal unless fold and a letter)
	up    byte

	// Scan state for a folded letter: the next positions of lo and up at or
	// after the last search position, or -1 for none in the buffer.
	nextLo, nextUp int
	fails          int // candidates that did not match; many switch to bytes.Index
}

// newFinder returns a finder for lit; fold makes it match ASCII letters in
// either case (lit must then be free of bytes whose case folds reach
// non-ASCII runes, which the caller checks).
func newFinder(lit []byte, fold bool) *finder {
	f := &finder{lit: lit, fold: fold}
	if fold {
		f.lit = bytes.ToLower(lit)
	}
	rank := func(b byte) int {
		if fold {
			return foldRank(b)
		}
		return int(byteRank[b])
	}
	f.rare, f.rare2 = 0, 0
	for i := range f.lit {
		if rank(f.lit[i]) < rank(f.lit[f.rare]) {
			f.rare = i
		}
	}
	f.rare2 = -1
	for i := range f.lit {
		if i != f.rare && (f.rare2 < 0 || rank(f.lit[i]) < rank(f.lit[f.rare2])) {
			f.rare2 = i
		}
	}
	if f.rare2 < 0 {
		f.rare2 = f.rare
	}
	f.lo, f.up = f.lit[f.rare], f.lit[f.rare]
	if fold {
		f.lo, f.up = toLower(f.lit[f.rare]), toUpper(f.lit[f.rare])
	}
	return f
}

func (f *finder) reset() { f.nextLo, f.nextUp, f.fails = -2, -2, 0 }

// index returns the position of the first occurrence of the literal in
// data at or after pos, or -1.
func (f *finder) index(data []byte, pos int) int {
	n := len(f.lit)
	if !f.fold && f.fails > 64+pos/32 {
		// The rare byte is not rare here: the standard library's search
		// does better on such input.
		if i := bytes.Index(data[pos:], f.lit); i >= 0 {
			return pos + i
		}
		return -1
	}
	for {
		c := f.nextCandidate(data, pos+f.rare)
		if c < 0 {
			return -1
		}
		start := c - f.rare
		if start+n > len(data) {
			return -1
		}
		if f.matchAt(data, start) {
			return start
		}
		f.fails++
		pos = start + 1
	}
}

// nextCandidate returns the position of the next rare byte (either case) at
// or after from.
func (f *finder) nextCandidate(data []byte, from int) int {
	if from >= len(data) {
		return -1
	}
	if f.lo == f.up {
		if i := bytes.IndexByte(data[from:], f.lo); i >= 0 {
			return from + i
		}
		return -1
	}
	f.nextLo = refresh(data, from, f.nextLo, f.lo)
	f.nextUp = refresh(data, from, f.nextUp, f.up)
	switch {
	case f.nextLo < 0:
		return f.nextUp
	case f.nextUp < 0:
		return f.nextLo
	}
	return min(f.nextLo, f.nextUp)
}

// refresh returns the next position of b at or after from, reusing cached
// when it is still ahead (or -1: none left in data).
func refresh(data []byte, from, cached int, b byte) int {
	if cached == -1 || cached >= from {
		return cached
	}
	if i := bytes.IndexByte(data[from:], b); i >= 0 {
		return from + i
	}
	return -1
}

func (f *finder) matchAt(data []byte, start int) bool {
	n := len(f.lit)
	if !f.fold {
		return data[start+f.rare2] == f.lit[f.rare2] && bytes.Equal(data[start:start+n], f.lit)
	}
	return toLower(data[start+f.rare2]) == f.lit[f.rare2] && equalFoldASCII(data[start:start+n], f.lit)
}

// equalFoldASCII reports whether s equals lower (already lowercase) with
// ASCII letters compared without case.
func equalFoldASCII(s, lower []byte) bool {
	for i, c := range s {
		if toLower(c) != lower[i] {
			return false
		}
	}
	return true
}

// foldSafe reports whether a case-insensitive match of b can only be an
// ASCII byte: true for every ASCII byte but k and s, whose Unicode case
// folds include the Kelvin sign (U+212A) and the long s (U+017F).
func foldSafe(b byte) bool {
	return b < 0x80 && !strings.ContainsRune("kKsS", rune(b))
}
