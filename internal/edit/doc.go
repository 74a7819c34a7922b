// Package edit is the engine behind the edit and multi_edit tools: it finds
// where a model's old_string is in a file, even when the model got the
// whitespace, the indentation or the escaping slightly wrong, and describes
// the change as a unified diff.
//
// # Strategies, strict to loose
//
// Models copy old_string from what they read, and what they read has drifted:
// trailing spaces dropped, tabs written as spaces, gofmt's column alignment
// collapsed, quotes escaped twice, a comment in the middle remembered wrong.
// An edit tool that only matches byte for byte makes the model re-read and
// retry, and many give up. [Find] therefore tries strategies from strict to
// loose and stops at the first one that finds anything:
//
//  1. [Exact]: the bytes of old_string.
//  2. [LineTrimmed]: whole lines, each compared without trailing whitespace.
//  3. [WhitespaceNormalized]: whole lines with the same indentation, runs of
//     whitespace inside a line counted as one space; a one-line old_string
//     may also match inside a line.
//  4. [IndentationFlexible]: whole lines compared without their indentation.
//  5. [EscapeNormalized]: old_string and new_string with \n, \t, \", \\ and
//     friends unescaped, matched exactly.
//  6. [BlockAnchor]: three or more lines whose first and last lines match
//     (trimmed; one of them at least with a letter or digit, so that "}"
//     alone anchors nothing) and whose lines in between are at least
//     [MinBlockScore] similar; a weaker block is refused, never applied.
//
// # What a loose match writes
//
// What a loose strategy writes is not new_string as typed: the model's drift
// is in new_string too. A line of new_string that is an unchanged line of
// old_string (by a line diff of the two) keeps the bytes of the file line
// that old line matched; only the lines the model changed take its text,
// re-indented line by line from the old lines nearest them, so that a
// nested block sent flattened keeps its depths (rewrite.go). An edit whose
// new_string differs from old_string only in whitespace the match ignored
// would change nothing and is an [*UnchangedError].
//
// # Ambiguity and failure
//
// A strategy that finds one place wins. One that finds several is an
// [*AmbiguousError] listing their line numbers — looser strategies are not
// tried then, since they can only find more — unless the edit asks for every
// occurrence. When nothing matches, [*NotFoundError] quotes the closest region
// of the file with line numbers, so the model can correct itself in one step.
//
// # Files, diffs and cost
//
// Files are decoded by [Decode] before matching: a UTF-8 byte order mark is
// set aside and CRLF line endings become LF, and [Format.Encode] puts both back,
// so an edit never changes a file's line endings. [Compose] merges the changes
// of several edits made one after another into changes to the original text,
// and [Unified] draws them as a unified diff. Everything here works in time
// linear in the size of the file (one strategy's scan is one pass over the
// lines), which BenchmarkEdit shows on files of 25 and 50 MB.
//
// Where to start reading: [Find], then the strategies in match.go.
package edit
