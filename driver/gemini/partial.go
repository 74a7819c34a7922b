package gemini

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"

	"google.golang.org/genai"
)

// Vertex AI can stream a call's arguments as values addressed by JSON path
// (RFC 9535): {"jsonPath":"$.recipe.steps[2]","stringValue":"Preheat",
// "willContinue":true}. A string value is appended to the one before it while
// that one said willContinue. This file builds the arguments object from
// such values.

// segment is one step of a parsed path: an object member or an array index.
type segment struct {
	key   string
	index int // -1 for a member
}

// parsePath parses the normalized paths Vertex sends: $ followed by .name,
// ['name'], ["name"] or [N] steps.
func parsePath(p string) ([]segment, error) {
	rest, ok := strings.CutPrefix(p, "$")
	if !ok {
		return nil, fmt.Errorf("json path %q does not start with $", p)
	}
	var segs []segment
	for rest != "" {
		switch rest[0] {
		case '.':
			rest = rest[1:]
			end := strings.IndexAny(rest, ".[")
			if end < 0 {
				end = len(rest)
			}
			if end == 0 {
				return nil, fmt.Errorf("json path %q: empty member name", p)
			}
			segs = append(segs, segment{key: rest[:end], index: -1})
			rest = rest[end:]
		case '[':
			end := strings.IndexByte(rest, ']')
			if end < 0 {
				return nil, fmt.Errorf("json path %q: unclosed [", p)
			}
			inner := rest[1:end]
			if q := len(inner); q >= 2 && (inner[0] == '\'' || inner[0] == '"') && inner[q-1] == inner[0] {
				// A quoted name may hold ']' itself; normalized paths escape it, so this is enough.
				segs = append(segs, segment{key: inner[1 : q-1], index: -1})
			} else {
				n, err := strconv.Atoi(inner)
				if err != nil || n < 0 || n > maxIndex {
					return nil, fmt.Errorf("json path %q: bad index %q", p, inner)
				}
				segs = append(segs, segment{index: n})
			}
			rest = rest[end+1:]
		default:
			return nil, fmt.Errorf("json path %q: unexpected %q", p, rest[0])
		}
	}
	if len(segs) == 0 {
		return nil, fmt.Errorf("json path %q names the arguments object itself", p)
	}
	if segs[0].index >= 0 {
		return nil, fmt.Errorf("json path %q indexes the arguments, which are an object", p)
	}
	return segs, nil
}

// maxIndex bounds array indexes, and maxNodes the values one call may
// create, so that paths a model makes up cannot make the driver allocate
// without bound.
const (
	maxIndex = 1 << 16
	maxNodes = 1 << 17
)

// node is a JSON value under construction. Object members keep the order
// they arrived in.
type node struct {
	kind  byte // 'o' object, 'a' array, 's' string, 'n' number, 'b' bool, 'z' null
	keys  []string
	kids  map[string]*node
	elems []*node
	str   []byte
	num   float64
	b     bool
}

// lookup returns the node at segs below n, creating objects, arrays and
// missing elements on the way; *budget counts down the nodes it may create.
func (n *node) lookup(segs []segment, budget *int) (*node, error) {
	cur := n
	for _, s := range segs {
		if s.index < 0 {
			if cur.kind != 'o' {
				if cur.kind != 0 {
					return nil, fmt.Errorf("member %q of a value that is not an object", s.key)
				}
				cur.kind = 'o'
			}
			if cur.kids == nil {
				cur.kids = map[string]*node{}
			}
			next := cur.kids[s.key]
			if next == nil {
				if *budget--; *budget < 0 {
					return nil, errTooLarge
				}
				next = &node{}
				cur.kids[s.key] = next
				cur.keys = append(cur.keys, s.key)
			}
			cur = next
			continue
		}
		if cur.kind != 'a' {
			if cur.kind != 0 {
				return nil, fmt.Errorf("index %d of a value that is not an array", s.index)
			}
			cur.kind = 'a'
		}
		if grow := s.index + 1 - len(cur.elems); grow > 0 {
			if *budget -= grow; *budget < 0 {
				return nil, errTooLarge
			}
			for len(cur.elems) <= s.index {
				cur.elems = append(cur.elems, &node{})
			}
		}
		cur = cur.elems[s.index]
	}
	return cur, nil
}

var errTooLarge = fmt.Errorf("the arguments grow past %d values", maxNodes)

// set stores one partial argument's value in n, appending a string to the
// previous one when appendString says so.
func (n *node) set(pa *genai.PartialArg, appendString bool) {
	switch {
	case pa.BoolValue != nil:
		*n = node{kind: 'b', b: *pa.BoolValue}
	case pa.NumberValue != nil:
		*n = node{kind: 'n', num: *pa.NumberValue}
	case pa.NULLValue != "":
		*n = node{kind: 'z'}
	case appendString && n.kind == 's':
		n.str = append(n.str, pa.StringValue...)
	default:
		*n = node{kind: 's', str: append([]byte(nil), pa.StringValue...)}
	}
}

// appendJSON writes n as JSON. A value never set (an array hole) is null.
func (n *node) appendJSON(b []byte) []byte {
	switch n.kind {
	case 'o':
		b = append(b, '{')
		for i, k := range n.keys {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendString(b, k)
			b = append(b, ':')
			b = n.kids[k].appendJSON(b)
		}
		return append(b, '}')
	case 'a':
		b = append(b, '[')
		for i, e := range n.elems {
			if i > 0 {
				b = append(b, ',')
			}
			b = e.appendJSON(b)
		}
		return append(b, ']')
	case 's':
		return appendString(b, string(n.str))
	case 'n':
		return appendNumber(b, n.num)
	case 'b':
		return strconv.AppendBool(b, n.b)
	}
	return append(b, "null"...)
}

func appendString(b []byte, s string) []byte {
	q, _ := json.Marshal(s) // a string always marshals
	return append(b, q...)
}

// appendNumber writes integers without an exponent (1e+06 would not decode
// into a Go int), other numbers in the shortest form.
func appendNumber(b []byte, f float64) []byte {
	switch {
	case math.IsNaN(f) || math.IsInf(f, 0):
		return append(b, "null"...)
	case f == math.Trunc(f) && math.Abs(f) < 1e21:
		return strconv.AppendFloat(b, f, 'f', -1, 64)
	}
	return strconv.AppendFloat(b, f, 'g', -1, 64)
}
