package edit

import "strings"

// maxBlockCandidates bounds the scored candidates of one block-anchor search,
// so that anchors found on every few lines cannot make an edit of a large
// file quadratic; a search that reaches it finds nothing.
const maxBlockCandidates = 5_000

// blockAnchor finds blocks whose first and last lines equal old_string's
// (compared as indentation-flexible does) with about as many lines between,
// and scores the lines between by similarity. Blocks that reach MinBlockScore
// are hits, re-indented; the best one that does not is kept for the
// not-found error.
func (m *matcher) blockAnchor() []hit {
	n := len(m.oldLines)
	if n < 3 {
		return nil
	}
	first, last := collapse(m.oldLines[0]), collapse(m.oldLines[n-1])
	// Anchors must say something: a block from "}" to "}" would anchor on
	// every function of a file.
	if first == "" || last == "" || !distinctive(first) && !distinctive(last) {
		return nil
	}
	middle := collapsedJoin(m.oldLines[1 : n-1])
	slack := max(2, (n-1)/4)
	lx := m.lines()
	var hits []hit
	scored := 0
	for i := 0; i+2 < lx.n() && scored < maxBlockCandidates; i++ {
		if !collapsedEqual(trimLeft(trimRight(lx.line(i))), first) {
			continue
		}
		bestJ, bestScore := -1, -1.0
		for j := i + max(2, n-1-slack); j <= i+n-1+slack && j < lx.n() && scored < maxBlockCandidates; j++ {
			if !collapsedEqual(trimLeft(trimRight(lx.line(j))), last) {
				continue
			}
			scored++
			got := m.blockMiddle(i, j)
			if similarityBound(middle, got) < MinBlockScore && bestScore >= 0 {
				continue
			}
			if s := m.score.similarity(middle, got); s > bestScore {
				bestJ, bestScore = j, s
			}
		}
		if bestJ < 0 {
			continue
		}
		if bestScore < MinBlockScore {
			if m.blockMiss == nil || bestScore > m.blockMiss.Score {
				m.blockMiss = &BlockMiss{First: i + 1, Last: bestJ + 1, Score: bestScore}
			}
			continue
		}
		file := make([]string, bestJ-i+1)
		for k := range file {
			file[k] = lx.line(i + k)
		}
		hits = append(hits, m.lineHit(i, bestJ, m.rewrite(file, m.blockAlign(file))))
		i = bestJ
	}
	if scored >= maxBlockCandidates {
		// The search stopped early: what it found is not all there is, and
		// a count or a "best" from part of the file would mislead.
		m.blockMiss = nil
		return nil
	}
	return hits
}

// blockMiddle returns the file's lines strictly between i and j, collapsed.
func (m *matcher) blockMiddle(i, j int) string {
	lines := make([]string, 0, j-i-1)
	for k := i + 1; k < j; k++ {
		lines = append(lines, m.lx.line(k))
	}
	return collapsedJoin(lines)
}

func collapsedJoin(lines []string) string {
	var b strings.Builder
	for i, l := range lines {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(collapse(l))
	}
	return b.String()
}

// blockAlign pairs old_string's lines with the lines of a block it matched:
// in order when they are as many; otherwise lines equal but for whitespace
// pair up, and between them the lines most alike (alignGap). Other old lines
// pair with none (-1).
func (m *matcher) blockAlign(file []string) []int {
	if len(file) == len(m.oldLines) {
		return identity(len(file))
	}
	a := make([]string, len(m.oldLines))
	for k, l := range m.oldLines {
		a[k] = collapse(l)
	}
	b := make([]string, len(file))
	for k, l := range file {
		b[k] = collapse(l)
	}
	fileOf := make([]int, len(a))
	ia, ib := 0, 0
	for _, h := range lineHunks(a, b) {
		for ; ia < h.a0; ia, ib = ia+1, ib+1 {
			fileOf[ia] = ib
		}
		for k, j := range m.alignGap(a[h.a0:h.a1], b[h.b0:h.b1]) {
			fileOf[h.a0+k] = -1
			if j >= 0 {
				fileOf[h.a0+k] = h.b0 + j
			}
		}
		ia, ib = h.a1, h.b1
	}
	for ; ia < len(a); ia, ib = ia+1, ib+1 {
		fileOf[ia] = ib
	}
	return fileOf
}

// Bounds of alignGap: lines less alike than minLineScore are not paired, and
// a gap of more than maxGapCells line pairs is left unpaired.
const (
	minLineScore = 0.5
	maxGapCells  = 4096
)

// alignGap pairs old lines a with file lines b, in order, so that the pairs
// are as alike as can be: the drifted lines of a block-anchor match. It
// returns the line of b paired with each line of a, or -1.
func (m *matcher) alignGap(a, b []string) []int {
	pair := make([]int, len(a))
	for i := range pair {
		pair[i] = -1
	}
	if len(a)*len(b) > maxGapCells {
		return pair
	}
	// best[i*(n+1)+j] is the best total score of pairs within a[i:], b[j:].
	n := len(b)
	best := make([]float64, (len(a)+1)*(n+1))
	score := make([]float64, len(a)*n)
	for i := len(a) - 1; i >= 0; i-- {
		for j := n - 1; j >= 0; j-- {
			s := m.score.similarity(a[i], b[j])
			if s < minLineScore {
				s = 0
			}
			score[i*n+j] = s
			v := max(best[(i+1)*(n+1)+j], best[i*(n+1)+j+1])
			if s > 0 {
				v = max(v, best[(i+1)*(n+1)+j+1]+s)
			}
			best[i*(n+1)+j] = v
		}
	}
	for i, j := 0, 0; i < len(a) && j < n; {
		switch s := score[i*n+j]; {
		case s > 0 && best[i*(n+1)+j] == best[(i+1)*(n+1)+j+1]+s:
			pair[i] = j
			i, j = i+1, j+1
		case best[i*(n+1)+j] == best[(i+1)*(n+1)+j]:
			i++
		default:
			j++
		}
	}
	return pair
}
