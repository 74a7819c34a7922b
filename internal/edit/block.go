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
		hits = append(hits, m.lineHit(i, bestJ, reindent(m.new, m.blockPairs(i, bestJ), m.fileUnit)))
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

// blockPairs pairs the anchors with their file lines, and every line when the
// block has as many lines as old_string.
func (m *matcher) blockPairs(i, j int) []indentPair {
	n := len(m.oldLines)
	if j-i == n-1 {
		pairs := make([]indentPair, n)
		for k := range pairs {
			pairs[k] = indentPair{model: m.oldLines[k], file: m.lx.line(i + k)}
		}
		return pairs
	}
	return []indentPair{
		{model: m.oldLines[0], file: m.lx.line(i)},
		{model: m.oldLines[n-1], file: m.lx.line(j)},
	}
}
