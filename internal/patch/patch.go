package patch

import (
	"fmt"
	"path"
	"strings"

	"github.com/quiverkit/quiver/tool"
)

// Format is the syntax a patch was written in.
type Format string

// The formats [Parse] understands.
const (
	FormatBeginPatch Format = "begin-patch" // "*** Begin Patch" ... "*** End Patch"
	FormatUnified    Format = "unified"     // unified diff, as git diff writes it
)

// Op is what a patch does to one file.
type Op string

// The operations. A [FilePatch] is one of add, delete or update; an update
// with MoveTo set reports as move (or copy, for a unified diff's copy).
const (
	OpAdd    Op = "add"
	OpDelete Op = "delete"
	OpUpdate Op = "update"
	OpMove   Op = "move"
	OpCopy   Op = "copy"
)

// Patch is a parsed patch: what to do to each file, in order.
type Patch struct {
	Format Format
	Files  []FilePatch
}

// FilePatch is the change to one file.
type FilePatch struct {
	Op      Op     // OpAdd, OpDelete or OpUpdate
	Path    string // as written in the patch
	MoveTo  string // OpUpdate: the new name, or ""
	Copy    bool   // MoveTo is a copy: Path stays (unified diff "copy to")
	Content []byte // OpAdd: the new file's bytes
	Hunks   []Hunk // OpUpdate
	Line    int    // 1-based line of the patch text where this file's section starts
}

// LineKind says what a hunk line does.
type LineKind byte

// The line kinds, written as their prefix character.
const (
	Context LineKind = ' '
	Delete  LineKind = '-'
	Add     LineKind = '+'
)

// Line is one line of a hunk.
type Line struct {
	Kind LineKind
	Text string // without the prefix and without a line terminator
	// Bare marks an empty context line written without its ' ' prefix; a run
	// of them at the end of a hunk is dropped if the hunk does not match with
	// them (models put blank lines between hunks).
	Bare bool
}

// Hunk is one change inside a file: context and removed lines to find, and
// what to put in their place.
type Hunk struct {
	// Headers are the "@@ text" lines, outermost first (class, then method):
	// each is found in turn, and the hunk is searched for after the last.
	Headers []string
	Lines   []Line
	// EOF anchors the hunk at the end of the file (*** End of File).
	EOF bool
	// OldLine is a position hint, valid when HasPos: the 1-based line where
	// the hunk's old lines start (a hunk with no old lines is inserted before
	// it).
	OldLine int
	HasPos  bool
	// OldNoEOL and NewNoEOL record "\ No newline at end of file" markers
	// after the hunk's last old-side and new-side line.
	OldNoEOL, NewNoEOL bool
	// PatchLine is the 1-based line of the patch text where the hunk starts.
	PatchLine int
}

// Paths returns every path the patch names (sources and move targets), in
// order, cleaned but not resolved against any workspace. Policy rules match
// them.
func (p *Patch) Paths() []string {
	var out []string
	seen := map[string]bool{}
	add := func(s string) {
		if s == "" {
			return
		}
		s = path.Clean(s)
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	for _, f := range p.Files {
		add(f.Path)
		add(f.MoveTo)
	}
	return out
}

// header returns how a hunk is named in messages: its first @@ header, or "".
func (h *Hunk) header() string {
	if len(h.Headers) == 0 {
		return ""
	}
	return strings.Join(h.Headers, " / ")
}

// parseError is the error every parse failure returns: INVALID_ARGUMENTS,
// naming the line of the patch text.
func parseError(line int, format string, args ...any) *tool.Error {
	msg := fmt.Sprintf(format, args...)
	if line > 0 {
		msg = fmt.Sprintf("patch line %d: %s", line, msg)
	}
	e := tool.Errorf(tool.CodeInvalidArguments, "%s", msg)
	if line > 0 {
		e.WithDetail("line", line)
	}
	return e
}
