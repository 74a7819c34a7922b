package approve

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/quiverkit/quiver/internal/visible"
	"github.com/quiverkit/quiver/policy"
	"github.com/quiverkit/quiver/tool"
)

// Bounds of what [Prompt] shows of one argument before it is asked to show
// all: a value longer is cut, and the cut is said, with how much is hidden.
const (
	maxShownLines = 200
	maxShownBytes = 8 << 10
)

// Show renders every argument of a call for a person to approve, with
// nothing cut and every control or invisible character shown as an escape
// (package internal/visible). The arguments that say what a tool does come
// first in the tool's own form, as its view shows them (req.View, the
// tool's [tool.View]): a command line ("$ ..."), a patch, an edit's old and
// new text as removed and added lines. Every other argument follows as
// "name: value", sorted by name: all of a tool's without a view of its own.
// A last line says how many characters were escaped, when any were.
func Show(req policy.Request) string {
	text, _ := render(req, false)
	return text
}

// shownArg is one argument as a person sees it.
type shownArg struct {
	label  string // "$", "argv", "-", "+", "name:"
	value  string // the raw value: a string's text, else compact JSON
	header string // a line before the value ("@@ edit 2", a path)
	what   string // how a cut note names the value ("the patch"); "" by its label
}

// render is [Show]; with cut, a value longer than maxShownLines lines or
// maxShownBytes bytes is cut and the cut said, and cut reports whether
// anything was.
func render(req policy.Request, cut bool) (text string, wasCut bool) {
	var args map[string]json.RawMessage
	if err := json.Unmarshal(req.Arguments, &args); err != nil || args == nil {
		// Not an object: shown whole, as one value.
		args = map[string]json.RawMessage{"arguments": req.Arguments}
	}
	shown := toolView(req.View, args)
	for _, name := range slices.Sorted(maps.Keys(args)) {
		shown = append(shown, shownArg{label: visible.String(name) + ":", value: valueText(args[name])})
	}
	var b strings.Builder
	escaped := 0
	for _, a := range shown {
		if a.header != "" {
			h, n := visible.Text(a.header)
			escaped += n
			fmt.Fprintf(&b, "  %s\n", h)
		}
		n, c := writeValue(&b, a, cut)
		escaped += n
		wasCut = wasCut || c
	}
	if escaped > 0 {
		fmt.Fprintf(&b, "  (%d control or invisible characters are shown as escapes such as \\x1b or \\u202e; any other backslash is the text's own)\n", escaped)
	}
	return strings.TrimRight(b.String(), "\n"), wasCut
}

// toolView takes from args the arguments the tool's own view shows
// ([tool.View].Show), in that form; the rest stay in args.
func toolView(view tool.View, args map[string]json.RawMessage) []shownArg {
	if view.Show == nil {
		return nil
	}
	var out []shownArg
	for _, s := range view.Show(args) {
		out = append(out, shownArg{header: s.Header, label: s.Label, value: s.Value, what: s.What})
	}
	return out
}

// valueText is a value as shown: a string's text, anything else its JSON.
func valueText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var v any
	if json.Unmarshal(raw, &v) == nil {
		if b, err := json.Marshal(v); err == nil {
			return string(b)
		}
	}
	return string(raw)
}

// writeValue writes a's value line by line, each line after a's label
// (an edit's "- ", a command's "$ ") or, for a named argument, the first
// line after its name and the rest indented under it. With cut, it stops
// at maxShownLines lines or maxShownBytes bytes and says what it left out.
// It returns how many characters it escaped and whether it cut.
func writeValue(b *strings.Builder, a shownArg, cut bool) (escaped int, wasCut bool) {
	if a.label == "" && a.value == "" {
		return 0, false
	}
	value := a.value
	var hidden int
	if cut {
		value, hidden = cutValue(value)
	}
	lines := strings.Split(strings.TrimSuffix(value, "\n"), "\n")
	first, rest := "  ", "  "
	switch {
	case a.label == "$":
		first, rest = "  $ ", "    "
	case strings.HasSuffix(a.label, ":"):
		first, rest = "  "+a.label+" ", "    "
	case a.label != "":
		first, rest = "  "+a.label+" ", "  "+a.label+" "
	}
	for i, l := range lines {
		shown, n := visible.Text(l)
		escaped += n
		prefix := rest
		if i == 0 {
			prefix = first
		}
		if shown == "" {
			prefix = strings.TrimRight(prefix, " ")
		}
		b.WriteString(prefix + shown + "\n")
	}
	if hidden > 0 {
		fmt.Fprintf(b, "  [... %s more bytes of %s not shown: answer s to see everything]\n", fmt.Sprint(hidden), describeArg(a))
	}
	return escaped, hidden > 0
}

// describeArg names a's value in the note that says it was cut.
func describeArg(a shownArg) string {
	if a.what != "" {
		return a.what
	}
	switch a.label {
	case "$":
		return "the command"
	case "", "-", "+":
		return "this text"
	}
	return strings.TrimSuffix(a.label, ":")
}

// cutValue keeps the first maxShownLines lines and maxShownBytes bytes of
// v, at a character boundary, and says how many bytes it left out.
func cutValue(v string) (string, int) {
	keep := len(v)
	if keep > maxShownBytes {
		keep = maxShownBytes
	}
	if i := nthIndex(v, '\n', maxShownLines); i >= 0 && i < keep {
		keep = i + 1
	}
	for keep < len(v) && keep > 0 && !utf8.RuneStart(v[keep]) {
		keep--
	}
	return v[:keep], len(v) - keep
}

func nthIndex(s string, c byte, n int) int {
	for i := 0; i < len(s); i++ {
		if s[i] == c {
			if n--; n == 0 {
				return i
			}
		}
	}
	return -1
}
