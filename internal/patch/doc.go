// Package patch parses and applies the patches models write: the
// "*** Begin Patch" format of OpenAI's apply_patch tool, and unified diffs
// (git diff output). It is the engine behind the apply_patch tool.
//
// Where to start: [Parse] turns text into a [Patch]; [Apply] applies one to a
// file system ([FS], which *workspace.Workspace implements).
//
// # What it does that a plain patch program does not
//
//   - It is lenient where models are sloppy and the intent is unambiguous: a
//     heredoc wrapper (<<'EOF' ... EOF) or a Markdown code fence around the
//     patch, whitespace around markers, marker keywords in the wrong case, a
//     unified diff whose @@ line counts are wrong (they are recounted), a
//     unified-diff style "@@ -12,7 +12,8 @@" header inside a Begin Patch hunk
//     (the line number becomes a position hint).
//   - Context is located in steps of decreasing strictness, the first step that
//     finds it wins: exact bytes; ignoring whitespace at line ends; ignoring
//     whitespace at both ends; and with Unicode dashes, quotes and spaces
//     folded to ASCII. "@@ header" lines may also match a line that begins
//     with the header ("@@ def run" finds "def run(self, x):"). Context lines
//     keep the file's own bytes even when they were matched loosely: only the
//     lines the patch adds are the patch's. When the old lines matched only
//     with indentation ignored and every one of them is indented in the file
//     by the same extra prefix (or the same prefix less) than in the patch,
//     the added lines are shifted the same way.
//   - It is all-or-nothing across every file of the patch: every file's new
//     content is computed first, against an in-memory view in which earlier
//     operations of the same patch are visible; only if all of them succeed are
//     the files written (each atomically), created and removed. If a write
//     fails midway, the files already changed are restored from the original
//     bytes kept in memory, and files and directories created are removed.
//
// # Decisions where the format is silent
//
//   - Hunks of one file are searched in order, each from where the previous
//     one ended, so a patch with many hunks costs time proportional to the
//     file's length, not to hunks × length. A hunk whose context only occurs
//     before the previous hunk fails, and the error says so.
//   - A hunk that only adds lines is inserted right after its last @@ header
//     line; without a header (or with *** End of File) it is appended at the
//     end of the file; a unified diff's line number places it exactly.
//   - Trailing newline: a file without a final newline stays without one, and
//     a file with one keeps it, unless a hunk that reaches the end of the file
//     carries a "\ No newline at end of file" marker (git's convention, in
//     either format): after a removed line only, the new file ends with a
//     newline; after an added or context line, it does not. Add File content
//     always ends with a newline.
//   - Line endings: lines a patch adds take the file's line ending (CRLF if
//     the file's first line ends with CRLF); all other lines keep their bytes.
//   - Refused: an empty patch, a missing or unknown header, text after
//     "*** End Patch", Update or Delete of a file that does not exist, Add of
//     a path that exists, Delete of a directory or of anything that is not a
//     regular file, Move onto a path that exists (a careful tool does not
//     overwrite silently; delete the target first in the same patch), Move of
//     a symbolic link, binary diffs. Directories left empty by a Delete or a
//     Move are kept.
//   - A context line whose own text is a patch marker (" *** End of File")
//     cannot be written in the Begin Patch format, because padded markers are
//     accepted; use a unified diff for such files.
//
// # Cost
//
// A file is read whole once; its new content is a list of slices of the
// original plus the added lines, streamed to the atomic writer, never copied
// whole. Peak memory is therefore about the size of the files the patch
// touches plus the patch text (scripts/bench-patch-memory measures it on a
// file of some hundreds of megabytes; docs/performance.md has the figure).
//
// Time is linear in the file's length when context matches exactly
// (BenchmarkApplyPatch counts line comparisons: twice the file and hunks,
// twice the comparisons). A hunk that only matches loosely first has its
// exact search run to the end of the file, so a patch whose every hunk has
// drifted context costs hunks × lines comparisons (BenchmarkApplyPatchDrifted):
// the price of preferring an exact match further down to a loose one nearby.
package patch
