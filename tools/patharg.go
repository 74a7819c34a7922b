package tools

import (
	"context"
	"encoding/json"
	"io/fs"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/quiverkit/quiver/tool"
	"github.com/quiverkit/quiver/workspace"
)

// Path arguments. Every tool that is given a path — a file it reads or
// writes, a directory it lists, searches or runs in, a file a patch names —
// spells and refuses it by pathArg, so that a path means the same to every
// tool, and the same to Quiver as to the kernel, which reads it for the
// programs the model runs. The rules, by what the path must name:
//
//   - Any path: at most maxPathBytes bytes, no NUL byte, inside the workspace
//     (outside it only by an absolute path under the unrestricted write
//     scope, and never for a search). A ".." after a name climbs out of what
//     that name is on disk, as the kernel climbs: the workspace cleans paths
//     lexically, so a path whose ".." the kernel would take elsewhere (after
//     a missing name, a file, or a symbolic link to another directory) is
//     refused rather than read as its spelling says.
//   - A file (aFile): not empty, not the root, and not spelled as a
//     directory. "a.txt/", "a.txt/." and "a.txt/.." name no file (the kernel
//     answers ENOTDIR, and EISDIR to a creation of "new.txt/"), so they are
//     refused, not cleaned into a.txt. A name the tool may create (newName)
//     must be valid UTF-8.
//   - A directory (aDir): "" is the root, "d/" is d; it must exist and be a
//     directory.
//   - Either (aFile|aDir): a directory, or a regular file when not spelled
//     as a directory.
//
// Every refusal is a *tool.Error whose message names the field and whose
// Details["field"] is the field: INVALID_ARGUMENTS for a spelling,
// SANDBOX_VIOLATION for a path outside the workspace, NOT_FOUND for one
// that does not exist where something must, EXECUTION_FAILED for the wrong
// kind of file on disk. What the spelling alone tells (spellPath) is
// checked first, so "/elsewhere/" is INVALID_ARGUMENTS for a file tool
// where "/elsewhere" is SANDBOX_VIOLATION; a path that climbs out by its
// spelling ("../", "..") is SANDBOX_VIOLATION, a bare "." the root.

// maxPathBytes bounds a path argument: longer paths cannot name a file on
// Linux (PATH_MAX), and refusing them early keeps create_dirs from making a
// deep chain of directories before the name fails.
const maxPathBytes = 4096

// pathKind says what a path argument must name.
type pathKind uint8

const (
	aFile   pathKind = 1 << iota // a file to read or write
	aDir                         // a directory to list, search or run in ("" is the root)
	newName                      // the tool may create the file: its name must be valid UTF-8
	inside                       // inside the workspace under every write scope (the searches)
	reads                        // the tool reads below it: a path the read guard denies is refused before it is looked at
)

// pathArg checks path argument p of field, which must name k, and returns
// it relative to the workspace root ("." for the root; absolute outside it
// under the unrestricted scope). For a directory, or either, it also
// returns what is there (symbolic links followed).
func pathArg(ws *workspace.Workspace, field, p string, k pathKind) (string, fs.FileInfo, error) {
	if err := spellPath(field, p, k); err != nil {
		return "", nil, err
	}
	if p == "" {
		p = "."
	}
	rel, err := ws.Rel(p)
	if err != nil {
		return "", nil, fieldError(field, err)
	}
	if k&inside != 0 && filepath.IsAbs(rel) {
		return "", nil, argError(field, tool.CodeInvalidArguments, "path %q is outside the workspace; searches stay inside it", p)
	}
	if err := checkClimbs(ws, field, p); err != nil {
		return "", nil, err
	}
	if k&aDir == 0 {
		if rel == "." {
			return "", nil, argError(field, tool.CodeExecutionFailed, "%q is the workspace root, a directory; give the path of a file", p)
		}
		// A symbolic link out is refused now, with the field named, rather
		// than by the read or write that would follow it.
		if _, err := ws.Resolve(rel); err != nil {
			return "", nil, fieldError(field, err)
		}
		return rel, nil, nil
	}
	if k&reads != 0 {
		if err := ws.CheckRead(rel); err != nil {
			return "", nil, err
		}
	}
	fi, err := ws.Stat(rel)
	switch {
	case err != nil && isNotExist(err):
		return "", nil, argError(field, tool.CodeNotFound, "%s does not exist (no such file or directory)", printable(rel)).WithCause(err)
	case err != nil:
		return "", nil, fieldError(field, err)
	}
	if err := checkKind(field, p, rel, fi, k); err != nil {
		return "", nil, err
	}
	return rel, fi, nil
}

