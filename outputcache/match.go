package outputcache

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math/bits"
	"regexp"
	"runtime"
	"strings"
	"sync"

	"github.com/quiverkit/quiver/internal/search"
)

// matcher finds matches of a grep pattern in runs of whole lines.
//
// A literal is found one of three ways, chosen from the byte frequencies of
// the output's first buffer (tune): by its rarest byte with bytes.IndexByte
// when that byte is rare (memory speed); else by a pair of its rarer bytes
// tested eight positions at a time in a machine word (findPair), which
// beats bytes.Index by far on patterns such as "return err" whose bytes are
// all common; bytes.Index for one-byte literals.
type matcher struct {
	literal []byte
	mode    int // one of the find modes below
	k1, k2  int // offsets in literal of its rarest bytes
	re      *regexp.Regexp
	overlap int
}

const (
	findIndex = iota // bytes.Index
	findRare         // bytes.IndexByte on literal[k1]
	findPair         // literal[k1] and literal[k2], a word at a time
)

func newMatcher(pattern string, regex bool) (*matcher, error) {
	switch {
	case pattern == "":
		return nil, fmt.Errorf("%w: the pattern is empty", ErrBadPattern)
	case !regex && strings.ContainsAny(pattern, "\n\r"):
		return nil, fmt.Errorf("%w: a literal pattern cannot hold a line break (lines are searched one by one)", ErrBadPattern)
	case !regex:
		return &matcher{literal: []byte(pattern), overlap: len(pattern) - 1}, nil
	}
	re, err := compileLineRegexp(pattern)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrBadPattern, err)
	}
	return &matcher{re: re, overlap: regexOverlap}, nil
}

// compileLineRegexp compiles pattern so that it means the same searched in
// a buffer of many lines as on each line alone. The search engine's pattern
// compiler makes that rewrite (^ and $ at every line, classes and "." that
// never match a line break); this is its line-safe source, compiled.
func compileLineRegexp(pattern string) (*regexp.Regexp, error) {
	m, err := search.Compile(pattern, search.PatternOptions{})
	if err != nil {
		return nil, err
	}
	return regexp.Compile(m.Source())
}

// tune chooses how to find a literal from the byte frequencies of sample.
func (m *matcher) tune(sample []byte) {
	if m.re != nil || len(m.literal) < 2 {
		return
	}
	var counts [256]int
	for _, c := range sample {
		counts[c]++
	}
	m.k1, m.k2 = 0, 1
	for i := range m.literal {
		switch c := counts[m.literal[i]]; {
		case i == m.k1 || i == m.k2:
		case c < counts[m.literal[m.k1]]:
			m.k1, m.k2 = i, m.k1
		case c < counts[m.literal[m.k2]]:
			m.k2 = i
		}
	}
	if counts[m.literal[m.k1]] > counts[m.literal[m.k2]] {
		m.k1, m.k2 = m.k2, m.k1
	}
	m.mode = findPair
	if counts[m.literal[m.k1]]*256 <= len(sample) {
		m.mode = findRare
	}
}

// find returns the first match in data, or -1, -1.
func (m *matcher) find(data []byte) (start, end int) {
	i := -1
	switch {
	case m.re != nil:
		if loc := m.re.FindIndex(data); loc != nil {
			return loc[0], loc[1]
		}
		return -1, -1
	case m.mode == findRare:
		i = m.findRare(data)
	case m.mode == findPair:
		i = m.findPair(data)
	default:
		i = bytes.Index(data, m.literal)
	}
	return i, i + len(m.literal)
}

// findRare finds the literal by its rarest byte.
func (m *matcher) findRare(data []byte) int {
	n, b := len(m.literal), m.literal[m.k1]
	for pos := m.k1; pos < len(data); {
		i := bytes.IndexByte(data[pos:], b)
		if i < 0 {
			break
		}
		start := pos + i - m.k1
		if start+n <= len(data) && bytes.Equal(data[start:start+n], m.literal) {
			return start
		}
		pos += i + 1
	}
	return -1
}

const (
	ones = 0x0101010101010101
	high = 0x8080808080808080
)

// findPair tests sixteen candidate starts per step: it loads the words at
// offsets k1 and k2 from them, XORs each with its byte repeated, and marks
// the bytes that became zero in both (the classic has-zero-byte trick; it
// may mark a false candidate above a true one, never miss one). Only marked
// starts are compared in full. The last few starts go to bytes.Index.
func (m *matcher) findPair(data []byte) int {
	n := len(m.literal)
	v1, v2 := uint64(m.literal[m.k1])*ones, uint64(m.literal[m.k2])*ones
	k1, k2 := m.k1, m.k2
	i := 0
	for ; i+n+16 <= len(data); i += 16 {
		a, b := data[i+k1:i+k1+16], data[i+k2:i+k2+16]
		x1, x2 := binary.LittleEndian.Uint64(a)^v1, binary.LittleEndian.Uint64(b)^v2
		y1, y2 := binary.LittleEndian.Uint64(a[8:])^v1, binary.LittleEndian.Uint64(b[8:])^v2
		lo := (x1 - ones) &^ x1 & (x2 - ones) &^ x2 & high
		hi := (y1 - ones) &^ y1 & (y2 - ones) &^ y2 & high
		if lo|hi == 0 {
			continue
		}
		for w, mask := range [2]uint64{lo, hi} {
			for ; mask != 0; mask &= mask - 1 {
				j := i + 8*w + bits.TrailingZeros64(mask)/8
				if bytes.Equal(data[j:j+n], m.literal) {
					return j
				}
			}
		}
	}
	if j := bytes.Index(data[i:], m.literal); j >= 0 {
		return i + j
	}
	return -1
}

// count returns the number of lines in data (whole lines, the last maybe
// without its newline) that hold a match.
func (m *matcher) count(data []byte) int64 {
	var n int64
	for pos := 0; pos < len(data); {
		s, e := m.find(data[pos:])
		if s < 0 {
			break
		}
		s, e = s+pos, e+pos
		if s == len(data) && data[s-1] == '\n' {
			break
		}
		ls := bytes.LastIndexByte(data[pos:s], '\n') + 1 + pos
		le := len(data)
		if i := bytes.IndexByte(data[s:], '\n'); i >= 0 {
			le = s + i
		}
		if e <= le || m.re.Match(data[ls:le]) {
			n++
		}
		pos = le + 1
	}
	return n
}

// countParallel is count spread over the available processors: counting
// matching lines needs no order, so once grep has all the matches it will
// show, the rest of the output is counted in parallel pieces cut at line
// ends.
func (m *matcher) countParallel(data []byte) int64 {
	workers := min(runtime.GOMAXPROCS(0), 4, len(data)/(128<<10))
	if workers < 2 {
		return m.count(data)
	}
	counts := make([]int64, workers)
	var wg sync.WaitGroup
	for w, start := 0, 0; w < workers; w++ {
		end := len(data)
		if w < workers-1 {
			end = max(start, len(data)*(w+1)/workers)
			if i := bytes.IndexByte(data[end:], '\n'); i >= 0 {
				end += i + 1
			} else {
				end = len(data)
			}
		}
		wg.Add(1)
		go func(w int, piece []byte) {
			defer wg.Done()
			counts[w] = m.count(piece)
		}(w, data[start:end])
		start = end
	}
	wg.Wait()
	var total int64
	for _, c := range counts {
		total += c
	}
	return total
}
