package mcpserver

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
)

// FuzzReadLine checks the stdio line reader against the plain reading of
// the same input: every line comes back whole, without its newline, unless
// it is longer than the limit, in which case it is reported as too long
// and the reader goes on with the next line.
func FuzzReadLine(f *testing.F) {
	f.Add([]byte("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\n"), 64)
	f.Add([]byte("a\nbb\n\nccc"), 2)
	f.Add([]byte(strings.Repeat("x", 70000)+"\nok\n"), 65536)
	f.Add([]byte("\n\n\n"), 1)
	f.Fuzz(func(t *testing.T, input []byte, max int) {
		if max < 1 || max > 1<<20 {
			return
		}
		want := strings.Split(string(input), "\n")
		if len(input) == 0 {
			want = nil
		} else if input[len(input)-1] == '\n' {
			want = want[:len(want)-1] // a final newline ends the last line
		}
		br := bufio.NewReaderSize(bytes.NewReader(input), 16)
		for i := 0; ; i++ {
			line, tooLong, err := readLine(br, max)
			if err != nil && !errors.Is(err, io.EOF) {
				t.Fatalf("line %d: %v", i, err)
			}
			if errors.Is(err, io.EOF) && len(line) == 0 && !tooLong {
				if i != len(want) {
					t.Fatalf("read %d lines, want %d", i, len(want))
				}
				return
			}
			if i >= len(want) {
				t.Fatalf("line %d beyond the %d in the input", i, len(want))
			}
			switch {
			case len(want[i]) > max && !tooLong:
				t.Fatalf("line %d (%d bytes, limit %d) not reported too long", i, len(want[i]), max)
			case len(want[i]) <= max && (tooLong || string(line) != want[i]):
				t.Fatalf("line %d = %q (too long %v), want %q", i, line, tooLong, want[i])
			}
			if errors.Is(err, io.EOF) {
				if i+1 != len(want) {
					t.Fatalf("EOF after line %d, want %d lines", i, len(want))
				}
				return
			}
		}
	})
}