// argInWorkspace is pathArg in the workspace of the call tc belongs to.
func argInWorkspace(ctx context.Context, tc tool.Context, field, p string, k pathKind) (*workspace.Workspace, string, error) {
	ws, err := workspace.From(ctx, tc)
	if err != nil {
		return nil, "", err
	}
	rel, _, err := pathArg(ws, field, p, k)
	if err != nil {
		return nil, "", err
	}
	return ws, rel, nil
}

// spellPath is the part of pathArg that needs no workspace: what the
// spelling alone tells. The toolkit runs it before the policy decides on
// a call (withPathArgs), so nobody is asked to approve a call that cannot
// run.
func spellPath(field, p string, k pathKind) error {
	switch {
	case len(p) > maxPathBytes:
		return argError(field, tool.CodeInvalidArguments, "%d bytes long; paths are at most %d bytes", len(p), maxPathBytes)
	case p == "" && k&aDir == 0:
		return argError(field, tool.CodeInvalidArguments, "the path is empty; give the path of a file")
	case strings.IndexByte(p, 0) >= 0:
		return argError(field, tool.CodeInvalidArguments, "path %q contains a NUL byte", p)
	case k&newName != 0 && (!utf8.ValidString(p) || strings.ContainsRune(p, utf8.RuneError)):
		// JSON turns invalid bytes into U+FFFD: a model cannot name such a
		// file reliably, and a writer must not create a name it did not mean.
		return argError(field, tool.CodeInvalidArguments, "%q is not valid UTF-8 (or holds U+FFFD); this tool only writes files whose names are valid UTF-8", p)
	case k&aDir == 0 && spelledAsDir(p) && !climbsOut(p):
		return argError(field, tool.CodeInvalidArguments, "%q names a directory (it ends in a slash, \".\" or \"..\"); this tool works on a file: give the file's path without a trailing slash", p)
	}
	return nil
}

// spelledAsDir reports whether p can only name a directory: it ends in a
// slash, or in "." or ".." after one. A bare "." is the root and a bare
// ".." outside it: the workspace says so.
func spelledAsDir(p string) bool {
	p = filepath.ToSlash(p)
	i := strings.LastIndexByte(p, '/')
	base := p[i+1:]
	return i >= 0 && (base == "" || base == "." || base == "..")
}

// climbsOut reports whether the relative path p leaves the root by its
// spelling ("../", "d/../.."): that it is outside says more than how it
// ends, and the workspace says it.
func climbsOut(p string) bool {
	p = filepath.ToSlash(p)
	if path.IsAbs(p) {
		return false
	}
	c := path.Clean(p)
	return c == ".." || strings.HasPrefix(c, "../")
}

// checkClimbs checks each ".." of p that follows a name: the kernel climbs
// out of what the name is on disk, the workspace's lexical cleaning drops
// the name. They agree when the name is a directory, or a symbolic link to
// one whose parent is the directory the spelling climbs to.
func checkClimbs(ws *workspace.Workspace, field, p string) error {
	p = filepath.ToSlash(p)
	if !strings.Contains(p, "..") {
		return nil
	}
	elems := strings.Split(p, "/")
	for i := 1; i < len(elems); i++ {
		if elems[i] != ".." {
			continue
		}
		before := strings.Join(elems[:i], "/")
		if before == "" {
			continue // "/..", which the kernel and the cleaning both take for "/"
		}
		if err := checkClimb(ws, field, p, before); err != nil {
			return err
		}
	}
	return nil
}

