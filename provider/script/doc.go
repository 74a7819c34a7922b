// Package script serves executables in a directory (.quiver/tools/ under
// the workspace root by default; [tools.scripts] dir) as tools.
//
// A script describes itself in its leading comment block, so the tool and
// its documentation cannot drift apart and no second file is needed:
//
//	#!/bin/sh
//	# quiver: description Count the lines of a file.
//	# quiver: description (further description lines are joined)
//	# quiver: param path string required The file to count, relative to the workspace.
//	# quiver: param verbose boolean Print the file name too.
//	# quiver: timeout 30
//	jq -r .path | xargs wc -l
//
// # Directives
//
// Directives: description TEXT; param NAME TYPE [required] TEXT, where TYPE
// is string, integer, number or boolean; risk low|high; timeout SECONDS
// (default 60). Only the comment block at the top of the file is read
// (lines starting with '#', the first of which may be the #! line); an
// unknown directive or a bad value makes the script skipped.
//
// # Risk
//
// Every script is high-risk (asked about, and refused under the read-only
// write scope) unless the operator names it in quiver.toml:
//
//	[tools.scripts]
//	low_risk = ["count"]
//
// A script cannot lower its own risk: "# quiver: risk low" alone changes
// nothing, since the directory is part of the workspace and whoever writes
// there would choose which programs run unapproved. "# quiver: risk high"
// is honoured even over low_risk. A symbolic link stays high-risk: its
// content is wherever it points. The write tools, for their part, never
// leave a file they rewrite in .quiver/tools executable (see package
// workspace), so an approved edit of a script does not make the new content
// runnable by the next call.
//
// # Names and skipped files
//
// The tool's name is the file name without its extension, with characters
// outside [A-Za-z0-9_-] replaced by '_'. Files that are not executable, or
// have no "# quiver:" header, are skipped and reported ([Provider.Skipped];
// when no script is usable at all, as the provider's error).
//
// # Running
//
// A call runs the script directly — no shell, so an argument can never
// become a command — with the JSON arguments on standard input, the
// workspace root as its directory, the same minimal environment as
// exec_command, and its own process group, killed whole on timeout or
// cancellation. Standard output is the result; a non-zero exit is an error
// result carrying the exit code and the tail of standard error. The
// directory is read again on every registry refresh.
//
// A script the host pins by its digest ([Options] Pinned) is checked again
// as each call starts, and what runs is the content that was hashed,
// sealed in memory (sandbox.Process.Sealed): replacing the file between
// the check and the start changes nothing. The interpreter of such a #!
// script reads it as /dev/fd/3, which is therefore its $0 (a script that
// finds files beside itself by $0 must name them from the workspace root,
// its working directory, instead).
package script
