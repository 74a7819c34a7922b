package outputcache

import "bytes"

// IndexEvery is how many lines apart the sparse line index records an
// offset. Reading line N seeks to the recorded line at or before it and
// skips at most IndexEvery-1 lines: a few hundred kilobytes of scanning at
// worst, whatever N is, for an index of 8 bytes per 4096 lines (about 20 KB
// for a 1 GB output of 50-byte lines).
const IndexEvery = 4096

// indexBlock is how many bytes LineIndex counts newlines in at once; only a
// block that holds an indexed line is walked newline by newline.
const indexBlock = 4096

// LineIndex builds the sparse line index of an output as it is written. Its
// zero value is ready to use. It is not safe for concurrent use; stores call
// it from their writer, under the writer's lock.
type LineIndex struct {
	size     int64
	newlines int64
	last     byte
	offsets  []int64
}

// Write records p, the next bytes of the output. It never fails.
func (x *LineIndex) Write(p []byte) (int, error) {
	if len(x.offsets) == 0 {
		x.offsets = []int64{0}
	}
	for start := 0; start < len(p); start += indexBlock {
		block := p[start:min(start+indexBlock, len(p))]
		need := int64(len(x.offsets))*IndexEvery - x.newlines
		c := int64(bytes.Count(block, newline))
		if c < need {
			x.newlines += c
			continue
		}
		x.walk(block, x.size+int64(start))
	}
	if len(p) > 0 {
		x.size += int64(len(p))
		x.last = p[len(p)-1]
	}
	return len(p), nil
}

// walk counts the newlines of block, which starts at offset base, one by
// one, recording the start of every IndexEvery-th line.
func (x *LineIndex) walk(block []byte, base int64) {
	for i := 0; ; {
		j := bytes.IndexByte(block[i:], '\n')
		if j < 0 {
			return
		}
		i += j + 1
		x.newlines++
		if x.newlines == int64(len(x.offsets))*IndexEvery {
			x.offsets = append(x.offsets, base+int64(i))
		}
	}
}

// Size returns the number of bytes written.
func (x *LineIndex) Size() int64 { return x.size }

// Fit returns the head of p that an output capped at limit bytes keeps,
// given what x has recorded of it so far, and how many bytes of p it drops:
// the one cap on a single output that every store's writer applies.
func (x *LineIndex) Fit(p []byte, limit int64) (keep []byte, dropped int64) {
	if room := limit - x.size; int64(len(p)) > room {
		keep = p[:max(room, 0)]
		return keep, int64(len(p) - len(keep))
	}
	return p, 0
}

// Lines returns the number of lines written; a last line without a newline
// counts.
func (x *LineIndex) Lines() int64 {
	if x.size > 0 && x.last != '\n' {
		return x.newlines + 1
	}
	return x.newlines
}

// Meta returns the Meta of the output indexed so far, for ref and info.
func (x *LineIndex) Meta(ref string, info Info) Meta {
	offsets := x.offsets
	if len(offsets) == 0 {
		offsets = []int64{0}
	}
	return Meta{
		Ref: ref, Tool: info.Tool, CallID: info.CallID, Numbered: info.Numbered, Paths: info.Paths,
		Size: x.size, Lines: x.Lines(),
		IndexEvery: IndexEvery, Index: append([]int64(nil), offsets...),
	}
}

var newline = []byte{'\n'}
