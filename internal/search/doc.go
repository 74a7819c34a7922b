// Package search is the engine behind glob_search, grep_search and
// search_code: a parallel directory walker and a line matcher, built to be
// fast enough that nobody needs ripgrep, and to give exactly ripgrep's
// answers so that the rg-backed CLI provider and the built-in tools agree.
//
// # Walker
//
// [Walk] visits a workspace directory with one goroutine per core. Every
// directory and file is opened relative to its parent's descriptor, one name
// at a time, with O_NOFOLLOW, so the walk cannot be led out of the workspace
// by a symlink or a rename race; the start directory is opened through the
// workspace's os.Root. It honours .gitignore (nested files, negation,
// anchoring, directory-only rules, .git/info/exclude), .ignore and
// .quiverignore through package workspace's matcher; skips hidden names
// unless asked and .git always; and reports symlinks without following them
// unless [WalkOptions].FollowSymlinks is set (then only links that stay
// inside the workspace are followed, and a link back to an ancestor
// directory is not entered twice).
//
// # Matcher
//
// [Compile] turns a pattern (a Go regexp, or a fixed string) into a
// [Matcher] that finds whole matching lines. A literal — the pattern itself,
// or the longest literal every match must contain — is located first with
// a byte search that runs at memory speed (the literal's rarest byte is
// found with bytes.IndexByte and the rest compared); only lines holding the
// literal are split out and, for a regexp, run through it. Case-insensitive
// ASCII literals are found the same way without lowercasing the input.
// Patterns are matched within one line: character classes never match the
// line break, and ^ and $ match at line starts and ends, as in ripgrep.
//
// # Files
//
// Each worker reads files into one reused buffer, whole when they are
// small (up to 8 MiB), else in windows, so memory stays bounded whatever
// the file size: a line longer than the window is searched in overlapping
// windows and shown by its first characters. Results show at most
// [MaxLineRunes] characters of a line, cut around its first match. A file
// is binary when it has a NUL byte; as in ripgrep, the search of a file
// stops at the read block that holds its first NUL (the blocks ripgrep's
// reader would read are followed), so a file with a NUL near its start
// yields nothing, and count mode leaves such files out.
//
// # Results
//
// A [Collector] keeps the first N results in path order (or, for globs, the
// N newest) and counts the rest, so output is deterministic, memory is
// bounded by the cap, and the totals beyond the cap are exact. Both the
// built-in backend and the CLI provider's rg and fd backends feed the same
// collectors, which is how their outputs come out identical.
//
// [Filter] gives, for files another program found, the walker's decisions
// (ignore rules the program does not know, or was told not to read) and
// their modification times; the CLI provider uses it.
//
// Where to start reading: [Grep] and [Glob] for the two searches, walk.go
// for the walker, pattern.go for how a pattern becomes a matcher.
package search
