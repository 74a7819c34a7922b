package patch

import (
	"regexp"
	"strconv"
	"strings"
	"sync"
)

// The Begin Patch markers. They are recognised with surrounding whitespace
// and in any letter case.
const (
	markBegin  = "*** Begin Patch"
	markEnd    = "*** End Patch"
	markAdd    = "*** Add File:"
	markDelete = "*** Delete File:"
	markUpdate = "*** Update File:"
	markMove   = "*** Move to:"
	markEOF    = "*** End of File"
)

// Parse reads a patch in the Begin Patch format or as a unified diff. It
// strips what models wrap patches in (a heredoc such as <<'EOF' ... EOF, a
// Markdown code fence, blank lines), then decides the format from the first
// line. A failure is an INVALID_ARGUMENTS *tool.Error naming the line.
func Parse(text string) (*Patch, error) {
	if strings.TrimSpace(text) == "" {
		return nil, parseError(0, "the patch is empty: send a patch that starts with %q and ends with %q", markBegin, markEnd)
	}
	lines := strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n")
	first, last := unwrap(lines)
	body := lines[first:last]
	if len(body) == 0 {
		return nil, parseError(0, "the patch is empty: nothing inside its wrapper")
	}
	if isMarker(body[0], markBegin) {
		return parseBeginPatch(body, first)
	}
	if looksUnified(body) {
		return parseUnified(body, first)
	}
	return nil, parseError(first+1, "bad header %q: a patch starts with %q (or is a unified diff with --- and +++ file headers)",
		clip(strings.TrimSpace(body[0])), markBegin)
}

// heredocOpen matches the line that opens a heredoc around a patch
// (apply_patch <<'EOF'). Compiled on first use (start-up cost).
var heredocOpen = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^\s*(?:apply_patch\s*|applypatch\s*)?<<-?\s*(['"]?)([A-Za-z_][A-Za-z0-9_]*)(['"]?)\s*$`)
})

// unwrap returns the range of lines inside the wrappers models put around a
// patch: blank lines, a heredoc (<<'EOF' ... EOF), a code fence (```diff ...
// ```), in any nesting.
func unwrap(lines []string) (first, last int) {
	first, last = 0, len(lines)
	for {
		for first < last && strings.TrimSpace(lines[first]) == "" {
			first++
		}
		for last > first && strings.TrimSpace(lines[last-1]) == "" {
			last--
		}
		if last-first < 2 {
			return first, last
		}
		open, close := lines[first], strings.TrimSpace(lines[last-1])
		if m := heredocOpen().FindStringSubmatch(open); m != nil && m[1] == m[3] && close == m[2] {
			first, last = first+1, last-1
			continue
		}
		if strings.HasPrefix(strings.TrimSpace(open), "```") && close == "```" {
			first, last = first+1, last-1
			continue
		}
		return first, last
	}
}

// isMarker reports whether line is the marker m, ignoring surrounding
// whitespace and letter case.
func isMarker(line, m string) bool {
	return strings.EqualFold(strings.TrimSpace(line), m)
}

// markerArg returns the text after marker m (a "*** Xxx:" marker) on line,
// trimmed, and whether line is that marker.
func markerArg(line, m string) (string, bool) {
	t := strings.TrimSpace(line)
	if len(t) < len(m) || !strings.EqualFold(t[:len(m)], m) {
		return "", false
	}
	return strings.TrimSpace(t[len(m):]), true
}

// isFileMarker reports whether line starts a new file operation or ends the
// patch.
func isFileMarker(line string) bool {
	for _, m := range []string{markAdd, markDelete, markUpdate} {
		if _, ok := markerArg(line, m); ok {
			return true
		}
	}
	return isMarker(line, markEnd)
}

// beginParser walks the lines of a Begin Patch body.
type beginParser struct {
	lines []string
	base  int // index of lines[0] in the text as sent
	i     int
	end   int // index of the *** End Patch line
}

func (p *beginParser) lineNo(i int) int { return p.base + i + 1 }

