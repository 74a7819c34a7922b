package workspace

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"

	"github.com/quiverkit/quiver/tool"
)

// beforeRename, when set by a test, runs after the temporary file is written
// and synced and before it is renamed over the target; an error aborts the
// write there.
var beforeRename func(tmp string) error

// WriteFile writes data to p atomically. See [Workspace.WriteFileFrom].
func (w *Workspace) WriteFile(p string, data []byte, perm fs.FileMode) error {
	return w.WriteFileFrom(p, bytes.NewReader(data), perm)
}

// WriteFileFrom streams r into p atomically: into a temporary file beside p,
// fsynced, then renamed over p. If p exists its mode is kept and perm is
// ignored; if p is a symlink inside the workspace, its target is written. On
// any failure p is unchanged and the temporary file is removed. Directories
// and other non-regular targets are refused.
func (w *Workspace) WriteFileFrom(p string, r io.Reader, perm fs.FileMode) error {
	root, name, err := w.locate(p)
	if err != nil {
		return err
	}
	if name, err = w.followLinks(root, p, name); err != nil {
		return err
	}
	if fi, err := root.Stat(name); err == nil {
		if !fi.Mode().IsRegular() {
			return tool.Errorf(tool.CodeExecutionFailed, "write %s: not a regular file", p)
		}
		perm = fi.Mode().Perm()
	} else if !os.IsNotExist(err) {
		return classify("write", p, err)
	}
	tmp := path.Join(path.Dir(name), "."+path.Base(name)+".quiver-"+randomSuffix())
	f, err := root.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
	if err != nil {
		return classify("write", p, err)
	}
	if err := writeAndSync(f, r); err != nil {
		root.Remove(tmp)
		return classify("write", p, err)
	}
	// The umask may have narrowed perm at creation; set it exactly.
	if err := root.Chmod(tmp, perm); err != nil {
		root.Remove(tmp)
		return classify("write", p, err)
	}
	if beforeRename != nil {
		if err := beforeRename(tmp); err != nil {
			root.Remove(tmp)
			return classify("write", p, err)
		}
	}
	if err := root.Rename(tmp, name); err != nil {
		root.Remove(tmp)
		return classify("write", p, err)
	}
	return nil
}

func writeAndSync(f *os.File, r io.Reader) error {
	_, err := io.Copy(f, r)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// followLinks resolves a final-component symlink chain of name, so that an
// atomic rename replaces the file the link points at, not the link. The
// target must stay inside the root; os.Root enforces that again on use.
func (w *Workspace) followLinks(root *os.Root, p, name string) (string, error) {
	for i := 0; i < 40; i++ {
		fi, err := root.Lstat(name)
		if err != nil || fi.Mode()&fs.ModeSymlink == 0 {
			return name, nil
		}
		target, err := root.Readlink(name)
		if err != nil {
			return "", classify("readlink", p, err)
		}
		if path.IsAbs(target) {
			return "", tool.Errorf(tool.CodeSandboxViolation, "path %q is a symbolic link to an absolute path", p)
		}
		next := path.Clean(path.Join(path.Dir(name), target))
		if next == ".." || len(next) > 2 && next[:3] == "../" {
			return "", tool.Errorf(tool.CodeSandboxViolation, "path %q is a symbolic link that leads outside the workspace", p)
		}
		name = next
	}
	return "", tool.Errorf(tool.CodeSandboxViolation, "path %q: too many levels of symbolic links", p)
}

func randomSuffix() string {
	var b [6]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic(fmt.Sprintf("crypto/rand: %v", err))
	}
	return hex.EncodeToString(b[:])
}
