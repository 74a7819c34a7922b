package tools

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"strings"
	"unicode/utf8"

	"github.com/quiverkit/quiver/tool"
	"github.com/quiverkit/quiver/workspace"
)

// Where a write tool may write: the checks every tool that creates or
// replaces a file makes on the path it was given, before writing.

// maxPathBytes bounds a path argument: longer paths cannot name a file on
// Linux (PATH_MAX), and refusing them early keeps create_dirs from making a
// deep chain of directories before the name fails.
const maxPathBytes = 4096

// pathArg resolves the "path" argument p of a call in the call's
// workspace: the workspace, and p relative to its root.
func pathArg(ctx context.Context, tc tool.Context, p string) (*workspace.Workspace, string, error) {
	if len(p) > maxPathBytes {
		return nil, "", tool.Errorf(tool.CodeInvalidArguments, "field \"path\": %d bytes long; paths are at most %d bytes", len(p), maxPathBytes)
	}
	ws, err := workspace.From(ctx, tc)
	if err != nil {
		return nil, "", err
	}
	rel, err := ws.Rel(p)
	if err != nil {
		return nil, "", err
	}
	return ws, rel, nil
}

// writablePath checks a path a writing tool was given and returns the
// workspace and the path relative to its root. Paths that are not valid
// UTF-8 (or hold U+FFFD, which is what invalid bytes become in JSON) are
// refused: a model cannot name such a file reliably, and write tools must
// not create names it did not mean.
func writablePath(ctx context.Context, tc tool.Context, p string) (*workspace.Workspace, string, error) {
	if len(p) <= maxPathBytes && (!utf8.ValidString(p) || strings.ContainsRune(p, utf8.RuneError)) {
		return nil, "", tool.Errorf(tool.CodeInvalidArguments, "field \"path\": %q is not valid UTF-8 (or holds U+FFFD); this tool only writes files whose names are valid UTF-8", p)
	}
	ws, rel, err := pathArg(ctx, tc, p)
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
