package outputcache

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// trimText returns the model's view of text within b: every line if they
// all fit once clipped, else the head and the tail around the [Marker],
// which says where the full output is (kept).
func trimText(text string, b Budget, kept Kept) string {
	size := len(text)
	text = strings.TrimSuffix(text, "\n")
	total := countLines(text)
	clippedMarker := Marker(0, 0, kept)
	if whole, ok := clipAll(text, total, b, len(clippedMarker)+10); ok {
		return whole + "\n" + clippedMarker
	}
	budgetBytes := b.MaxBytes - len(Marker(int64(total), int64(size), kept)) - 2
	headLines, headBytes := max((b.MaxLines-1)/2, 1), max(budgetBytes/2, 1)
	tailLines, tailBytes := max(b.MaxLines-1-headLines, 0), max(budgetBytes-headBytes, 0)

	var sb strings.Builder
	head, pos, clipped := 0, 0, false
	for used := 0; pos < len(text) && head < headLines; head++ {
		line, next := nextLine(text, pos)
		shown, cut := clipLine(line, b.MaxLineLength, firstFits(head, headBytes-used))
		if head > 0 && used+len(shown)+1 > headBytes {
			break
		}
		sb.WriteString(shown)
		sb.WriteByte('\n')
		used += len(shown) + 1
		clipped = clipped || cut
		pos = next
	}
	tail, tailText := tailOf(text, pos, min(tailLines, total-head), b.MaxLineLength, tailBytes)
	clipped = clipped || tail.clipped
	if omitted := total - head - tail.lines; omitted > 0 {
		end := size
		if tail.lines > 0 {
			end = tail.start
		}
		sb.WriteString(Marker(int64(omitted), int64(end-pos), kept))
		sb.WriteByte('\n')
	} else if clipped {
		sb.WriteString(clippedMarker + "\n")
	}
	sb.WriteString(tailText)
	return strings.TrimSuffix(sb.String(), "\n")
}

// clipAll returns every line of text clipped, if that fits b with room
// for one more line of reserve bytes.
func clipAll(text string, total int, b Budget, reserve int) (string, bool) {
	if total >= b.MaxLines {
		return "", false
	}
	var sb strings.Builder
	for pos := 0; pos < len(text); {
		line, next := nextLine(text, pos)
		shown, _ := clipLine(line, b.MaxLineLength, b.MaxBytes)
		if sb.Len()+len(shown)+1 > b.MaxBytes-reserve {
			return "", false
		}
		if pos > 0 {
			sb.WriteByte('\n')
		}
		sb.WriteString(shown)
		pos = next
	}
	return sb.String(), true
}

type tailInfo struct {
	lines   int
	clipped bool
	start   int // where the first line shown starts in text
}

// tailOf returns up to maxLines last lines of text that start at or after
// floor, within maxBytes once clipped.
func tailOf(text string, floor, maxLines, maxChars, maxBytes int) (tailInfo, string) {
	var lines []string
	var info tailInfo
	end, used := len(text), 0
	for info.lines < maxLines && end > floor {
		start := strings.LastIndexByte(text[floor:end], '\n') + 1 + floor
		shown, cut := clipLine(text[start:end], maxChars, firstFits(info.lines, maxBytes-used))
		if used+len(shown)+1 > maxBytes {
			break
		}
		lines = append(lines, shown)
		used += len(shown) + 1
		info.lines++
		info.clipped = info.clipped || cut
		end = start - 1
	}
	info.start = end + 1
	var sb strings.Builder
	for i := len(lines) - 1; i >= 0; i-- {
		sb.WriteString(lines[i])
		sb.WriteByte('\n')
	}
	return info, sb.String()
}

// firstFits is the byte limit for clipping a line: the room left for the
// first line of a run, which must show something; later lines are shown
// whole (up to the character limit) or not at all.
func firstFits(shown, room int) int {
	if shown == 0 {
		return max(room, 0)
	}
	return noLimit
}

// nextLine returns the line of text starting at pos and where the next
// one starts.
func nextLine(text string, pos int) (string, int) {
	i := strings.IndexByte(text[pos:], '\n')
	if i < 0 {
		return text[pos:], len(text)
	}
	return text[pos : pos+i], pos + i + 1
}

// countLines counts lines; a last line without a newline counts.
func countLines(s string) int {
	n := strings.Count(s, "\n")
	if len(s) > 0 && s[len(s)-1] != '\n' {
		n++
	}
	return n
}

// clipLine cuts line to maxChars characters, and to maxBytes bytes with the
// clip marker included, at a character boundary. It reports whether it cut.
func clipLine(line string, maxChars, maxBytes int) (string, bool) {
	if len(line) <= maxBytes && (len(line) <= maxChars || utf8.RuneCountInString(line) <= maxChars) {
		return line, false
	}
	k, chars := 0, 0
	for k < len(line) && chars < maxChars {
		_, size := utf8.DecodeRuneInString(line[k:])
		k += size
		chars++
	}
	const room = len(" [... 9999999999 characters clipped ...]")
	for k > max(maxBytes-room, 0) {
		_, size := utf8.DecodeLastRuneInString(line[:k])
		k -= size
	}
	return line[:k] + fmt.Sprintf(" [... %d characters clipped ...]", utf8.RuneCountInString(line[k:])), true
}
