package tools

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"strings"
	"unicode/utf8"

	"github.com/quiverkit/quiver/internal/patch"
	"github.com/quiverkit/quiver/tool"
	"github.com/quiverkit/quiver/workspace"
)

//go:embed write_file.md
var writeFileDescription string

// WriteFileInput is write_file's input.
type WriteFileInput struct {
	Path           string `json:"path" jsonschema:"the file to write, relative to the workspace root" minLength:"1"`
	Content        string `json:"content" jsonschema:"the complete new content of the file"`
	CreateDirs     *bool  `json:"create_dirs,omitempty" jsonschema:"create missing parent directories (default true)" default:"true"`
	ExpectedSHA256 string `json:"expected_sha256,omitempty" jsonschema:"overwrite only if the file's current content has this SHA-256 (read_file's content_sha256); not needed after read_file" pattern:"^[0-9a-fA-F]{64}$"`
}

// WriteFileOutput is write_file's typed output.
type WriteFileOutput struct {
	Path    string `json:"path"`
	Bytes   int    `json:"bytes"`
	Created bool   `json:"created"`        // the file did not exist before
	SHA256  string `json:"sha256"`         // of the content written
	Note    string `json:"note,omitempty"` // set when the write took the file's exec bits away (see execNote)
}

// WriteFile is a typed reference to write_file, for quiver.Call.
var WriteFile = tool.RefTo[WriteFileInput, *WriteFileOutput]("write_file")

func init() { register(newWriteFile) }

func newWriteFile() *tool.Tool {
	return tool.Func("write_file", writeFileDescription, writeFile,
		tool.WithRisk(tool.RiskHigh),
		tool.WithAnnotations(tool.Annotations{Destructive: true, Idempotent: true}),
		tool.WithSubjects(func(in WriteFileInput) []tool.Subject { return tool.PathSubject(in.Path) }))
}

func writeFile(ctx context.Context, tc tool.Context, in WriteFileInput) (*WriteFileOutput, error) {
	ws, rel, err := writablePath(ctx, tc, in.Path)
	if err != nil {
		return nil, err
	}
	out := &WriteFileOutput{Path: rel, Bytes: len(in.Content), SHA256: sha256Hex([]byte(in.Content))}
	exists, err := regularFile(ws, rel)
	if err != nil {
		return nil, err
	}
	if exists {
		current, err := hashFile(ws, rel)
		if err != nil {
			return nil, err
		}
		if current == out.SHA256 {
			recordRead(ctx, tc, rel, current)
			return out, nil // already this content: nothing can be lost, nothing to write
		}
		if err := checkOverwrite(ctx, tc, rel, current, in.ExpectedSHA256); err != nil {
			return nil, err
		}
	} else {
		if in.ExpectedSHA256 != "" {
			return nil, tool.Errorf(tool.CodeExecutionFailed, "%s does not exist, but expected_sha256 says it should; check the path, or leave expected_sha256 out to create the file", rel)
		}
		if err := ensureParent(ws, rel, in.CreateDirs == nil || *in.CreateDirs); err != nil {
			return nil, err
		}
		out.Created = true
	}
	before := fileMode(ws, rel)
	if err := ws.WriteFile(rel, []byte(in.Content), 0o644); err != nil {
		return nil, err
	}
	out.Note = execNote(ws, rel, before)
	recordRead(ctx, tc, rel, out.SHA256)
	return out, nil
}

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

// checkOverwrite enforces read-before-overwrite: the model must have seen the
// content it is about to replace, through a read or a write of this toolkit,
// or name it by hash.
func checkOverwrite(ctx context.Context, tc tool.Context, rel, current, expected string) error {
	if expected != "" {
		if !strings.EqualFold(expected, current) {
			return changedError(rel, current, expected, "expected_sha256")
		}
		return nil
	}
	seen, ok := seenSum(ctx, tc, rel)
	switch {
	case !ok:
		e := tool.Errorf(tool.CodeExecutionFailed, "%s already exists and its content has not been read in this session; call read_file on it first (or pass expected_sha256 with the SHA-256 of its current content), then write it again", rel)
		e.Retriable = true
		return e
	case seen != current:
		return changedError(rel, current, seen, "the last read")
	}
	return nil
}

