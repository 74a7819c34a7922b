package schema

import (
	"errors"
	"fmt"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
)

// ErrNotObject is returned by [ParseObject] for valid JSON that is not an
// object.
var ErrNotObject = errors.New("not a JSON object")

// ParseObject decodes a JSON object into the same values encoding/json
// produces for a map[string]any (float64 numbers, []any arrays, nested
// maps; invalid UTF-8 replaced by U+FFFD; the last of duplicate keys wins),
// without reflection. It is the pipeline's check step: every call's
// arguments pass through it, and encoding/json's map decoding was half the
// cost of a call (BenchmarkInvoke). FuzzParseObject holds it to
// encoding/json's answers.
func ParseObject(data []byte) (map[string]any, error) {
	p := parser{data: data}
	p.space()
	if p.i >= len(p.data) {
		return nil, p.errorf("unexpected end of input")
	}
	if p.data[p.i] != '{' {
		if _, err := p.value(0); err != nil {
			return nil, err
		}
		p.space()
		if p.i != len(p.data) {
			return nil, p.errorf("invalid character %q after top-level value", p.data[p.i])
		}
		return nil, ErrNotObject
	}
	v, err := p.object(0)
	if err != nil {
		return nil, err
	}
	p.space()
	if p.i != len(p.data) {
		return nil, p.errorf("invalid character %q after top-level value", p.data[p.i])
	}
	return v, nil
}

// maxDepth bounds nesting, as encoding/json does (10000).
const maxDepth = 10000

type parser struct {
	data []byte
	i    int
}

func (p *parser) errorf(format string, args ...any) error {
	return fmt.Errorf("offset %d: %s", p.i, fmt.Sprintf(format, args...))
}

func (p *parser) space() {
	for p.i < len(p.data) {
		switch p.data[p.i] {
		case ' ', '\t', '\n', '\r':
			p.i++
		default:
			return
		}
	}
}

func (p *parser) value(depth int) (any, error) {
	p.space()
	if p.i >= len(p.data) {
		return nil, p.errorf("unexpected end of input")
	}
	switch c := p.data[p.i]; {
	case c == '{':
		return p.object(depth + 1)
	case c == '[':
		return p.array(depth + 1)
	case c == '"':
		return p.string()
	case c == 't':
		return true, p.literal("true")
	case c == 'f':
		return false, p.literal("false")
	case c == 'n':
		return nil, p.literal("null")
	case c == '-' || (c >= '0' && c <= '9'):
		return p.number()
	default:
		return nil, p.errorf("invalid character %q looking for beginning of value", c)
	}
}

func (p *parser) literal(word string) error {
	if len(p.data)-p.i < len(word) || string(p.data[p.i:p.i+len(word)]) != word {
		return p.errorf("invalid literal, want %s", word)
	}
	p.i += len(word)
	return nil
}

func (p *parser) object(depth int) (map[string]any, error) {
	if depth > maxDepth {
		return nil, p.errorf("exceeded max depth")
	}
	p.i++ // {
	m := map[string]any{}
	p.space()
	if p.i < len(p.data) && p.data[p.i] == '}' {
		p.i++
		return m, nil
	}
	for {
		p.space()
		if p.i >= len(p.data) || p.data[p.i] != '"' {
			return nil, p.errorf("looking for beginning of object key string")
		}
		k, err := p.string()
		if err != nil {
			return nil, err
		}
		p.space()
		if p.i >= len(p.data) || p.data[p.i] != ':' {
			return nil, p.errorf("after object key: want ':'")
		}
		p.i++
		v, err := p.value(depth)
		if err != nil {
			return nil, err
		}
		m[k] = v
		done, err := p.next('}', "object key:value pair")
		if err != nil {
			return nil, err
		}
		if done {
			return m, nil
		}
	}
}

// next consumes what follows a member of an object or array: a comma, when
// more follow, or closing, which ends it (done). what names the member in
// the error, as encoding/json does.
func (p *parser) next(closing byte, what string) (done bool, err error) {
	p.space()
	if p.i >= len(p.data) {
		return false, p.errorf("unexpected end of input")
	}
	switch p.data[p.i] {
	case ',':
		p.i++
		return false, nil
	case closing:
		p.i++
		return true, nil
	}
	return false, p.errorf("after %s: invalid character %q", what, p.data[p.i])
}

func (p *parser) array(depth int) ([]any, error) {
	if depth > maxDepth {
		return nil, p.errorf("exceeded max depth")
	}
	p.i++ // [
	out := []any{}
	p.space()
	if p.i < len(p.data) && p.data[p.i] == ']' {
		p.i++
		return out, nil
	}
	for {
		v, err := p.value(depth)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
		done, err := p.next(']', "array element")
		if err != nil {
			return nil, err
		}
		if done {
			return out, nil
		}
	}
}

