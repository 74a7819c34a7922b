package patch

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/bluekeyes/go-gitdiff/gitdiff"
)

// looksUnified reports whether lines hold a unified diff file header.
func looksUnified(lines []string) bool {
	for i, l := range lines {
		if strings.HasPrefix(l, "diff --git ") {
			return true
		}
		if strings.HasPrefix(l, "--- ") && i+1 < len(lines) && strings.HasPrefix(lines[i+1], "+++ ") {
			return true
		}
	}
	return false
}

// The package's regular expressions are compiled on first use, not when the
// package is initialised: compiling them costs every process that links the
// package, most of which never read a patch.
var (
	hunkHeader = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^@@ -(\d+)(?:,\d+)? \+(\d+)(?:,\d+)? @@(.*)$`)
	})
	// gitdiffLine is how go-gitdiff (v0.9.0) says where a parse failed: its
	// errors are plain fmt.Errorf values, "gitdiff: line N: ...", with no type
	// or field to ask instead. Only the line number shown to the model is
	// read from it; a message of another form is shown whole.
	gitdiffLine = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^gitdiff: line (\d+): `) })
)

// devNull is the name a unified diff gives the missing side of a created or
// deleted file.
const devNull = "/dev/null"

// parseUnified parses a unified diff through go-gitdiff, after recounting
// the hunk headers (models get the counts wrong far more often than the
// lines).
func parseUnified(lines []string, base int) (*Patch, error) {
	fixed, headerLines := recount(lines)
	files, _, err := gitdiff.Parse(strings.NewReader(strings.Join(fixed, "\n") + "\n"))
	if err != nil {
		msg := err.Error()
		line := 0
		if m := gitdiffLine().FindStringSubmatch(msg); m != nil {
			n, _ := strconv.Atoi(m[1])
			line, msg = base+n, msg[len(m[0]):]
		}
		e := parseError(line, "unified diff: %s", msg)
		e.Err = err
		return nil, e
	}
	strip := !hasGitHeader(lines) && abPrefixed(lines)
	out := &Patch{Format: FormatUnified}
	next := 0 // index into headerLines of the next fragment
	for _, f := range files {
		fp, err := fromGitdiff(f, strip)
		if err != nil {
			return nil, err
		}
		for i := range fp.Hunks {
			if next < len(headerLines) {
				fp.Hunks[i].PatchLine = base + headerLines[next] + 1
			}
			next++
		}
		if fp.Op == OpUpdate && len(fp.Hunks) == 0 && fp.MoveTo == "" {
			continue // a mode change only: apply_patch does not change modes
		}
		out.Files = append(out.Files, fp)
	}
	if len(out.Files) == 0 {
		return nil, parseError(0, "the unified diff changes no file content (only modes, or nothing): there is nothing to apply")
	}
	return out, nil
}

// recount rewrites each hunk header's line counts to match the lines that
// follow it, and returns the indexes of the hunk headers.
func recount(lines []string) ([]string, []int) {
	out := append([]string(nil), lines...)
	var headers []int
	for i := 0; i < len(out); i++ {
		m := hunkHeader().FindStringSubmatch(out[i])
		if m == nil {
			continue
		}
		headers = append(headers, i)
		end := i + 1
		for end < len(out) && inHunk(out, end) {
			end++
		}
		for end > i+1 && out[end-1] == "" {
			end-- // blank lines after a hunk separate; they are not context
		}
		oldN, newN := 0, 0
		for _, l := range out[i+1 : end] {
			switch {
			case l == "" || l[0] == ' ':
				oldN++
				newN++
			case l[0] == '-':
				oldN++
			case l[0] == '+':
				newN++
			}
		}
		out[i] = fmt.Sprintf("@@ -%s,%d +%s,%d @@%s", m[1], oldN, m[2], newN, m[3])
		i = end - 1
	}
	return out, headers
}

