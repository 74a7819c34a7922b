package workspace

import (
	"errors"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strings"
	"syscall"

	"github.com/quiverkit/quiver/tool"
)

// maxLinks is how many symbolic links one lookup follows: os.Root's limit.
const maxLinks = 8

// Resolve returns the file p names once every symbolic link on the way is
// followed, as a clean workspace-relative slash path ("." for the root), or
// absolute when the workspace serves outside paths and the file lies
// outside it. It is what the policy matches: `src/envlink -> ../.env`
// resolves to ".env", and `src/up/notes.txt` with `src/up -> ..` to
// "notes.txt".
//
// Links are followed with os.Root's rules, the rules every read and write of
// the workspace obeys: a link may not be absolute, may not lead out of the
// root, and at most eight are followed; any of these is SANDBOX_VIOLATION.
// ".." after a link climbs from the link's target, as the kernel does. A path
// that does not exist yet resolves its existing parent directories and keeps
// the rest as written, so a file about to be created resolves to where it
// will be created.
//
// Resolve looks at the disk now: a rename between Resolve and a later open
// can change which file the open reaches. It cannot make the open leave the
// workspace (os.Root checks again), so what such a race can swap is one file
// inside the workspace for another.
func (w *Workspace) Resolve(p string) (string, error) {
	if w.backend != nil {
		_, real, err := w.backendResolve(p)
		return real, err
	}
	r, name, err := w.locate(p)
	if err != nil {
		return "", err
	}
	resolved, err := resolveIn(rootLinks{r}, name)
	if err != nil {
		return "", resolveError(p, err)
	}
	if r == w.root {
		return resolved, nil
	}
	// Served from "/": an outside link may lead back into the workspace.
	return w.Rel("/" + resolved)
}

// errAbsoluteLink and errClimbs say why a lookup left its root.
var (
	errAbsoluteLink = errors.New("a symbolic link on the way is absolute")
	errClimbs       = errors.New("the path climbs out of the root (through a symbolic link or ..)")
)

// resolveIn resolves name (clean, relative to root) component by component.
func resolveIn(root linkFS, name string) (string, error) {
	var done []string
	todo := strings.Split(name, "/")
	links := 0
	for len(todo) > 0 {
		c := todo[0]
		todo = todo[1:]
		switch c {
		case "", ".":
			continue
		case "..":
			if len(done) == 0 {
				return "", errClimbs
			}
			done = done[:len(done)-1]
			continue
		}
		cur := path.Join(path.Join(done...), c)
		fi, err := root.Lstat(cur)
		if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
			// Nothing more to follow. A ".." further on would have to climb
			// out of a directory that is not there: the kernel stops here.
			if slices.Contains(todo, "..") {
				return "", err
			}
			return path.Join(append(append(done, c), todo...)...), nil
		}
		if err != nil {
			return "", err
		}
		if fi.Mode()&fs.ModeSymlink == 0 {
			done = append(done, c)
			continue
		}
		if links++; links > maxLinks {
			return "", syscall.ELOOP
		}
		target, err := root.ReadLink(cur)
		if err != nil {
			return "", err
		}
		if path.IsAbs(target) {
			return "", errAbsoluteLink
		}
		todo = append(strings.Split(target, "/"), todo...)
	}
	if len(done) == 0 {
		return ".", nil
	}
	return path.Join(done...), nil
}

func resolveError(p string, err error) error {
	switch {
	case errors.Is(err, errAbsoluteLink):
		return &tool.Error{Code: tool.CodeSandboxViolation, Message: fmt.Sprintf("path %q goes through a symbolic link to an absolute path", p), Err: err}
	case errors.Is(err, errClimbs):
		return &tool.Error{Code: tool.CodeSandboxViolation, Message: fmt.Sprintf("path %q resolves outside the workspace (through a symbolic link or ..)", p), Err: err}
	}
	return classify("resolve", p, err)
}
