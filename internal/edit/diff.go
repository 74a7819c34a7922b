package edit

import (
	"fmt"
	"strings"
)

// diffContext is the number of unchanged lines shown around each change.
const diffContext = 3

// maxLCSCells bounds the table of the line-by-line comparison inside one
// changed region; a larger region is shown as all its old lines removed and
// all its new lines added, which is still a correct diff.
const maxLCSCells = 1 << 20

// Unified returns the unified diff (with diffContext lines of context) that
// turns text into Apply(text, changes), under the header names oldName and
// newName ("a/x.go", "b/x.go", or "/dev/null" for a file being created). It
// returns "" when the changes change nothing. Its cost is linear in the size
// of the changes and the length of the lines they touch, not in the size of
// text: only the lines around each change are looked at.
func Unified(oldName, newName, text string, changes []Change) string {
	blocks := diffBlocks(text, changes)
	if len(blocks) == 0 {
		return ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, "--- %s\n+++ %s\n", oldName, newName)
	delta := 0
	for len(blocks) > 0 {
		n := 1
		for n < len(blocks) && blocks[n].oldLine-blocks[n-1].oldEnd() <= 2*diffContext {
			n++
		}
		delta = writeHunk(&b, text, blocks[:n], delta)
		blocks = blocks[n:]
	}
	return b.String()
}

// block is a run of removed and added lines with no unchanged line between.
type block struct {
	oldLine int      // the first removed line, or the line the additions go before (1-based)
	oldOff  int      // the byte offset of oldLine in the text
	del     []string // removed lines, each with its "\n" if it had one
	ins     []string // added lines
}

func (bl block) oldEnd() int { return bl.oldLine + len(bl.del) }

func (bl block) endOff() int {
	n := bl.oldOff
	for _, l := range bl.del {
		n += len(l)
	}
	return n
}

// writeHunk writes one hunk holding blocks and their context, and returns the
// difference in line counts after it.
func writeHunk(b *strings.Builder, text string, blocks []block, delta int) int {
	first, last := blocks[0], blocks[len(blocks)-1]
	before := linesBefore(text, first.oldOff, diffContext)
	after := linesAfter(text, last.endOff(), diffContext)
	var body strings.Builder
	oldCount, newCount := 0, 0
	context := func(lines []string) {
		for _, l := range lines {
			writeLine(&body, ' ', l)
		}
		oldCount += len(lines)
		newCount += len(lines)
	}
	context(before)
	for i, bl := range blocks {
		if i > 0 {
			context(splitKeep(text[blocks[i-1].endOff():bl.oldOff]))
		}
		for _, l := range bl.del {
			writeLine(&body, '-', l)
		}
		for _, l := range bl.ins {
			writeLine(&body, '+', l)
		}
		oldCount += len(bl.del)
		newCount += len(bl.ins)
	}
	context(after)
	oldStart := first.oldLine - len(before)
	newStart := oldStart + delta
	fmt.Fprintf(b, "@@ -%s +%s @@\n", hunkRange(oldStart, oldCount), hunkRange(newStart, newCount))
	b.WriteString(body.String())
	return delta + newCount - oldCount
}

// hunkRange writes a hunk header's range the way diff and git do: an empty
// range names the line before it, and a count of one is left out.
func hunkRange(start, count int) string {
	switch count {
	case 0:
		return fmt.Sprintf("%d,0", start-1)
	case 1:
		return fmt.Sprintf("%d", start)
	}
	return fmt.Sprintf("%d,%d", start, count)
}

func writeLine(b *strings.Builder, mark byte, line string) {
	b.WriteByte(mark)
	b.WriteString(line)
	if !strings.HasSuffix(line, "\n") {
		b.WriteString("\n\\ No newline at end of file\n")
	}
}

// splitKeep splits s into lines that keep their "\n".
func splitKeep(s string) []string {
	var out []string
	for s != "" {
		i := strings.IndexByte(s, '\n')
		if i < 0 {
			return append(out, s)
		}
		out = append(out, s[:i+1])
		s = s[i+1:]
	}
	return out
}

// linesBefore returns up to k whole lines ending at offset at (a line start).
func linesBefore(text string, at, k int) []string {
	s := at
	for n := 0; n < k && s > 0; n++ {
		s = strings.LastIndexByte(text[:s-1], '\n') + 1
	}
	return splitKeep(text[s:at])
}

// linesAfter returns up to k whole lines starting at offset at (a line start).
func linesAfter(text string, at, k int) []string {
	e := at
	for n := 0; n < k && e < len(text); n++ {
		if i := strings.IndexByte(text[e:], '\n'); i >= 0 {
			e += i + 1
		} else {
			e = len(text)
		}
	}
	return splitKeep(text[at:e])
}

