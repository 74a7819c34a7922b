package tools

import (
	"errors"
	"fmt"
	"io/fs"
	"path"

	"github.com/quiverkit/quiver/tool"
	"github.com/quiverkit/quiver/workspace"
)

// What every tool that creates or replaces a file checks on disk before
// writing; the path itself is checked by pathArg.

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