func parseBeginPatch(lines []string, base int) (*Patch, error) {
	p := &beginParser{lines: lines, base: base, i: 1, end: -1}
	for i := 1; i < len(lines); i++ {
		if isMarker(lines[i], markEnd) {
			p.end = i
			break
		}
	}
	switch {
	case p.end < 0:
		return nil, parseError(p.lineNo(len(lines)-1), "the patch has no %q line: the last line must be %q (was the patch cut short?)", markEnd, markEnd)
	case p.end != len(lines)-1:
		return nil, parseError(p.lineNo(p.end+1), "text after %q: send one patch per call, and nothing after its end marker", markEnd)
	}
	out := &Patch{Format: FormatBeginPatch}
	for {
		for p.i < p.end && strings.TrimSpace(p.lines[p.i]) == "" {
			p.i++
		}
		if p.i >= p.end {
			break
		}
		f, err := p.fileOp()
		if err != nil {
			return nil, err
		}
		out.Files = append(out.Files, f)
	}
	if len(out.Files) == 0 {
		return nil, parseError(p.lineNo(p.end), "the patch is empty: it has no %q, %q or %q section", markAdd, markDelete, markUpdate)
	}
	return out, nil
}

// fileOp parses one file section starting at p.i.
func (p *beginParser) fileOp() (FilePatch, error) {
	line := p.lines[p.i]
	at := p.lineNo(p.i)
	if arg, ok := markerArg(line, markAdd); ok {
		if err := checkPath(arg, at); err != nil {
			return FilePatch{}, err
		}
		p.i++
		content, err := p.addContent(arg)
		return FilePatch{Op: OpAdd, Path: arg, Content: content, Line: at}, err
	}
	if arg, ok := markerArg(line, markDelete); ok {
		p.i++
		return FilePatch{Op: OpDelete, Path: arg, Line: at}, checkPath(arg, at)
	}
	if arg, ok := markerArg(line, markUpdate); ok {
		if err := checkPath(arg, at); err != nil {
			return FilePatch{}, err
		}
		p.i++
		return p.update(arg, at)
	}
	return FilePatch{}, parseError(at, "bad header %q: expected %q, %q or %q followed by a path",
		clip(strings.TrimSpace(line)), markAdd+" PATH", markDelete+" PATH", markUpdate+" PATH")
}

func checkPath(p string, line int) error {
	switch {
	case p == "":
		return parseError(line, "the file marker has no path after it")
	case strings.IndexByte(p, 0) >= 0:
		return parseError(line, "path %q contains a NUL byte", p)
	}
	return nil
}

// addContent reads the '+' lines of an Add File section. A blank line
// between '+' lines is taken as an empty line of the file (models drop the
// '+' of empty lines); anything else that is not a marker is an error.
func (p *beginParser) addContent(path string) ([]byte, error) {
	var b strings.Builder
	for p.i < p.end {
		line := p.lines[p.i]
		switch {
		case strings.HasPrefix(line, "+"):
			b.WriteString(line[1:])
			b.WriteByte('\n')
			p.i++
			continue
		case strings.TrimSpace(line) == "" && p.moreAddLines():
			b.WriteByte('\n')
			p.i++
			continue
		case strings.TrimSpace(line) == "" || isFileMarker(line):
			return []byte(b.String()), nil
		}
		return nil, parseError(p.lineNo(p.i), "in %q every line of the new file starts with '+', this one does not: %q", markAdd+" "+path, clip(line))
	}
	return []byte(b.String()), nil
}

// moreAddLines reports whether a '+' line follows the blank lines at p.i.
func (p *beginParser) moreAddLines() bool {
	for j := p.i; j < p.end; j++ {
		if strings.TrimSpace(p.lines[j]) != "" {
			return strings.HasPrefix(p.lines[j], "+")
		}
	}
	return false
}

// update parses an Update File section: an optional Move to, then hunks.
func (p *beginParser) update(path string, at int) (FilePatch, error) {
	f := FilePatch{Op: OpUpdate, Path: path, Line: at}
	if p.i < p.end {
		if arg, ok := markerArg(p.lines[p.i], markMove); ok {
			if err := checkPath(arg, p.lineNo(p.i)); err != nil {
				return f, err
			}
			f.MoveTo = arg
			p.i++
		}
	}
	hunks, err := p.hunks(path)
	if err != nil {
		return f, err
	}
	f.Hunks = hunks
	if len(hunks) == 0 && f.MoveTo == "" {
		return f, parseError(at, "%q has no hunks: add '@@' and the lines to change, or use %q", markUpdate+" "+path, markDelete)
	}
	return f, nil
}

