package visible

import (
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

func TestText(t *testing.T) {
	for _, c := range []struct {
		name, in, want string
		escaped        int
	}{
		{"plain text is kept", "go test ./...", "go test ./...", 0},
		{"newlines and tabs are kept", "a\n\tb", "a\n\tb", 0},
		{"ESC[2K and a carriage return over a fake command", "rm -rf x # \x1b[2K\r$ go test ./...", `rm -rf x # \x1b[2K\r$ go test ./...`, 2},
		{"a bidi override", "echo \u202eexe.yrrab", `echo \u202eexe.yrrab`, 1},
		{"every bidi control", "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069", `\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069`, 9},
		{"zero-width characters", "r\u200bm \u200c\u200d\ufeff", `r\u200bm \u200c\u200d\ufeff`, 4},
		{"a C1 CSI", "a\u009b2Kb", `a\u009b2Kb`, 1},
		{"DEL and NUL", "a\x7f\x00", `a\x7f\x00`, 2},
		{"backspace, bell, form feed, vertical tab", "\b\a\f\v", `\b\a\f\v`, 4},
		{"a byte that is not UTF-8", "a\xffb", `a\xffb`, 1},
		{"a no-break space and a line separator", "a\u00a0b\u2028c", `a\u00a0b\u2028c`, 2},
		{"a tag character", "a\U000E0041", `a\U000e0041`, 1},
		{"private use", "\ue000", `\ue000`, 1},
		{"letters of other scripts are kept", "héllo мир 世界 🙂", "héllo мир 世界 🙂", 0},
	} {
		got, n := Text(c.in)
		if got != c.want || n != c.escaped {
			t.Errorf("%s: Text(%q) = %q, %d; want %q, %d", c.name, c.in, got, n, c.want, c.escaped)
		}
	}
}

// FuzzText: whatever a model writes, what is shown holds no character a
// terminal would act on or that shows nothing, and plain text is kept.
func FuzzText(f *testing.F) {
	for _, s := range []string{"", "go test", "\x1b[2K\r$ ls", "\u202e", "a\xff", "\u009b31m", "\t\n", "\U000E0041"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, n := Text(s)
		if !utf8.ValidString(got) {
			t.Fatalf("Text(%q) = %q: not UTF-8", s, got)
		}
		for _, r := range got {
			if r == '\n' || r == '\t' {
				continue
			}
			if r < 0x20 || r == 0x7f || (r >= 0x80 && r <= 0x9f) || unicode.Is(unicode.Cf, r) || !unicode.IsGraphic(r) || (unicode.IsSpace(r) && r != ' ') {
				t.Fatalf("Text(%q) = %q holds %U", s, got, r)
			}
		}
		if n == 0 && got != s {
			t.Fatalf("Text(%q) = %q changed the text without an escape", s, got)
		}
		if n > 0 && !strings.Contains(got, `\`) {
			t.Fatalf("Text(%q) = %q: %d escapes, no backslash", s, got, n)
		}
	})
}
