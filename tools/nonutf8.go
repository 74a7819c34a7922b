package tools

import (
	"bytes"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/quiverkit/quiver/internal/edit"
)

// A file may hold bytes that are not UTF-8 (Latin-1 text, a stray byte).
// read_file shows each as U+FFFD (�), and a JSON string cannot carry the
// byte itself, so an old_string copied from what read_file showed never
// matches those lines: "read it again" would show the same � again. The
// error says instead what the bytes are and how to edit around them.

// maxBadRuns bounds the runs of such bytes one message lists.
const maxBadRuns = 4

// badRun is one run of bytes that are not UTF-8.
type badRun struct {
	line   int    // 1-based
	offset int    // of its first byte in the file
	hex    string // its bytes: 0xE9, or 0xC3 0x28
}

// nonUTF8Runs are the runs of bytes that are not UTF-8 an old_string not
// found may have stumbled on: those of the region of the file closest to
// it, or, when old_string holds � and that region has none, the file's.
func nonUTF8Runs(raw []byte, old string, nf *edit.NotFoundError) []badRun {
	if utf8.Valid(raw) {
		return nil
	}
	var runs []badRun
	if nf.Closest != nil {
		runs = badRuns(raw, nf.Closest.First, nf.Closest.Last)
	}
	if len(runs) == 0 && strings.ContainsRune(old, utf8.RuneError) {
		runs = badRuns(raw, 1, -1)
	}
	return runs
}

// nonUTF8Advice says what the bytes are and how to edit such lines.
func nonUTF8Advice(runs []badRun) string {
	var b strings.Builder
	b.WriteString("The file holds bytes that are not UTF-8, which read_file shows as \uFFFD and old_string cannot hold:")
	for i, r := range runs {
		if i > 0 {
			b.WriteByte(';')
		}
		fmt.Fprintf(&b, " line %d, file offset %d: %s", r.line, r.offset, r.hex)
	}
	b.WriteString(". Reading the file again shows the same \uFFFD. To change text beside them, give an old_string that leaves them out (they are kept as they are);" +
		" to change or remove them, use apply_patch, where \uFFFD in a context or - line matches them (a context line keeps them exactly; a + line writes what it says).")
	return b.String()
}

// badRuns lists the runs of bytes that are not UTF-8 on lines first..last
// of raw (last -1: to the end), at most maxBadRuns.
func badRuns(raw []byte, first, last int) []badRun {
	var runs []badRun
	start := 0
	for line := 1; start <= len(raw) && (last < 0 || line <= last); line++ {
		end := len(raw)
		if i := bytes.IndexByte(raw[start:], '\n'); i >= 0 {
			end = start + i
		}
		if line >= first {
			runs = appendRuns(runs, raw[start:end], line, start)
			if len(runs) >= maxBadRuns {
				return runs[:maxBadRuns]
			}
		}
		start = end + 1
	}
	return runs
}

// appendRuns adds the runs of invalid bytes of one line, which starts at
// offset in the file.
func appendRuns(runs []badRun, line []byte, num, offset int) []badRun {
	for i := 0; i < len(line); {
		r, size := utf8.DecodeRune(line[i:])
		if r != utf8.RuneError || size != 1 {
			i += size
			continue
		}
		run := badRun{line: num, offset: offset + i}
		var hex []string
		for i < len(line) {
			if r, size := utf8.DecodeRune(line[i:]); r != utf8.RuneError || size != 1 {
				break
			}
			hex = append(hex, fmt.Sprintf("0x%02X", line[i]))
			i++
		}
		run.hex = strings.Join(hex, " ")
		runs = append(runs, run)
	}
	return runs
}

func offsets(runs []badRun) []int {
	out := make([]int, len(runs))
	for i, r := range runs {
		out[i] = r.offset
	}
	return out
}
