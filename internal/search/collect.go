package search

import (
	"container/heap"
	"sort"
	"sync"
	"time"
	"unicode/utf8"
)

// Mode is what a grep reports.
type Mode int

// The grep modes.
const (
	ModeContent Mode = iota // matching lines, with context
	ModeFiles               // the files that have a match
	ModeCount               // the number of matching lines per file
)

// MaxLineRunes is how many characters of a line results show; longer lines
// are cut there and end with an ellipsis.
const MaxLineRunes = 500

// Line is one line of content output.
type Line struct {
	Num     int    // 1-based line number
	Text    string // without the line break (and a '\r' before it), clipped to MaxLineRunes characters
	Context bool   // a context line around a match, not a match
}

// FileResult is what one file contributed to a grep.
type FileResult struct {
	Path  string // relative to the workspace root
	Lines []Line // content mode: matches and their context, in line order
	Count int    // matching lines in the file (files mode: 1)
}

// matches returns how many of r's lines are matches.
func (r *FileResult) matches() int {
	n := 0
	for _, l := range r.Lines {
		if !l.Context {
			n++
		}
	}
	return n
}

// Collector gathers grep results from concurrent workers: it keeps the
// results of the first Limit matches (content mode) or files (files and
// count modes) in path order and counts everything. Memory is bounded by
// the limit, not by the number of matches, and the result does not depend
// on the order workers deliver files in.
type Collector struct {
	mode    Mode
	limit   int
	context int

	mu           sync.Mutex
	kept         fileHeap // max-heap by path
	keptUnits    int      // matches (content) or files kept
	totalMatches int
	totalFiles   int
	budget       bool // a backend's bound ended the search early
}

// NewCollector returns a collector for mode keeping up to limit matches
// (content mode, with context lines around each) or files (other modes).
func NewCollector(mode Mode, limit, context int) *Collector {
	return &Collector{mode: mode, limit: max(limit, 1), context: context}
}

// Mode returns the collector's mode.
func (c *Collector) Mode() Mode { return c.mode }

// Limit returns how many matches (content mode) or files it keeps.
func (c *Collector) Limit() int { return c.limit }

// Context returns the number of context lines around each match.
func (c *Collector) Context() int { return c.context }

// Full reports whether nothing of a file at path could be kept any more:
// the limit is reached with paths that sort before it. Such a file need
// only be counted.
func (c *Collector) Full(path string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.keptUnits >= c.limit && len(c.kept) > 0 && path > c.kept[0].Path
}

// Add records one file's result. Files without a match are ignored.
func (c *Collector) Add(r FileResult) {
	if r.Count == 0 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.totalFiles++
	if c.mode == ModeFiles {
		r.Count = 1
	}
	c.totalMatches += r.Count
	units := 1
	if c.mode == ModeContent {
		units = r.matches()
		if units == 0 {
			return
		}
	} else {
		r.Lines = nil
	}
	heap.Push(&c.kept, r)
	c.keptUnits += units
	for c.keptUnits > c.limit {
		c.trimLast(c.keptUnits - c.limit)
	}
}

// trimLast drops up to excess units from the file that sorts last.
func (c *Collector) trimLast(excess int) {
	last := &c.kept[0]
	if c.mode != ModeContent {
		heap.Pop(&c.kept)
		c.keptUnits--
		return
	}
	n := last.matches()
	if n <= excess {
		heap.Pop(&c.kept)
		c.keptUnits -= n
		return
	}
	last.Lines = cutAfterMatch(last.Lines, n-excess, c.context)
	c.keptUnits -= excess
}

// Reset forgets everything collected, for a caller that must start over
// (a CLI backend falling back to the engine midway).
func (c *Collector) Reset() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.kept, c.keptUnits, c.totalMatches, c.totalFiles, c.budget = nil, 0, 0, 0, false
}

// BudgetCut records that a backend's bound on its work (workspace.ErrBudget)
// ended the search before every file was read: the totals are then lower
// bounds.
func (c *Collector) BudgetCut() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.budget = true
}

// TrimFile cuts one file's lines after its limit-th match and that match's
// after-context, as the engine does for a file with more matches than the
// limit. Lines with no more matches than that are returned as they are.
func TrimFile(lines []Line, limit, context int) []Line {
	return cutAfterMatch(lines, limit, context)
}

// cutAfterMatch keeps lines up to the k-th match and that match's
// after-context: the context lines within context lines of it, before the
// next match.
func cutAfterMatch(lines []Line, k, context int) []Line {
	seen := 0
	for i, l := range lines {
		if l.Context {
			continue
		}
		seen++
		if seen < k {
			continue
		}
		j := i + 1
		for j < len(lines) && lines[j].Context && lines[j].Num <= l.Num+context {
			j++
		}
		return lines[:j]
	}
	return lines
}

// GrepResult is a collector's final answer.
type GrepResult struct {
	Files        []FileResult // in path order; content mode holds the kept lines
	TotalMatches int          // matching lines in all files (files mode: files)
	TotalFiles   int          // files with a match
	Truncated    bool         // the limit left matches (content) or files out
	BudgetCut    bool         // a backend's bound ended the search before every file was read
}

