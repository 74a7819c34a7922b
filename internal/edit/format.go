package edit

import "strings"

const bom = "\uFEFF"

// Format is how a file's text is stored: with or without a UTF-8 byte order
// mark, and with LF or CRLF line endings.
type Format struct {
	BOM bool // the file starts with a UTF-8 byte order mark
	// CRLF is set when every line break of the file is CRLF. Files that mix
	// CRLF and LF are left as they are (CRLF false), so that no line changes
	// its ending.
	CRLF bool

	mixed bool // the file has both CRLF and bare LF line breaks
}

// Decode returns the text to match against, without the byte order mark and
// with CRLF turned into LF when the file uses CRLF throughout, and the format
// that [Format.Encode] restores.
func Decode(content []byte) (string, Format) {
	s := string(content)
	var f Format
	if strings.HasPrefix(s, bom) {
		f.BOM = true
		s = s[len(bom):]
	}
	crlf := strings.Count(s, "\r\n")
	switch {
	case crlf > 0 && crlf == strings.Count(s, "\n"):
		f.CRLF = true
		s = strings.ReplaceAll(s, "\r\n", "\n")
	case crlf > 0:
		f.mixed = true
	}
	return s, f
}

// Encode turns text produced from a decoded file back into the file's bytes.
func (f Format) Encode(text string) []byte {
	if f.CRLF {
		text = strings.ReplaceAll(text, "\n", "\r\n")
	}
	if f.BOM {
		text = bom + text
	}
	return []byte(text)
}

// Normalize prepares a string the model wrote (an old_string or new_string)
// for matching against text decoded in format f: a leading byte order mark is
// dropped when the file has one, and CRLF becomes LF unless the file mixes
// line endings (then the model's line endings are all it has to go on).
func (f Format) Normalize(s string) string {
	if f.BOM {
		s = strings.TrimPrefix(s, bom)
	}
	if f.mixed {
		return s
	}
	return strings.ReplaceAll(s, "\r\n", "\n")
}