func (p *parser) number() (float64, error) {
	start := p.i
	if p.data[p.i] == '-' {
		p.i++
	}
	digits := func() int {
		n := 0
		for p.i < len(p.data) && p.data[p.i] >= '0' && p.data[p.i] <= '9' {
			p.i++
			n++
		}
		return n
	}
	switch {
	case p.i < len(p.data) && p.data[p.i] == '0':
		p.i++
	case digits() == 0:
		return 0, p.errorf("invalid number")
	}
	if p.i < len(p.data) && p.data[p.i] == '.' {
		p.i++
		if digits() == 0 {
			return 0, p.errorf("invalid number: no digits after the decimal point")
		}
	}
	if p.i < len(p.data) && (p.data[p.i] == 'e' || p.data[p.i] == 'E') {
		p.i++
		if p.i < len(p.data) && (p.data[p.i] == '+' || p.data[p.i] == '-') {
			p.i++
		}
		if digits() == 0 {
			return 0, p.errorf("invalid number: no digits in the exponent")
		}
	}
	f, err := strconv.ParseFloat(string(p.data[start:p.i]), 64)
	if err != nil {
		return 0, p.errorf("number %s out of range", p.data[start:p.i])
	}
	return f, nil
}

// string decodes a string starting at the opening quote. The common case —
// no escapes, valid UTF-8 — is one allocation.
func (p *parser) string() (string, error) {
	p.i++ // "
	start := p.i
	for p.i < len(p.data) {
		c := p.data[p.i]
		switch {
		case c == '"':
			s := string(p.data[start:p.i])
			p.i++
			return s, nil
		case c == '\\' || c >= utf8.RuneSelf:
			return p.slowString(start)
		case c < 0x20:
			return "", p.errorf("invalid control character in string")
		}
		p.i++
	}
	return "", p.errorf("unexpected end of input in string")
}

func (p *parser) slowString(start int) (string, error) {
	b := append([]byte(nil), p.data[start:p.i]...)
	for p.i < len(p.data) {
		c := p.data[p.i]
		switch {
		case c == '"':
			p.i++
			return string(b), nil
		case c < 0x20:
			return "", p.errorf("invalid control character in string")
		case c == '\\':
			var err error
			if b, err = p.escape(b); err != nil {
				return "", err
			}
		case c >= utf8.RuneSelf:
			r, size := utf8.DecodeRune(p.data[p.i:])
			if r == utf8.RuneError && size == 1 {
				b = utf8.AppendRune(b, utf8.RuneError)
			} else {
				b = append(b, p.data[p.i:p.i+size]...)
			}
			p.i += size
		default:
			b = append(b, c)
			p.i++
		}
	}
	return "", p.errorf("unexpected end of input in string")
}

func (p *parser) escape(b []byte) ([]byte, error) {
	if p.i+1 >= len(p.data) {
		return nil, p.errorf("unexpected end of input in escape")
	}
	c := p.data[p.i+1]
	p.i += 2
	switch c {
	case '"', '\\', '/':
		return append(b, c), nil
	case 'b':
		return append(b, '\b'), nil
	case 'f':
		return append(b, '\f'), nil
	case 'n':
		return append(b, '\n'), nil
	case 'r':
		return append(b, '\r'), nil
	case 't':
		return append(b, '\t'), nil
	case 'u':
		r, ok := p.hex4()
		if !ok {
			return nil, p.errorf("invalid \\u escape")
		}
		if utf16.IsSurrogate(r) {
			r2 := utf8.RuneError
			if p.i+1 < len(p.data) && p.data[p.i] == '\\' && p.data[p.i+1] == 'u' {
				save := p.i
				p.i += 2
				if lo, ok := p.hex4(); ok {
					if dec := utf16.DecodeRune(r, lo); dec != utf8.RuneError {
						return utf8.AppendRune(b, dec), nil
					}
				}
				p.i = save
			}
			return utf8.AppendRune(b, r2), nil
		}
		return utf8.AppendRune(b, r), nil
	}
	return nil, p.errorf("invalid escape character %q", c)
}

func (p *parser) hex4() (rune, bool) {
	if p.i+4 > len(p.data) {
		return 0, false
	}
	var r rune
	for _, c := range p.data[p.i : p.i+4] {
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c = c - 'a' + 10
		case c >= 'A' && c <= 'F':
			c = c - 'A' + 10
		default:
			return 0, false
		}
		r = r*16 + rune(c)
	}
	p.i += 4
	return r, true
}
