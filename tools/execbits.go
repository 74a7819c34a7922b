package tools

import (
	"fmt"
	"io/fs"

	"github.com/quiverkit/quiver/internal/patch"
	"github.com/quiverkit/quiver/workspace"
)

// What the write tools tell the model about exec bits: the workspace drops
// them from files written where git and Quiver run files unasked, and the
// model must know, or it will believe a hook or script still runs.

// withNote puts a write tool's note (see execNote), if any, above its view.
func withNote(note, view string) string {
	if note == "" {
		return view
	}
	return "NOTE: " + note + "\n" + view
}

// patchSourceModes returns the mode each file of a planned patch has before
// it is applied: for a move or a copy, the mode of the file it comes from.
func patchSourceModes(ws *workspace.Workspace, files []patch.FileResult) []fs.FileMode {
	modes := make([]fs.FileMode, len(files))
	for i, f := range files {
		src := f.Path
		if f.From != "" {
			src = f.From
		}
		modes[i] = fileMode(ws, src)
	}
	return modes
}

// patchExecNotes are apply_patch's notes: one per file whose exec bits the
// patch took away (before as patchSourceModes gave them).
func patchExecNotes(ws *workspace.Workspace, files []patch.FileResult, before []fs.FileMode) []string {
	var notes []string
	for i, f := range files {
		if f.Op == patch.OpDelete {
			continue
		}
		if n := execNote(ws, f.Path, before[i]); n != "" {
			notes = append(notes, n)
		}
	}
	return notes
}

// fileMode returns rel's permission bits, following symbolic links; 0 when
// it does not exist.
func fileMode(ws *workspace.Workspace, rel string) fs.FileMode {
	fi, err := ws.Stat(rel)
	if err != nil {
		return 0
	}
	return fi.Mode().Perm()
}

// execNote is what a write tool says when its write took away the exec
// bits rel's content had (before: its mode before the write; for a move,
// the moved file's). The workspace does that in .git/hooks and
// .quiver/tools, where git and Quiver run files unasked; the model must be
// told, or it will believe the hook or script still runs. "" when nothing
// was taken away.
func execNote(ws *workspace.Workspace, rel string, before fs.FileMode) string {
	if before&0o111 == 0 || fileMode(ws, rel)&0o111 != 0 {
		return ""
	}
	return fmt.Sprintf("%s was executable and is not any more: files written in .git/hooks and .quiver/tools are left without exec bits, so that new content there never runs until a person makes it executable (chmod +x) on purpose", rel)
}