func changedError(rel, current, expected, source string) *tool.Error {
	e := tool.Errorf(tool.CodeExecutionFailed, "%s has changed since %s (its SHA-256 is now %s, not %s); read it again with read_file and redo the change on its current content", rel, source, current, expected)
	e.Retriable = true
	return e.WithDetail("current_sha256", current)
}

// maxPathBytes bounds a path argument: longer paths cannot name a file on
// Linux (PATH_MAX), and refusing them early keeps create_dirs from making a
// deep chain of directories before the name fails.
const maxPathBytes = 4096

// writablePath checks a path a writing tool was given and returns the
// workspace and the path relative to its root. Paths that are not valid
// UTF-8 (or hold U+FFFD, which is what invalid bytes become in JSON) are
// refused: a model cannot name such a file reliably, and write tools must
// not create names it did not mean.
func writablePath(ctx context.Context, tc tool.Context, p string) (*workspace.Workspace, string, error) {
	switch {
	case len(p) > maxPathBytes:
		return nil, "", tool.Errorf(tool.CodeInvalidArguments, "field \"path\": %d bytes long; paths are at most %d bytes", len(p), maxPathBytes)
	case !utf8.ValidString(p) || strings.ContainsRune(p, utf8.RuneError):
		return nil, "", tool.Errorf(tool.CodeInvalidArguments, "field \"path\": %q is not valid UTF-8 (or holds U+FFFD); this tool only writes files whose names are valid UTF-8", p)
	}
	ws, err := workspace.From(ctx, tc)
	if err != nil {
		return nil, "", err
	}
	rel, err := ws.Rel(p)
	if err != nil {
		return nil, "", err
	}
	if rel == "." {
		return nil, "", tool.Errorf(tool.CodeExecutionFailed, "%q is the workspace root, a directory; give the path of a file", p)
	}
	return ws, rel, nil
}

// regularFile reports whether rel exists as a regular file (following
// symlinks inside the workspace); a directory or a device is an error that
// says what it is.
func regularFile(ws *workspace.Workspace, rel string) (bool, error) {
	fi, err := ws.Stat(rel)
	switch {
	case err != nil && isNotExist(err):
		return false, nil
	case err != nil:
		return false, err
	case fi.IsDir():
		return false, tool.Errorf(tool.CodeExecutionFailed, "%s is a directory; give the path of a file (inside it, or elsewhere)", rel)
	case !fi.Mode().IsRegular():
		return false, tool.Errorf(tool.CodeExecutionFailed, "%s is not a regular file (%s); only regular files can be written", rel, fileKind(fi.Mode()))
	}
	return true, nil
}

// ensureParent makes sure rel's directory exists, creating it when allowed.
func ensureParent(ws *workspace.Workspace, rel string, create bool) error {
	dir := path.Dir(rel)
	if dir == "." || dir == "/" {
		return nil
	}
	fi, err := ws.Stat(dir)
	switch {
	case err == nil && fi.IsDir():
		return nil
	case err == nil:
		return tool.Errorf(tool.CodeExecutionFailed, "%s: %s is not a directory", rel, dir)
	case !isNotExist(err):
		return err
	case !create:
		return tool.Errorf(tool.CodeExecutionFailed, "%s: directory %s does not exist; pass create_dirs: true to create it", rel, dir)
	}
	return ws.MkdirAll(dir, 0o755)
}

// isNotExist reports whether err is the workspace's "no such file" error
// (which wraps the system's).
func isNotExist(err error) bool { return errors.Is(err, fs.ErrNotExist) }

func fileKind(m fs.FileMode) string {
	switch {
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeDevice != 0:
		return "a device"
	case m&fs.ModeSymlink != 0:
		return "a symbolic link"
	}
	return fmt.Sprintf("mode %s", m.Type())
}
