package tool

import "encoding/json"

// View is how a tool's calls are shown to people: to the person who
// approves one (package policy/approve) and on one line of a run's log
// (`quiver run`). The tool says it, so that what shows a call knows no
// tool by name. The zero View shows every argument by name and leaves
// the one-line summary to the viewer's default.
type View struct {
	// Show takes from args the arguments that say what a call does and
	// returns them in the tool's own form: exec_command's command line,
	// an edit's old and new text as removed and added lines. It deletes
	// from args what it shows; what it leaves is shown as "name: value",
	// so that no argument goes unseen. args are the call's validated
	// arguments, decoded one level. Nil shows every argument by name.
	Show func(args map[string]json.RawMessage) []Shown

	// Summary names the arguments that say most about a call, in order: a
	// call's one-line summary is the first of them that is present and
	// not empty (read_file(src/a.go)), else the arguments' JSON. Nil
	// leaves the choice to the viewer.
	Summary []string
}

// Shown is one part of a call as the person approving it sees it.
type Shown struct {
	// Header is a line shown before the value: "path: a.go", "@@ edit 2".
	Header string
	// Label marks the value's lines: "$" a command line (its first line
	// after "$ ", the rest indented under it), "-" removed text and "+"
	// added text (every line), "" none.
	Label string
	// Value is the text, shown line by line; "" with no Label shows only
	// the Header.
	Value string
	// What names the value when a prompt cuts it ("the patch"); "" names
	// it by its Label.
	What string
}

// WithView sets how the tool's calls are shown ([Tool].View).
func WithView(v View) Option { return func(c *funcConfig) { c.view = v } }
