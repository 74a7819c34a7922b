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
//	# quiver: risk low
//	# quiver: timeout 30
//	jq -r .path | xargs wc -l
//
// Directives: description TEXT; param NAME TYPE [required] TEXT, where TYPE
// is string, integer, number or boolean; risk low|high (default high);
// timeout SECONDS (default 60). Only the comment block at the top of the
// file is read (lines starting with '#', the first of which may be the
// #! line); an unknown directive or a bad value makes the script skipped.
//
// The tool's name is the file name without its extension, with characters
// outside [A-Za-z0-9_-] replaced by '_'. Files that are not executable, or
// have no "# quiver:" header, are skipped and reported ([Provider.Skipped];
// when no script is usable at all, as the provider's error).
//
// A call runs the script directly — no shell, so an argument can never
// become a command — with the JSON arguments on standard input, the
// workspace root as its directory, the same minimal environment as
// exec_command, and its own process group, killed whole on timeout or
// cancellation. Standard output is the result; a non-zero exit is an error
// result carrying the exit code and the tail of standard error. The
// directory is read again on every registry refresh.
package script
