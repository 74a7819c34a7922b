package outputcache

// Split is how much of a streamed output is kept at its two ends: its first
// HeadBytes and last TailBytes, and of those at most HeadLines and
// TailLines lines. An output within both sums is kept whole.
type Split struct {
	HeadBytes, TailBytes int
	HeadLines, TailLines int
}

// Room the split leaves for what is written around the kept ends: the
// tool's status line and the [Marker]. A fifth of the budget (a tenth of
// its lines), and never less than these, so that a small budget still
// holds them.
const (
	splitRoomBytes = 512
	splitRoomLines = 3
	// unlimitedSplit is what both ends keep of a measure the budget does
	// not limit: a command that floods still costs bounded memory, and the
	// whole output is in the cache all the same.
	unlimitedSplit = 32 << 20
)

// Split divides b between the head and the tail of an output that is
// trimmed while it streams, so that what is shown, with its status line and
// marker, fits b and the pipeline's cache step does not trim it a second
// time. The head gets three fifths of the bytes and five ninths of the
// lines (a command's first lines say what it does, its last how it ended):
// with the default budget, 24 KiB and 1,000 lines of head and 16 KiB and
// 800 lines of tail.
func (b Budget) Split() Split {
	b = b.withDefaults()
	bytes := shown(b.MaxBytes, 5, splitRoomBytes)
	lines := shown(b.MaxLines, 10, splitRoomLines)
	headBytes, headLines := share(bytes, 3, 5), max(share(lines, 5, 9), 1)
	return Split{
		HeadBytes: headBytes, TailBytes: bytes - headBytes,
		HeadLines: headLines, TailLines: max(lines-headLines, 1),
	}
}

// shown returns what is left of limit once the larger of limit/div and
// floor is set aside.
func shown(limit, div, floor int) int {
	if limit == noLimit {
		return unlimitedSplit
	}
	return max(limit-max(limit/div, floor), 0)
}

// share returns num/den of n without overflow.
func share(n, num, den int) int {
	return int(int64(n) * int64(num) / int64(den))
}