// checkClimb checks the ".." of p that follows before.
func checkClimb(ws *workspace.Workspace, field, p, before string) error {
	fi, err := ws.Lstat(before)
	switch {
	case err != nil && isNotExist(err):
		return argError(field, tool.CodeNotFound, "%q: %s does not exist, and \"..\" climbs out of a directory that does", p, before).WithCause(err)
	case err != nil:
		return fieldError(field, err)
	case fi.IsDir():
		return nil
	case fi.Mode()&fs.ModeSymlink == 0:
		return argError(field, tool.CodeExecutionFailed, "%q: %s is %s, not a directory, so \"..\" cannot climb out of it", p, before, fileKind(fi.Mode()))
	}
	if fi, err = ws.Stat(before); err != nil {
		return fieldError(field, err)
	}
	if !fi.IsDir() {
		return argError(field, tool.CodeExecutionFailed, "%q: %s leads to %s, not a directory, so \"..\" cannot climb out of it", p, before, fileKind(fi.Mode()))
	}
	target, err := ws.Resolve(before)
	if err != nil {
		return fieldError(field, err)
	}
	rel, err := ws.Rel(before)
	if err != nil {
		return fieldError(field, err)
	}
	spelled, err := ws.Resolve(path.Dir(rel))
	if err != nil {
		return fieldError(field, err)
	}
	if target == "." {
		return argError(field, tool.CodeSandboxViolation, "%q: %s is a symbolic link to the workspace root, so \"..\" after it climbs out of the workspace", p, before)
	}
	if climbed := path.Dir(target); climbed != spelled {
		return argError(field, tool.CodeInvalidArguments, "%q: %s is a symbolic link to %s, so \"..\" after it climbs to %s, not to %s as the path is spelled; give the path without \"..\"", p, before, target, climbed, spelled)
	}
	return nil
}

// checkKind checks that fi, found at rel for p, is what k asks for.
func checkKind(field, p, rel string, fi fs.FileInfo, k pathKind) error {
	switch {
	case fi.IsDir():
		return nil
	case k&aFile != 0 && fi.Mode().IsRegular() && !spelledAsDir(p):
		return nil
	case fi.Mode().IsRegular() && k&aFile != 0:
		return argError(field, tool.CodeExecutionFailed, "%s is a file, not a directory, and %q ends in a slash, \".\" or \"..\", which names a directory; give the path without it", printable(rel), p)
	case fi.Mode().IsRegular():
		return argError(field, tool.CodeExecutionFailed, "%s is a file, not a directory; use read_file to read it, or give its directory", printable(rel))
	case k&aFile != 0:
		return argError(field, tool.CodeExecutionFailed, "%s is %s, neither a directory nor a regular file", printable(rel), fileKind(fi.Mode()))
	}
	return argError(field, tool.CodeExecutionFailed, "%s is %s, not a directory; give the path of a directory", printable(rel), fileKind(fi.Mode()))
}

// argError is a refusal of field's value.
func argError(field string, c tool.Code, format string, args ...any) *tool.Error {
	return tool.Errorf(c, "field %q: "+format, append([]any{field}, args...)...).WithDetail("field", field)
}

// fieldError is err, an error of the workspace about field's path, with
// the field named; its code and details are kept. A backend's own failure
// (no connection, a rate limit) is no fault of the field: it is returned
// as it is.
func fieldError(field string, err error) error {
	if workspace.BackendFailure(err) {
		return err
	}
	return tool.FieldError(field, err)
}

// pathField is one path argument of a call: its field, its value and what
// it must name.
type pathField struct {
	field, value string
	kind         pathKind
}

// withPathArgs makes t refuse a call with a misspelled path argument
// (spellPath) when the toolkit asks for its subjects, before the policy
// decides on it: a person is not asked to approve a write to "new.txt/",
// which would then fail. fields lists the call's path arguments. Each path
// subject spelled as one of them carries its field (tool.Subject.Field), so
// that the toolkit's refusal of a path that leads out of the workspace,
// before the tool runs, names the field as pathArg's would.
func withPathArgs[In any](t *tool.Tool, fields func(In) []pathField) *tool.Tool {
	subjects := t.Subjects
	t.Subjects = func(raw json.RawMessage) ([]tool.Subject, error) {
		var in In
		if err := json.Unmarshal(raw, &in); err != nil {
			return nil, tool.Errorf(tool.CodeInvalidArguments, "arguments: %w", err)
		}
		list := fields(in)
		for _, f := range list {
			if err := spellPath(f.field, f.value, f.kind); err != nil {
				return nil, err
			}
		}
		if subjects == nil {
			return nil, nil
		}
		out, err := subjects(raw)
		for i, s := range out {
			if s.Kind != tool.SubjectPath || s.Field != "" {
				continue
			}
			if j := slices.IndexFunc(list, func(f pathField) bool { return f.value == s.Value }); j >= 0 {
				out[i].Field = list[j].field
			}
		}
		return out, err
	}
	return t
}

// onePath is a withPathArgs list for a tool with one path argument.
func onePath[In any](field string, k pathKind, get func(In) string) func(In) []pathField {
	return func(in In) []pathField { return []pathField{{field, get(in), k}} }
}
