package config

import (
	"fmt"
	"strings"

	"github.com/pelletier/go-toml/v2/unstable"
)

// written is one key a file sets, with where it is written. The strict
// decoding gives values but not positions; the layers need both: which
// keys an untrusted file had dropped (layers.go), and where a rule names a
// tool that does not exist (ToolRefs).
type written struct {
	Path []string // the key's full path: [policy tools web_fetch]
	Pos  string   // file:line:col of the key, or of the string for an element
	At   Position // the same place, in parts
	// Elem marks one string of an array (Value holds it); the key itself
	// has an entry of its own, without Elem.
	Elem  bool
	Value string // a string value, or an element's
}

func (w written) key() string { return strings.Join(w.Path, ".") }

// scanWritten lists the keys data sets, in order. Keys inside an array of
// tables ([[tools.custom]]) are not listed one by one: the header stands
// for them. data must already have decoded (a parse error here is a bug
// of the caller, reported as an error all the same).
func scanWritten(name string, data []byte) ([]written, error) {
	var p unstable.Parser
	p.Reset(data)
	var out []written
	var table []string
	inArrayTable := false
	for p.NextExpression() {
		e := p.Expression()
		switch e.Kind {
		case unstable.Table, unstable.ArrayTable:
			path, at := keyPath(&p, name, e.Key())
			table, inArrayTable = path, e.Kind == unstable.ArrayTable
			if inArrayTable {
				out = append(out, written{Path: path, Pos: at.String(), At: at})
			}
		case unstable.KeyValue:
			if inArrayTable {
				continue
			}
			out = appendKeyValue(&p, name, out, table, e)
		}
	}
	if err := p.Error(); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return out, nil
}

// appendKeyValue lists a key = value under table, descending into inline
// tables; an array of strings lists each string with its own position.
func appendKeyValue(p *unstable.Parser, name string, out []written, table []string, kv *unstable.Node) []written {
	rel, at := keyPath(p, name, kv.Key())
	pos := at.String()
	path := append(append([]string(nil), table...), rel...)
	v := kv.Value()
	switch v.Kind {
	case unstable.InlineTable:
		it := v.Children()
		for it.Next() {
			out = appendKeyValue(p, name, out, path, it.Node())
		}
		return out
	case unstable.String:
		return append(out, written{Path: path, Pos: pos, At: at, Value: string(v.Data)})
	case unstable.Array:
		out = append(out, written{Path: path, Pos: pos, At: at})
		it := v.Children()
		for it.Next() {
			if el := it.Node(); el.Kind == unstable.String {
				elAt := position(p, name, el.Raw)
				out = append(out, written{Path: path, Pos: elAt.String(), At: elAt, Elem: true, Value: string(el.Data)})
			}
		}
		return out
	}
	return append(out, written{Path: path, Pos: pos, At: at})
}

// keyPath is a (possibly dotted) key's parts and the position of its last.
func keyPath(p *unstable.Parser, name string, it unstable.Iterator) ([]string, Position) {
	var parts []string
	var last unstable.Range
	for it.Next() {
		parts = append(parts, string(it.Node().Data))
		last = it.Node().Raw
	}
	return parts, position(p, name, last)
}

func position(p *unstable.Parser, name string, r unstable.Range) Position {
	s := p.Shape(r).Start
	return Position{File: name, Line: s.Line, Col: s.Column}
}
