package edit

import (
	"fmt"
	"strconv"
	"strings"
)

// ErrEmptyOld is returned by [Find] for an empty old_string: there is
// nothing to look for (the tools treat it as "create the file").
var ErrEmptyOld = fmt.Errorf("old_string is empty")

// ErrNoChange is returned by [Find] when old_string equals new_string.
var ErrNoChange = fmt.Errorf("old_string and new_string are identical; the edit would change nothing")

// UnchangedError reports an edit that would change nothing: new_string
// differs from old_string only in whitespace the strategy that found
// old_string ignores, and such lines keep the file's text.
type UnchangedError struct {
	Strategy Strategy
}

func (e *UnchangedError) Error() string {
	return fmt.Sprintf("new_string differs from old_string only in whitespace that the match ignored (%s), so the edit would change nothing; to change whitespace, copy old_string from the file exactly", e.Strategy)
}

// AmbiguousError reports an old_string found in more than one place by an
// edit that asked for one.
type AmbiguousError struct {
	Strategy Strategy
	Lines    []int // the first line (1-based) of every match
}

func (e *AmbiguousError) Error() string {
	return fmt.Sprintf("old_string matches %d places (%s%s); add surrounding lines to old_string so that it matches only one, or set replace_all to change every one",
		len(e.Lines), listLines(e.Lines), byStrategy(e.Strategy))
}

// CountError reports a number of matches other than the expected
// replacements.
type CountError struct {
	Strategy Strategy
	Want     int
	Lines    []int
}

func (e *CountError) Error() string {
	if len(e.Lines) == 1 {
		return fmt.Sprintf("expected_replacements is %d, but old_string matches 1 place (%s%s)", e.Want, listLines(e.Lines), byStrategy(e.Strategy))
	}
	return fmt.Sprintf("expected_replacements is %d, but old_string matches %d places (%s%s)", e.Want, len(e.Lines), listLines(e.Lines), byStrategy(e.Strategy))
}

// NotFoundError reports an old_string no strategy could place. It carries the
// region of the file that looks most like it, for the model to copy from.
type NotFoundError struct {
	Tried   []Strategy
	Closest *Region    // nil when no line of the file resembles old_string
	Block   *BlockMiss // a block whose anchors matched but whose middle scored too low
}

// Region is a run of lines of a file, numbered from 1.
type Region struct {
	First, Last int
	Lines       []string // the lines First..Last, each clipped to a readable length
}

// BlockMiss is a block-anchor candidate refused for a low similarity score.
type BlockMiss struct {
	First, Last int     // the lines that matched old_string's first and last lines
	Score       float64 // similarity of the lines between, 0..1
}

func (e *NotFoundError) Error() string {
	var b strings.Builder
	b.WriteString("old_string was not found (tried ")
	for i, s := range e.Tried {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(string(s))
	}
	b.WriteString(" matching).")
	if e.Block != nil {
		fmt.Fprintf(&b, " Lines %d and %d match the first and last lines of old_string, but the lines between are only %.0f%% similar to it (%.0f%% needed).",
			e.Block.First, e.Block.Last, e.Block.Score*100, MinBlockScore*100)
	}
	if e.Closest == nil {
		b.WriteString(" No line of old_string occurs in the file; the file may have changed: read it again.")
		return b.String()
	}
	if e.Closest.First == e.Closest.Last {
		fmt.Fprintf(&b, " The closest region is line %d:\n%s", e.Closest.First, e.Closest.Numbered())
	} else {
		fmt.Fprintf(&b, " The closest region is lines %d-%d:\n%s", e.Closest.First, e.Closest.Last, e.Closest.Numbered())
	}
	return b.String()
}

// Numbered returns the region's lines prefixed with their numbers, as
// read_file shows them.
func (r *Region) Numbered() string {
	var b strings.Builder
	for i, l := range r.Lines {
		fmt.Fprintf(&b, "%6d\t%s\n", r.First+i, l)
	}
	return b.String()
}

const maxListedLines = 20

func listLines(lines []int) string {
	var b strings.Builder
	if len(lines) == 1 {
		b.WriteString("line ")
	} else {
		b.WriteString("lines ")
	}
	for i, l := range lines {
		if i == maxListedLines {
			fmt.Fprintf(&b, " and %d more", len(lines)-i)
			break
		}
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(strconv.Itoa(l))
	}
	return b.String()
}

func byStrategy(s Strategy) string {
	if s == Exact {
		return ""
	}
	return ", matched " + string(s)
}