// hunks parses the hunks of one Update File section, up to the next file
// marker.
func (p *beginParser) hunks(path string) ([]Hunk, error) {
	var out []Hunk
	var cur *Hunk
	closeHunk := func() error {
		if cur == nil {
			return nil
		}
		if len(cur.Lines) == 0 {
			return parseError(cur.PatchLine, "a hunk of %q has an @@ line but no lines to change", path)
		}
		out = append(out, *cur)
		cur = nil
		return nil
	}
	for ; p.i < p.end; p.i++ {
		line := p.lines[p.i]
		at := p.lineNo(p.i)
		switch {
		case isFileMarker(line):
			return out, closeHunk()
		case isMarker(line, markEOF):
			if cur == nil || len(cur.Lines) == 0 {
				return nil, parseError(at, "%q must follow the lines of a hunk", markEOF)
			}
			cur.EOF = true
			if err := closeHunk(); err != nil {
				return nil, err
			}
		case strings.HasPrefix(strings.TrimLeft(line, " \t"), "@@"):
			if cur != nil && len(cur.Lines) > 0 {
				if err := closeHunk(); err != nil {
					return nil, err
				}
			}
			if cur == nil {
				cur = &Hunk{PatchLine: at}
			}
			parseHeader(cur, strings.TrimSpace(line)[2:])
		case strings.HasPrefix(line, `\`):
			if cur == nil || len(cur.Lines) == 0 {
				return nil, parseError(at, "%q must follow a line of a hunk", clip(line))
			}
			markNoEOL(cur)
		case strings.TrimSpace(line) == "" && cur == nil:
			// blank lines before or between hunks
		case strings.TrimSpace(line) == "" || line[0] == ' ' || line[0] == '-' || line[0] == '+':
			if cur == nil {
				if len(out) > 0 {
					return nil, parseError(at, "expected '@@' to start the next hunk of %q before %q", path, clip(line))
				}
				cur = &Hunk{PatchLine: at}
			}
			cur.Lines = append(cur.Lines, hunkLine(line))
		default:
			return nil, parseError(at, "unexpected line in a hunk of %q: %q: every line of a hunk starts with ' ' (context), '-' (remove) or '+' (add), and a new hunk starts with '@@'", path, clip(line))
		}
	}
	return out, closeHunk()
}

func hunkLine(line string) Line {
	if line == "" || line[0] != ' ' && strings.TrimSpace(line) == "" {
		return Line{Kind: Context, Bare: true}
	}
	return Line{Kind: LineKind(line[0]), Text: line[1:]}
}

// markNoEOL records a "\ No newline at end of file" marker after the hunk's
// last line.
func markNoEOL(h *Hunk) {
	switch h.Lines[len(h.Lines)-1].Kind {
	case Delete:
		h.OldNoEOL = true
	case Add:
		h.NewNoEOL = true
	default:
		h.OldNoEOL, h.NewNoEOL = true, true
	}
}

// unifiedRange matches a unified diff's range after "@@". Compiled on first
// use (start-up cost).
var unifiedRange = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^-(\d+)(?:,(\d+))?\s+\+\d+(?:,\d+)?\s*@@\s*(.*)$`)
})

// parseHeader reads the text after "@@": a context header, or a unified
// diff range ("-12,7 +12,8 @@ func f()") whose old line becomes a hint.
func parseHeader(h *Hunk, text string) {
	text = strings.TrimSpace(text)
	if m := unifiedRange().FindStringSubmatch(text); m != nil {
		start, _ := strconv.Atoi(m[1])
		if m[2] == "0" {
			// An empty old range names the line it inserts after.
			start++
		}
		h.OldLine, h.HasPos = start, true
		text = m[3]
	}
	text = strings.TrimSpace(strings.TrimSuffix(text, "@@"))
	if text != "" {
		h.Headers = append(h.Headers, text)
	}
}

// clip shortens s for quoting in a message.
func clip(s string) string {
	const max = 120
	if len(s) <= max {
		return s
	}
	return s[:max] + "..."
}
