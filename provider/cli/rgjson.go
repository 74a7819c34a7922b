package cli

import (
	"bytes"
	"encoding/base64"
	"errors"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
)

// rgLine is what is read of one line of rg --json output.
type rgLine struct {
	kind       string // begin, match, context, end, or another type (ignored)
	path       []byte // begin
	text       []byte // match, context: the line, with its line break
	lineNumber int
	firstStart int // match: byte offset of the first submatch in text, -1 if none
}

var errRGJSON = errors.New("unexpected rg --json output")

// parseRGLine reads one line of rg --json output. rg writes the fields of
// each message in a fixed order (type first; path, lines, line_number,
// absolute_offset, submatches), so the fields needed are found by scanning
// forward, each string decoded properly, without decoding the whole line
// into maps or structs: most of rg's output is "end" statistics this never
// looks at. Anything unexpected is an error, never a guess.
func parseRGLine(line []byte) (rgLine, error) {
	l := rgLine{firstStart: -1}
	p := rgParser{b: line}
	if !p.lit(`{"type":`) {
		if p.lit(`{"data":`) {
			return l, nil // the summary, which puts its type last
		}
		return l, errRGJSON
	}
	kind, err := p.str()
	if err != nil {
		return l, err
	}
	l.kind = string(kind)
	switch l.kind {
	case "begin", "match", "context":
	default:
		return l, nil
	}
	if !p.lit(`,"data":{"path":`) {
		return l, errRGJSON
	}
	if l.path, err = p.data(); err != nil {
		return l, err
	}
	if l.kind == "begin" {
		return l, nil
	}
	if !p.lit(`,"lines":`) {
		return l, errRGJSON
	}
	if l.text, err = p.data(); err != nil {
		return l, err
	}
	if !p.lit(`,"line_number":`) {
		return l, errRGJSON
	}
	if l.lineNumber, err = p.int(); err != nil {
		return l, err
	}
	if l.kind == "match" {
		if i := bytes.Index(p.b[p.i:], []byte(`"submatches":[{`)); i >= 0 {
			p.i += i
			if j := bytes.Index(p.b[p.i:], []byte(`,"start":`)); j >= 0 {
				p.i += j + len(`,"start":`)
				if l.firstStart, err = p.int(); err != nil {
					return l, err
				}
			}
		}
	}
	return l, nil
}

// rgParser scans one JSON line.
type rgParser struct {
	b []byte
	i int
}

// lit consumes s if the input continues with it.
func (p *rgParser) lit(s string) bool {
	if bytes.HasPrefix(p.b[p.i:], []byte(s)) {
		p.i += len(s)
		return true
	}
	return false
}

// data reads rg's form of bytes: {"text":"..."} or {"bytes":"base64"}.
func (p *rgParser) data() ([]byte, error) {
	switch {
	case p.lit(`{"text":`):
		s, err := p.str()
		if err != nil || !p.lit("}") {
			return nil, errRGJSON
		}
		return s, nil
	case p.lit(`{"bytes":`):
		s, err := p.str()
		if err != nil || !p.lit("}") {
			return nil, errRGJSON
		}
		return decodeBase64(s)
	}
	return nil, errRGJSON
}

// int reads a non-negative integer.
func (p *rgParser) int() (int, error) {
	j := p.i
	for j < len(p.b) && '0' <= p.b[j] && p.b[j] <= '9' {
		j++
	}
	n, err := strconv.Atoi(string(p.b[p.i:j]))
	if err != nil {
		return 0, errRGJSON
	}
	p.i = j
	return n, nil
}

// str reads a JSON string and returns its decoded bytes. Strings without
// escapes are returned as a slice of the input.
func (p *rgParser) str() ([]byte, error) {
	if p.i >= len(p.b) || p.b[p.i] != '"' {
		return nil, errRGJSON
	}
	start := p.i + 1
	for j := start; j < len(p.b); j++ {
		switch p.b[j] {
		case '"':
			p.i = j + 1
			return p.b[start:j], nil
		case '\\':
			return p.escaped(start)
		}
	}
	return nil, errRGJSON
}

// escaped decodes a string with escapes, from its first byte at start.
func (p *rgParser) escaped(start int) ([]byte, error) {
	out := make([]byte, 0, 64)
	for j := start; j < len(p.b); j++ {
		c := p.b[j]
		switch {
		case c == '"':
			p.i = j + 1
			return out, nil
		case c < 0x20:
			return nil, errRGJSON
		case c != '\\':
			out = append(out, c)
			continue
		}
		if j+1 >= len(p.b) {
			return nil, errRGJSON
		}
		j++
		switch p.b[j] {
		case '"', '\\', '/':
			out = append(out, p.b[j])
		case 'b':
			out = append(out, '\b')
		case 'f':
			out = append(out, '\f')
		case 'n':
			out = append(out, '\n')
		case 'r':
			out = append(out, '\r')
		case 't':
			out = append(out, '\t')
		case 'u':
			r, ok := hexRune(p.b, j+1)
			if !ok {
				return nil, errRGJSON
			}
			j += 4
			if utf16.IsSurrogate(r) {
				// As encoding/json: a valid pair is one rune; anything else
				// makes this half U+FFFD and leaves what follows alone.
				r2, ok := rune(0), false
				if j+2 < len(p.b) && p.b[j+1] == '\\' && p.b[j+2] == 'u' {
					r2, ok = hexRune(p.b, j+3)
				}
				if dec := utf16.DecodeRune(r, r2); ok && dec != utf8.RuneError {
					r, j = dec, j+6
				} else {
					r = utf8.RuneError
				}
			}
			out = utf8.AppendRune(out, r)
		default:
			return nil, errRGJSON
		}
	}
	return nil, errRGJSON
}

// hexRune reads four hexadecimal digits at b[i:].
func hexRune(b []byte, i int) (rune, bool) {
	if i+4 > len(b) {
		return 0, false
	}
	v, err := strconv.ParseUint(string(b[i:i+4]), 16, 32)
	if err != nil {
		return 0, false
	}
	return rune(v), true
}

// decodeBase64 decodes rg's base64 form of bytes that are not UTF-8.
func decodeBase64(s []byte) ([]byte, error) {
	out := make([]byte, base64.StdEncoding.DecodedLen(len(s)))
	n, err := base64.StdEncoding.Decode(out, s)
	if err != nil {
		return nil, errRGJSON
	}
	return out[:n], nil
}
