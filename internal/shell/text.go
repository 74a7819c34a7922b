package shell

import (
	"strings"
	"unicode/utf8"
)

// SafeText returns b as text a model can be shown and JSON can carry:
// valid UTF-8 stays as it is, except control characters other than tab and
// newline (NUL, ESC, lone carriage returns, DEL, C1 controls), which become
// \xNN escapes, as do bytes that are not valid UTF-8. "\r\n" becomes "\n".
func SafeText(b []byte) string {
	if isPlain(b) {
		return string(b)
	}
	var s strings.Builder
	s.Grow(len(b) + len(b)/8)
	for i := 0; i < len(b); {
		c := b[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '\r' && i+1 < len(b) && b[i+1] == '\n':
			case c == '\n' || c == '\t' || (c >= 0x20 && c < 0x7f):
				s.WriteByte(c)
			default:
				writeEscape(&s, c)
			}
			i++
			continue
		}
		r, size := utf8.DecodeRune(b[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			writeEscape(&s, c)
		case r >= 0x80 && r < 0xa0:
			for _, x := range b[i : i+size] {
				writeEscape(&s, x)
			}
		default:
			s.Write(b[i : i+size])
		}
		i += size
	}
	return s.String()
}

// isPlain reports whether b needs no escaping: printable ASCII, tabs and
// newlines only (the common case, which then costs one pass and no copy
// beyond the string conversion).
func isPlain(b []byte) bool {
	for _, c := range b {
		if (c < 0x20 && c != '\n' && c != '\t') || c >= 0x7f {
			return false
		}
	}
	return true
}

const hexDigits = "0123456789abcdef"

func writeEscape(s *strings.Builder, c byte) {
	s.WriteString(`\x`)
	s.WriteByte(hexDigits[c>>4])
	s.WriteByte(hexDigits[c&0xf])
}