// diffBlocks widens every change to whole lines, merges changes that share a
// line, and compares each region's old and new lines.
func diffBlocks(text string, changes []Change) []block {
	var blocks []block
	lc := newLineCounter(text)
	for i := 0; i < len(changes); {
		start := lineStart(text, changes[i].Off)
		var b strings.Builder
		b.WriteString(text[start:changes[i].Off])
		cursor, end := changes[i].Off, 0
		// A change joins the region when its line starts before the region
		// ends: an insertion at the very end of a last line without "\n"
		// is on that line too.
		for first := true; i < len(changes) && (first || lineStart(text, changes[i].Off) < end); i, first = i+1, false {
			c := changes[i]
			b.WriteString(text[cursor:c.Off])
			b.WriteString(c.New)
			cursor = c.Off + c.Len
			end = max(end, lineEndAfter(text, cursor))
		}
		b.WriteString(text[cursor:end])
		for _, bl := range compareLines(text[start:end], b.String(), lc.at(start), start) {
			// Blocks of neighbouring regions that touch read better as one:
			// all removed lines, then all added ones, as diff and git show them.
			if n := len(blocks); n > 0 && blocks[n-1].oldEnd() == bl.oldLine {
				blocks[n-1].del = append(blocks[n-1].del, bl.del...)
				blocks[n-1].ins = append(blocks[n-1].ins, bl.ins...)
				continue
			}
			blocks = append(blocks, bl)
		}
	}
	return blocks
}

// lineStart returns the offset of the start of the line holding offset x.
func lineStart(text string, x int) int { return strings.LastIndexByte(text[:x], '\n') + 1 }

// lineEndAfter returns the offset just past the "\n" ending the line that
// holds offset x (the line starting at x, when x starts one), or the end of
// the text.
func lineEndAfter(text string, x int) int {
	if i := strings.IndexByte(text[x:], '\n'); i >= 0 {
		return x + i + 1
	}
	return len(text)
}

// compareLines diffs one region: old and new are whole lines, the old ones
// starting at line firstLine, offset firstOff.
func compareLines(old, new string, firstLine, firstOff int) []block {
	return diffLines(splitKeep(old), splitKeep(new), firstLine, firstOff)
}

// diffLines diffs the lines a and b, a starting at line firstLine, offset
// firstOff: equal first and last lines are set aside, and what is left is
// compared by a longest common subsequence.
func diffLines(a, b []string, firstLine, firstOff int) []block {
	pre := 0
	for pre < len(a) && pre < len(b) && a[pre] == b[pre] {
		pre++
	}
	suf := 0
	for suf < len(a)-pre && suf < len(b)-pre && a[len(a)-1-suf] == b[len(b)-1-suf] {
		suf++
	}
	off := firstOff
	for _, l := range a[:pre] {
		off += len(l)
	}
	return lcsBlocks(a[pre:len(a)-suf], b[pre:len(b)-suf], firstLine+pre, off)
}

// lcsBlocks turns a longest common subsequence of a and b into blocks.
func lcsBlocks(a, b []string, line, off int) []block {
	if len(a) == 0 && len(b) == 0 {
		return nil
	}
	if len(a)*len(b) > maxLCSCells || len(a) == 0 || len(b) == 0 {
		return []block{{oldLine: line, oldOff: off, del: a, ins: b}}
	}
	// dp[i*(m+1)+j] is the length of an LCS of a[i:] and b[j:].
	n, m := len(a), len(b)
	dp := make([]int32, (n+1)*(m+1))
	for i := n - 1; i >= 0; i-- {
		for j := m - 1; j >= 0; j-- {
			if a[i] == b[j] {
				dp[i*(m+1)+j] = dp[(i+1)*(m+1)+j+1] + 1
			} else {
				dp[i*(m+1)+j] = max(dp[(i+1)*(m+1)+j], dp[i*(m+1)+j+1])
			}
		}
	}
	var blocks []block
	var cur *block
	i, j := 0, 0
	for i < n || j < m {
		if i < n && j < m && a[i] == b[j] {
			cur = nil
			off += len(a[i])
			i, j = i+1, j+1
			continue
		}
		if cur == nil {
			blocks = append(blocks, block{oldLine: line + i, oldOff: off})
			cur = &blocks[len(blocks)-1]
		}
		if j >= m || i < n && dp[(i+1)*(m+1)+j] >= dp[i*(m+1)+j+1] {
			cur.del = append(cur.del, a[i])
			off += len(a[i])
			i++
		} else {
			cur.ins = append(cur.ins, b[j])
			j++
		}
	}
	return blocks
}

// hunk is a run of lines a[a0:a1] that a diff replaces by b[b0:b1].
type hunk struct{ a0, a1, b0, b1 int }

// lineHunks diffs the lines a and b (compared whole, as given) and returns
// where they differ, in order. The lines between hunks are equal.
func lineHunks(a, b []string) []hunk {
	var hs []hunk
	ia, ib := 0, 0
	for _, bl := range diffLines(a, b, 0, 0) {
		ib += bl.oldLine - ia
		h := hunk{a0: bl.oldLine, a1: bl.oldLine + len(bl.del), b0: ib, b1: ib + len(bl.ins)}
		hs = append(hs, h)
		ia, ib = h.a1, h.b1
	}
	return hs
}
