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
	"strings"

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
// and other non-regular targets are refused. A writer killed mid-write cannot
// remove its temporary file; the next write of p does (see removeStaleTemps).
//
// The one exception to keeping the mode: a file written in a directory whose
// files other programs run (see execGuarded) loses its exec bits, whether
// the mode came from the file being replaced or from perm (apply_patch moving
// an executable there).
func (w *Workspace) WriteFileFrom(p string, r io.Reader, perm fs.FileMode) error {
	if w.backend != nil {
		return w.readOnlyError("write", p)
	}
	root, asNamed, err := w.locate(p)
	if err != nil {
		return err
	}
	name, err := w.followLinks(root, p, asNamed)
	if err != nil {
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
	if perm&0o111 != 0 && (w.execGuarded(root, path.Dir(name)) || w.execGuarded(root, path.Dir(asNamed))) {
		perm &^= 0o111
	}
	removeStaleTemps(root, name)
	f, tmp, err := createTemp(root, name, perm)
	if err != nil {
		return classify("write", p, err)
	}
	// Closed after the rename, so that the lock on the temporary file is
	// held for as long as it exists under its name (see removeStaleTemps).
	// Its data is synced by then: a close error can lose nothing.
	defer f.Close()
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

// execGuardedDirs are the directories, relative to the workspace root, whose
// files other programs run unasked: git runs .git/hooks/* on commit, and the
// script provider serves .quiver/tools/* as tools. No write leaves a file
// there executable: whoever approved new content approved text, not a
// program that the next commit or call runs.
var execGuardedDirs = []string{".git/hooks", ".quiver/tools"}

// execGuarded reports whether dir (a name in root) is, or lies below, one
// of execGuardedDirs. Directories are compared by identity, so another
// spelling, a symbolic link to the directory, or a case-insensitive file
// system leads to the same answer; and by name, so a repository nested in
// the workspace, or one outside it under the unrestricted scope, has its
// hooks guarded too.
func (w *Workspace) execGuarded(root *os.Root, dir string) bool {
	var guards []fs.FileInfo
	for _, g := range execGuardedDirs {
		if fi, err := w.root.Stat(g); err == nil {
			guards = append(guards, fi)
		}
	}
	for d := dir; ; d = path.Dir(d) {
		if guardedName(d) {
			return true
		}
		if fi, err := root.Stat(d); err == nil {
			for _, g := range guards {
				if os.SameFile(fi, g) {
					return true
				}
			}
		}
		if d == "." || d == "/" || d == "" {
			return false
		}
	}
}

// guardedName reports whether the last two elements of dir are those of an
// execGuardedDirs entry, in any case.
func guardedName(dir string) bool {
	parent, base := path.Split(dir)
	parent = path.Base(path.Clean("/" + parent))
	for _, g := range execGuardedDirs {
		gp, gb := path.Split(g)
		if strings.EqualFold(base, gb) && strings.EqualFold(parent, path.Clean(gp)) {
			return true
		}
	}
	return false
}

func writeAndSync(f *os.File, r io.Reader) error {
	if _, err := io.Copy(f, r); err != nil {
		return err
	}
	return f.Sync()
}

// tempMarker is in the name of every temporary file of an atomic write:
// ".NAME.quiver-" followed by tempSuffixLen hex digits.
const (
	tempMarker    = ".quiver-"
	tempSuffixLen = 12
)

// createTemp creates the temporary file for an atomic write of name, locked
// (flock, exclusive) for as long as its writer lives. If a sweeper removed
// the file between its creation and the lock, it starts over with a new name.
func createTemp(root *os.Root, name string, perm fs.FileMode) (*os.File, string, error) {
	for {
		tmp := path.Join(path.Dir(name), "."+path.Base(name)+tempMarker+randomSuffix())
		f, err := root.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
		if err != nil {
			return nil, "", err
		}
		if lock(f, false) != nil {
			return f, tmp, nil // no locks on this file system: nothing is ever swept either
		}
		held, err1 := f.Stat()
		named, err2 := root.Lstat(tmp)
		if err1 == nil && err2 == nil && os.SameFile(held, named) {
			return f, tmp, nil
		}
		f.Close()
	}
}

// removeStaleTemps removes the temporary files that writers of name left
// behind when they died before renaming (a process killed mid-write cannot
// clean up). A temporary file is stale when nobody holds its lock: a live
// writer holds it from creation to rename, and the kernel releases it when
// the writer dies. Failures are ignored: a leftover is harmless, and the next
// write tries again.
func removeStaleTemps(root *os.Root, name string) {
	dir := path.Dir(name)
	prefix := "." + path.Base(name) + tempMarker
	d, err := root.Open(dir)
	if err != nil {
		return
	}
	defer d.Close()
	for {
		names, err := d.Readdirnames(256)
		for _, n := range names {
			if suffix, ok := strings.CutPrefix(n, prefix); ok && len(suffix) == tempSuffixLen && isHex(suffix) {
				removeIfUnlocked(root, path.Join(dir, n))
			}
		}
		if err != nil {
			return
		}
	}
}

func removeIfUnlocked(root *os.Root, tmp string) {
	f, err := root.OpenFile(tmp, os.O_RDONLY|openNoFollow, 0)
	if err != nil {
		return
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return
	}
	if lock(f, true) != nil {
		return // a live writer holds it
	}
	root.Remove(tmp)
}

func isHex(s string) bool {
	for i := 0; i < len(s); i++ {
		if !('0' <= s[i] && s[i] <= '9' || 'a' <= s[i] && s[i] <= 'f') {
			return false
		}
	}
	return true
}

// followLinks resolves the symbolic links of name with the rules of
// [Workspace.Resolve] — the one resolution the policy also matches — so
// that an atomic rename replaces the file a link points at, not the link.
// os.Root enforces confinement again on use.
func (w *Workspace) followLinks(root *os.Root, p, name string) (string, error) {
	resolved, err := resolveIn(rootLinks{root}, name)
	if err != nil {
		return "", resolveError(p, err)
	}
	return resolved, nil
}

func randomSuffix() string {
	var b [6]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic(fmt.Sprintf("crypto/rand: %v", err))
	}
	return hex.EncodeToString(b[:])
}
