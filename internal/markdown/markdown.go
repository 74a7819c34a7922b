// Package markdown reads what the tests that hold the documentation to the
// code need of a Markdown document: its prose lines, the section under a
// heading, and its fenced code blocks. A test that runs a README's example
// takes the block from the README through it, so that the document cannot
// drift from what works.
//
// It knows fenced code blocks (three or more ``` or ~~~, closed by a fence
// of the same character at least as long, or by the end of the document)
// and ATX headings (# to ######), and nothing else: links, tables and code
// spans are the tests' own business, on the prose lines it returns.
package markdown

import (
	"regexp"
	"strings"
)

// Doc is a Markdown document, or a section of one.
type Doc struct {
	// Prose holds the lines, those of fenced code blocks (fences included)
	// emptied, so that an index still names its line: Prose[i] is the
	// document's line Start+i.
	Prose []string
	// Start is the document's line number (1-based) of Prose[0].
	Start int
	// Blocks are the fenced code blocks, in order.
	Blocks []Block
}

// Block is a fenced code block.
type Block struct {
	Lang string // the info string's first word ("toml", "json"), or ""
	Line int    // the document's line number (1-based) of the opening fence
	Text string // the lines between the fences, each ending in a newline
}

// Parse splits text into prose and fenced code blocks.
func Parse(text string) *Doc {
	lines := strings.Split(text, "\n")
	d := &Doc{Prose: lines, Start: 1}
	var open *Block
	var fence string // the opening fence's run of ` or ~
	for i, line := range lines {
		trimmed := strings.TrimLeft(line, " \t")
		if open == nil {
			run := fenceRun(trimmed)
			if run == "" || (run[0] == '`' && strings.Contains(trimmed[len(run):], "`")) {
				continue
			}
			fence = run
			open = &Block{Line: i + 1}
			if info := strings.Fields(trimmed[len(run):]); len(info) > 0 {
				open.Lang = info[0]
			}
		} else if run := fenceRun(trimmed); run != "" && run[0] == fence[0] && len(run) >= len(fence) && strings.TrimSpace(trimmed[len(run):]) == "" {
			d.Blocks = append(d.Blocks, *open)
			open = nil
		} else {
			open.Text += line + "\n"
		}
		lines[i] = ""
	}
	if open != nil {
		d.Blocks = append(d.Blocks, *open)
	}
	return d
}

// fenceRun returns the run of three or more ` or ~ that starts line, or "".
func fenceRun(line string) string {
	if line == "" || (line[0] != '`' && line[0] != '~') {
		return ""
	}
	n := len(line) - len(strings.TrimLeft(line, line[:1]))
	if n < 3 {
		return ""
	}
	return line[:n]
}

var headingLine = regexp.MustCompile(`^(#{1,6})\s+(.*?)\s*#*\s*$`)

// Heading returns the text and level of the ATX heading line is, or
// level 0 when it is none.
func Heading(line string) (text string, level int) {
	m := headingLine.FindStringSubmatch(line)
	if m == nil {
		return "", 0
	}
	return m[2], len(m[1])
}

// Section returns the part of d under the first heading whose text is
// heading: from the heading's line to the line before the next heading of
// its level or higher, with the blocks it holds. It reports false when d
// has no such heading.
func (d *Doc) Section(heading string) (*Doc, bool) {
	from, level := -1, 0
	to := len(d.Prose)
	for i, line := range d.Prose {
		text, l := Heading(line)
		if l == 0 {
			continue
		}
		if from < 0 && text == heading {
			from, level = i, l
		} else if from >= 0 && l <= level {
			to = i
			break
		}
	}
	if from < 0 {
		return nil, false
	}
	s := &Doc{Prose: d.Prose[from:to], Start: d.Start + from}
	for _, b := range d.Blocks {
		if b.Line >= s.Start && b.Line < s.Start+len(s.Prose) {
			s.Blocks = append(s.Blocks, b)
		}
	}
	return s, true
}

// Block returns the first block of d whose language is lang.
func (d *Doc) Block(lang string) (Block, bool) {
	for _, b := range d.Blocks {
		if b.Lang == lang {
			return b, true
		}
	}
	return Block{}, false
}