// inHunk reports whether lines[j] continues a hunk body.
func inHunk(lines []string, j int) bool {
	l := lines[j]
	switch {
	case strings.HasPrefix(l, "@@ "), strings.HasPrefix(l, "diff --git "):
		return false
	case strings.HasPrefix(l, "--- ") && j+1 < len(lines) && strings.HasPrefix(lines[j+1], "+++ "):
		return false
	case l == "":
		return true
	}
	switch l[0] {
	case ' ', '-', '+', '\\':
		return true
	}
	return false
}

func hasGitHeader(lines []string) bool {
	for _, l := range lines {
		if strings.HasPrefix(l, "diff --git ") {
			return true
		}
	}
	return false
}

// abPrefixed reports whether a plain (non-git) unified diff names its files
// "a/..." and "b/..." as git and most tools do, so that one leading component
// is to be stripped (patch -p1).
func abPrefixed(lines []string) bool {
	seen := false
	for i := 0; i+1 < len(lines); i++ {
		if !strings.HasPrefix(lines[i], "--- ") || !strings.HasPrefix(lines[i+1], "+++ ") {
			continue
		}
		oldName := headerName(lines[i][4:])
		newName := headerName(lines[i+1][4:])
		if oldName != devNull && !strings.HasPrefix(oldName, "a/") ||
			newName != devNull && !strings.HasPrefix(newName, "b/") {
			return false
		}
		seen = true
	}
	return seen
}

func headerName(s string) string {
	if i := strings.IndexByte(s, '\t'); i >= 0 {
		s = s[:i]
	}
	return strings.Trim(strings.TrimSpace(s), `"`)
}

func stripAB(name string) string {
	if strings.HasPrefix(name, "a/") || strings.HasPrefix(name, "b/") {
		return name[2:]
	}
	return name
}

// fromGitdiff converts one parsed file of a unified diff.
func fromGitdiff(f *gitdiff.File, strip bool) (FilePatch, error) {
	oldName, newName := f.OldName, f.NewName
	if strip {
		oldName, newName = stripAB(oldName), stripAB(newName)
	}
	if f.IsBinary {
		return FilePatch{}, parseError(0, "the diff of %s is binary: apply_patch applies text diffs only", firstNonEmpty(newName, oldName))
	}
	switch {
	case f.IsNew:
		var b strings.Builder
		for _, frag := range f.TextFragments {
			for _, l := range frag.Lines {
				b.WriteString(l.Line)
			}
		}
		return FilePatch{Op: OpAdd, Path: newName, Content: []byte(b.String())}, checkPath(newName, 0)
	case f.IsDelete:
		return FilePatch{Op: OpDelete, Path: oldName}, checkPath(oldName, 0)
	}
	fp := FilePatch{Op: OpUpdate, Path: oldName}
	if newName != oldName {
		fp.MoveTo, fp.Copy = newName, f.IsCopy
	}
	for _, frag := range f.TextFragments {
		fp.Hunks = append(fp.Hunks, fromFragment(frag))
	}
	return fp, checkPath(oldName, 0)
}

func fromFragment(frag *gitdiff.TextFragment) Hunk {
	h := Hunk{OldLine: int(frag.OldPosition), HasPos: true}
	if frag.OldLines == 0 {
		h.OldLine++ // an empty old range names the line it inserts after
	}
	// frag.Comment (git's function context) is not searched: the line
	// number places the hunk, and the comment may lie far above it.
	for _, l := range frag.Lines {
		text := strings.TrimSuffix(l.Line, "\n")
		var kind LineKind
		switch l.Op {
		case gitdiff.OpAdd:
			kind = Add
		case gitdiff.OpDelete:
			kind = Delete
		default:
			kind = Context
		}
		h.Lines = append(h.Lines, Line{Kind: kind, Text: text})
		if l.NoEOL() {
			h.OldNoEOL = h.OldNoEOL || l.Old()
			h.NewNoEOL = h.NewNoEOL || l.New()
		}
	}
	return h
}

func firstNonEmpty(s ...string) string {
	for _, v := range s {
		if v != "" {
			return v
		}
	}
	return ""
}
