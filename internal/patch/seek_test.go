package patch

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestLineEqualLevels(t *testing.T) {
	tests := []struct {
		name, line, pat string
		want            level // the first level that matches; numLevels for none
	}{
		{"identical", "x := 1", "x := 1", levelExact},
		{"trailing spaces", "x := 1  \t", "x := 1", levelTrimRight},
		{"leading indentation", "\t\tx := 1", "    x := 1", levelTrim},
		{"typographic quotes and dash", "say \u201chi\u201d \u2013 it\u2019s", "say \"hi\" - it's", levelFold},
		{"non-breaking space inside", "a\u00a0b", "a b", levelFold},
		{"header as the start of a line", "func (s *Server) Run(ctx context.Context) error {", "func (s *Server) Run", levelPrefix},
		{"header ending inside a word", "def foobar():", "def foo", numLevels},
		{"different text", "x := 1", "x := 2", numLevels},
		{"empty header never matches by prefix", "anything", "", numLevels},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := numLevels
			for lv := levelExact; lv < numLevels; lv++ {
				if lineEqual([]byte(tt.line), []byte(tt.pat), lv) {
					got = lv
					break
				}
			}
			if got != tt.want {
				t.Errorf("first matching level = %d, want %d", got, tt.want)
			}
		})
	}
}

func TestTextLines(t *testing.T) {
	tests := []struct {
		name, data string
		lines      []string
		tail2      int // line number of the second line from the end; -1 if none
	}{
		{"empty", "", nil, -1},
		{"one line without newline", "a", []string{"a"}, -1},
		{"final newline starts no line", "a\nb\n", []string{"a", "b"}, 0},
		{"no final newline", "a\nb\nc", []string{"a", "b", "c"}, 1},
		{"CRLF endings are not part of lines", "a\r\nb\r\n", []string{"a", "b"}, 0},
		{"blank lines count", "\n\n", []string{"", ""}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			txt := newText([]byte(tt.data))
			var got []string
			for p := (pos{}); ; {
				line, next, ok := txt.lineAt(p)
				if !ok {
					break
				}
				got = append(got, string(line))
				p = next
			}
			if diff := cmp.Diff(tt.lines, got); diff != "" {
				t.Errorf("lines (-want +got):\n%s", diff)
			}
			if txt.lines() != len(tt.lines) {
				t.Errorf("lines() = %d, want %d", txt.lines(), len(tt.lines))
			}
			p, ok := txt.tail(2)
			if gotTail := map[bool]int{true: p.line, false: -1}[ok]; gotTail != tt.tail2 {
				t.Errorf("tail(2) at line %d, want %d", gotTail, tt.tail2)
			}
			if ok {
				if line, _, _ := txt.lineAt(p); string(line) != tt.lines[len(tt.lines)-2] {
					t.Errorf("tail(2) = %q, want %q", line, tt.lines[len(tt.lines)-2])
				}
			}
		})
	}
}
