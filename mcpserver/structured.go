package mcpserver

import (
	"encoding/json"
	"strings"

	"github.com/quiverkit/quiver/outputcache"
)

// fitStructured holds a call's structured content to the budget its text
// content is held to, so that a large result is not sent twice over, once
// trimmed and once whole (a 100 KB read_file was 52 KB of text and 105 KB
// of structuredContent). Within the budget it is sent as it is. Over it,
// the longest strings are cut to their head and tail around the marker the
// text carries (naming ref, where the whole output is kept), and then the
// longest lists to their first items, until it fits: each value keeps its
// type, so the content still has the output schema's shape.
func fitStructured(v any, maxBytes int, ref string) any {
	b, err := json.Marshal(v)
	if err != nil || maxBytes <= 0 || len(b) <= maxBytes {
		return v
	}
	var doc any
	if json.Unmarshal(b, &doc) != nil {
		return v
	}
	kept := outputcache.Kept{Ref: ref}
	for size := len(b); size > maxBytes; {
		over := size - maxBytes
		if !cutLongestString(&doc, over, kept) && !cutLongestList(&doc) {
			break
		}
		if b, err = json.Marshal(doc); err != nil {
			return v
		}
		size = len(b)
	}
	return doc
}

// walk calls f with a setter for every value below the root of v.
func walk(v *any, f func(cur any, set func(any))) {
	switch x := (*v).(type) {
	case map[string]any:
		for k, val := range x {
			f(val, func(n any) { x[k] = n })
			walk(&val, f) // maps and slices are shared: what is set inside val is set in x[k]
		}
	case []any:
		for i := range x {
			f(x[i], func(n any) { x[i] = n })
			walk(&x[i], f)
		}
	}
}

// visit calls f for the root of doc, then for every value below it.
func visit(doc *any, f func(cur any, set func(any))) {
	f(*doc, func(n any) { *doc = n })
	walk(doc, f)
}

// cutLongestString cuts the longest string by over bytes and a little more
// (the marker's own), keeping its head and tail; false when no string is
// long enough to be worth cutting.
func cutLongestString(doc *any, over int, kept outputcache.Kept) bool {
	var longest string
	var set func(any)
	visit(doc, func(cur any, s func(any)) {
		if str, ok := cur.(string); ok && len(str) > len(longest) {
			longest, set = str, s
		}
	})
	if len(longest) < 512 {
		return false
	}
	keep := max(len(longest)-over-256, len(longest)/4)
	head, tail := cutAt(longest[:keep/2]), longest[len(longest)-keep/2:]
	omitted := longest[len(head) : len(longest)-len(tail)]
	head, tail = strings.ToValidUTF8(head, ""), strings.ToValidUTF8(tail, "") // not a rune cut in two
	marker := outputcache.Marker(int64(strings.Count(omitted, "\n")), int64(len(omitted)), kept)
	set(head + "\n" + marker + "\n" + tail)
	return true
}

// cutAt ends s at its last line break, when it has one in its second half.
func cutAt(s string) string {
	if i := strings.LastIndexByte(s, '\n'); i >= len(s)/2 {
		return s[:i+1]
	}
	return s
}

// cutLongestList halves the longest list; false when no list has more
// than one item.
func cutLongestList(doc *any) bool {
	var longest []any
	var set func(any)
	visit(doc, func(cur any, s func(any)) {
		if l, ok := cur.([]any); ok && len(l) > len(longest) {
			longest, set = l, s
		}
	})
	if len(longest) < 2 {
		return false
	}
	set(longest[:len(longest)/2])
	return true
}
