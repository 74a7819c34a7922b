// Package visible shows untrusted text to a person exactly: every character
// a terminal would act on, and every character that shows nothing, is
// written as an escape a person can read, never passed on. It is the one
// function behind what Quiver shows of a model's words: the approval prompt,
// MCP elicitation messages, and `quiver run`'s streamed text and tool calls.
//
// A terminal obeys what it is sent: ESC[2K erases a line, a carriage return
// goes back to its start, and a Unicode bidi override (U+202E) reverses what
// follows. A model that writes them can show a person one command and run
// another. So a person is shown:
//
//   - C0 controls but newline and tab, DEL, and C1 controls (U+0080-U+009F,
//     which some terminals take as ESC [): \x1b, \r, \x7f, \u009b; the
//     usual escapes for \r, \b, \f, \v and \a;
//   - format characters (Unicode category Cf: bidi embeddings, overrides
//     and isolates U+202A-U+202E and U+2066-U+2069, zero-width spaces and
//     joiners, the byte-order mark, tag characters), line and paragraph
//     separators, and every space but the ASCII one: \u202e, \u200b, \u00a0;
//   - bytes that are not UTF-8: \xff;
//   - private-use and unassigned code points: \ue000.
//
// Newline and tab are kept: commands and patches are made of lines, and
// Go's indentation is tabs. A backslash is kept as itself, so `\r` in a
// shown text may be the two characters a model wrote; [Text] says how many
// escapes it wrote, and a caller that shows something for approval says
// so when there are any.
package visible

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Text returns s with every character described in the package
// documentation written as an escape, and how many it escaped.
func Text(s string) (string, int) {
	if plain(s) {
		return s, 0
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	n := 0
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
			n++
		case shown(r):
			b.WriteString(s[i : i+size])
		default:
			b.WriteString(escape(r))
			n++
		}
		i += size
	}
	return b.String(), n
}

// String is [Text] without the count, for text streamed as it comes.
func String(s string) string {
	out, _ := Text(s)
	return out
}

// plain reports whether s is printable ASCII, newlines and tabs: the common
// case, returned as it is.
func plain(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; (c < 0x20 && c != '\n' && c != '\t') || c >= 0x7f {
			return false
		}
	}
	return true
}

// shown reports whether r is written as itself.
func shown(r rune) bool {
	switch {
	case r == '\n' || r == '\t' || r == ' ':
		return true
	case r < 0x20 || r == 0x7f || r >= 0x80 && r <= 0x9f:
		return false
	case unicode.IsSpace(r): // NBSP, U+2028/2029, the wide spaces
		return false
	case unicode.In(r, unicode.Cf, unicode.Co, unicode.Cs):
		return false
	}
	return unicode.IsGraphic(r)
}

func escape(r rune) string {
	switch r {
	case '\r':
		return `\r`
	case '\b':
		return `\b`
	case '\f':
		return `\f`
	case '\v':
		return `\v`
	case '\a':
		return `\a`
	}
	switch {
	case r < 0x80:
		return fmt.Sprintf(`\x%02x`, r)
	case r <= 0xffff:
		return fmt.Sprintf(`\u%04x`, r)
	}
	return fmt.Sprintf(`\U%08x`, r)
}
