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
// first in the tool's own form — exec_command's command line ("$ ...") or
// argv, apply_patch's patch, an edit's old and new text as removed and added
// lines, write_file's path and content — and every other argument follows
// as "name: value", sorted by name: exec_command's workdir, env, background
// and timeout_secs, and all of any other tool's. A last line says how many
// characters were escaped, when any were.
func Show(req policy.Request) string {
	text, _ := render(req, false)
	return text
}

// shownArg is one argument as a person sees it.
type shownArg struct {
	label  string // "$", "argv", "-", "+", "name:"
	value  string // the raw value: a string's text, else compact JSON
	header string // a line before the value ("@@ edit 2", a path)
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
	shown := toolView(req.Tool, args)
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

// toolView takes from args the arguments a tool's own form shows, in that
// form; the rest stay in args.
func toolView(toolName string, args map[string]json.RawMessage) []shownArg {
	take := func(name string) (string, bool) {
		raw, ok := args[name]
		var s string
		if !ok || json.Unmarshal(raw, &s) != nil {
			return "", false
		}
		delete(args, name)
		return s, true
	}
	var out []shownArg
	switch toolName {
	case "exec_command":
		if c, ok := take("command"); ok {
			out = append(out, shownArg{label: "$", value: c})
		}
	case "apply_patch":
		if p, ok := take("patch"); ok {
			out = append(out, shownArg{label: "", value: p})
		}
	case "edit":
		if _, ok := args["old_string"]; ok {
			path, _ := take("path")
			o, _ := take("old_string")
			n, _ := take("new_string")
			out = append(out, shownArg{header: "path: " + path, label: "-", value: o}, shownArg{label: "+", value: n})
		}
	case "write_file":
		if _, ok := args["content"]; ok {
			path, _ := take("path")
			c, _ := take("content")
			out = append(out, shownArg{header: "path: " + path + " (whole new content)", label: "+", value: c})
		}
	case "multi_edit":
		var edits []struct {
			OldString string `json:"old_string"`
			NewString string `json:"new_string"`
		}
		raw, ok := args["edits"]
		if !ok || json.Unmarshal(raw, &edits) != nil || !plainEdits(raw, len(edits)) {
			break
		}
		delete(args, "edits")
		path, _ := take("path")
		out = append(out, shownArg{header: "path: " + path})
		for i, e := range edits {
			out = append(out, shownArg{header: fmt.Sprintf("@@ edit %d", i+1), label: "-", value: e.OldString}, shownArg{label: "+", value: e.NewString})
		}
	}
	return out
}

// plainEdits reports whether each of n edits holds exactly old_string and
// new_string, so that showing those two shows all of them.
func plainEdits(raw json.RawMessage, n int) bool {
	var edits []map[string]json.RawMessage
	if json.Unmarshal(raw, &edits) != nil || len(edits) != n {
		return false
	}
	for _, e := range edits {
		if _, ok := e["old_string"]; !ok || len(e) != 2 {
			return false
		}
		if _, ok := e["new_string"]; !ok {
			return false
		}
	}
	return true
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

func describeArg(a shownArg) string {
	switch a.label {
	case "$":
		return "the command"
	case "":
		return "the patch"
	case "-", "+":
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