// Result returns the kept results in path order and the totals.
func (c *Collector) Result() GrepResult {
	c.mu.Lock()
	defer c.mu.Unlock()
	files := append([]FileResult(nil), c.kept...)
	sort.Slice(files, func(i, j int) bool { return files[i].Path < files[j].Path })
	total := c.totalMatches
	if c.mode != ModeContent {
		total = c.totalFiles
		if c.mode == ModeCount {
			total = c.totalMatches
		}
	}
	truncated := c.keptUnits < c.totalFiles
	if c.mode == ModeContent {
		truncated = c.keptUnits < c.totalMatches
	}
	return GrepResult{Files: files, TotalMatches: total, TotalFiles: c.totalFiles, Truncated: truncated, BudgetCut: c.budget}
}

// fileHeap is a max-heap of file results by path.
type fileHeap []FileResult

func (h fileHeap) Len() int           { return len(h) }
func (h fileHeap) Less(i, j int) bool { return h[i].Path > h[j].Path }
func (h fileHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *fileHeap) Push(x any)        { *h = append(*h, x.(FileResult)) }
func (h *fileHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	old[len(old)-1] = FileResult{}
	*h = old[:len(old)-1]
	return x
}

// ClipLine returns the text of a line as results show it: without a final
// '\r', and cut to MaxLineRunes characters with an ellipsis when longer.
// Bytes that are not UTF-8 count as one character each and are kept as
// they are.
func ClipLine(b []byte) string { return ClipLineAt(b, -1) }

// clipLead is how many characters before a match a clipped line keeps.
const clipLead = 100

// ClipLineAt is ClipLine for a matching line whose first match starts at
// byte at (-1: unknown): a long line is cut around the match, not at its
// start, so the match is shown, with an ellipsis on each side that was cut.
func ClipLineAt(b []byte, at int) string {
	if n := len(b); n > 0 && b[n-1] == '\r' {
		b = b[:n-1]
	}
	if len(b) <= MaxLineRunes {
		return string(b)
	}
	starts := runeStarts(b) // byte offset of every character, then len(b)
	total := len(starts) - 1
	if total <= MaxLineRunes {
		return string(b)
	}
	first := 0
	if at > 0 {
		i := sort.SearchInts(starts, at) // the character holding byte at
		if i > MaxLineRunes-clipLead {
			first = min(i-clipLead, total-MaxLineRunes)
		}
	}
	last := first + MaxLineRunes
	text := string(b[starts[first]:starts[last]])
	if first > 0 {
		text = "…" + text
	}
	if last < total {
		text += "…"
	}
	return text
}

// runeStarts returns the byte offset of each character of b, and len(b).
func runeStarts(b []byte) []int {
	out := make([]int, 0, len(b)+1)
	for i := 0; i < len(b); {
		out = append(out, i)
		if b[i] < utf8.RuneSelf {
			i++
			continue
		}
		_, size := utf8.DecodeRune(b[i:])
		i += size
	}
	return append(out, len(b))
}

// FileTime is one glob result.
type FileTime struct {
	Path    string
	ModTime time.Time
}

// GlobCollector keeps the newest Limit files and counts all. It is safe for
// concurrent use.
type GlobCollector struct {
	limit int
	mu    sync.Mutex
	kept  timeHeap // min-heap: the oldest kept file on top
	total int
}

// NewGlobCollector returns a collector keeping the newest limit files.
func NewGlobCollector(limit int) *GlobCollector {
	return &GlobCollector{limit: max(limit, 1)}
}

// Add records one file.
func (g *GlobCollector) Add(f FileTime) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.total++
	if len(g.kept) < g.limit {
		heap.Push(&g.kept, f)
		return
	}
	if newer(f, g.kept[0]) {
		g.kept[0] = f
		heap.Fix(&g.kept, 0)
	}
}

// GlobResult is a glob collector's final answer.
type GlobResult struct {
	Files     []FileTime // newest first; equal times in path order
	Total     int        // files that matched
	Truncated bool
}

// Result returns the kept files, newest first.
func (g *GlobCollector) Result() GlobResult {
	g.mu.Lock()
	defer g.mu.Unlock()
	files := append([]FileTime(nil), g.kept...)
	sort.Slice(files, func(i, j int) bool { return newer(files[i], files[j]) })
	return GlobResult{Files: files, Total: g.total, Truncated: g.total > len(files)}
}

// newer orders glob results: later modification first, then path.
func newer(a, b FileTime) bool {
	if !a.ModTime.Equal(b.ModTime) {
		return a.ModTime.After(b.ModTime)
	}
	return a.Path < b.Path
}

// timeHeap is a min-heap of files by newness: the one to drop first on top.
type timeHeap []FileTime

func (h timeHeap) Len() int           { return len(h) }
func (h timeHeap) Less(i, j int) bool { return newer(h[j], h[i]) }
func (h timeHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *timeHeap) Push(x any)        { *h = append(*h, x.(FileTime)) }
func (h *timeHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}
