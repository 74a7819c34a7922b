package sandbox

import (
	"bytes"
	"context"
	"debug/elf"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"
)

// ErrGitRefused is the refusal of what an approved git did to the
// repository's metadata: a gitlink to a repository the index did not have,
// or a commondir. [GitGuard.Check] undoes it and returns an error wrapping
// this one.
var ErrGitRefused = errors.New("refused a change to the repository's metadata")

// ForProgram returns the profile and arguments to start the program at
// path with argv under: p and argv, except for git. A git that the policy
// let through as read-only gets [GitArgs]' switches. And git itself (a
// program named git that no confined process could have written):
//
//   - under workspace-write — an approved command, since one the
//     classifier calls read-only runs read-only — finds its git directory
//     writable but for what names programs or other locations (see
//     gitPinned), so that add and commit work; every other program finds
//     all of .git read-only. A [Process] runs it between
//     [Profile.GuardGit] and [GitGuard.Check].
//   - under read-only, may execute nothing but itself, its own exec path
//     and its loader: every program a repository's config or attributes
//     could name (external diff, textconv, filters, fsmonitor, pager,
//     gpg...) fails to start.
//
// The error, wrapping [ErrGitProbeTimeout], is a read-only git that did
// not tell its exec path within ten seconds: nothing starts under a git
// that hangs.
func (p *Profile) ForProgram(path string, argv []string) (*Profile, []string, error) {
	if p == nil || filepath.Base(path) != "git" {
		return p, argv, nil
	}
	if p.readOnly() {
		argv = GitArgs(argv)
	}
	if !p.Confined() || p.noProcess {
		return p, argv, nil
	}
	if p.With(WorkspaceWrite).MayWrite(path) {
		return p, argv, nil // a program the workspace holds, not the system's git
	}
	q := *p
	switch p.Scope {
	case WorkspaceWrite:
		q.gitWrite = true
	case ReadOnly:
		list, err := gitExecutables(path, gitProbeTimeout)
		if err != nil {
			return nil, nil, err
		}
		q.execOnly = list
	}
	return &q, argv, nil
}

// gitProbeTimeout bounds `git --exec-path` (gitExecutables): it answers at
// once, and a git that hangs (a wrapper waiting on a lock or a network
// share) must not hold the call, or Quiver, with it.
const gitProbeTimeout = 10 * time.Second

// ErrGitProbeTimeout is the error of a git that did not tell its exec path
// in time ([Profile.ForProgram]).
var ErrGitProbeTimeout = errors.New("git did not answer --exec-path in time")

// gitExecutables returns what the read-only git at path may execute: the
// binary, its exec path (git's own helpers) and the ELF interpreter that
// loads them; nil, which leaves execution open, if git's exec path cannot
// be learnt. Learnt once per path, from the git itself: one that no
// confined process can have written. A git that does not answer within
// timeout is killed, with what it started, and is an error wrapping
// ErrGitProbeTimeout.
func gitExecutables(path string, timeout time.Duration) ([]string, error) {
	if v, ok := gitExecMemo.Load(path); ok {
		return v.([]string), nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	var out bytes.Buffer
	probe := Command(ctx, nil, path, "--exec-path")
	probe.Stdout = &out
	if err := probe.Run(); err != nil {
		if ctx.Err() != nil {
			return nil, fmt.Errorf("sandbox: %s --exec-path: %w (%s); it was killed", path, ErrGitProbeTimeout, timeout)
		}
		return nil, nil
	}
	execPath := strings.TrimSpace(out.String())
	list := []string{path, execPath}
	for _, bin := range []string{path, filepath.Join(execPath, "git")} {
		if interp := elfInterpreter(bin); interp != "" && !slices.Contains(list, interp) {
			list = append(list, interp)
		}
	}
	gitExecMemo.Store(path, list)
	return list, nil
}

var gitExecMemo sync.Map // path -> []string

// elfInterpreter returns the loader an ELF program names (PT_INTERP), or
// "".
func elfInterpreter(path string) string {
	f, err := elf.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	for _, prog := range f.Progs {
		if prog.Type != elf.PT_INTERP {
			continue
		}
		b := make([]byte, prog.Filesz)
		if _, err := prog.ReadAt(b, 0); err != nil {
			return ""
		}
		return strings.TrimRight(string(b), "\x00")
	}
	return ""
}

// GitGuard holds what an approved git may not change, as it was before the
// git ran: which gitlinks the index had (and the index itself, to put it
// back) and whether a commondir existed.
type GitGuard struct {
	repo      gitRepo
	hashLen   int
	index     []byte // nil: there was none
	links     []string
	commondir map[string]bool
	err       error
}

// GuardGit records the repository's state before an approved git runs
// under p (see [Profile.ForProgram]); nil when p is not such a profile.
func (p *Profile) GuardGit() *GitGuard {
	if p == nil || !p.gitWrite {
		return nil
	}
	repo, ok := findGitRepo(p.Workspace)
	if !ok || len(repo.dirs) == 0 {
		return nil
	}
	g := &GitGuard{repo: repo, hashLen: hashLen(repo), commondir: map[string]bool{}}
	for _, d := range repo.dirs {
		_, err := os.Lstat(filepath.Join(d, "commondir"))
		g.commondir[d] = err == nil
	}
	b, err := os.ReadFile(filepath.Join(repo.dirs[0], "index"))
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		g.err = err
		return g
	}
	g.index = b
	g.links, g.err = readGitlinks(repo.dirs[0], g.hashLen)
	return g
}

// Check undoes what the git run since [Profile.GuardGit] did that an
// approved git may not do, and says what: a commondir that appeared is
// removed; an index that gained a gitlink — a nested repository staged by
// `git add`, whose config and hooks the user's next git status would
// run — is put back as it was. The error wraps [ErrGitRefused]. A nil
// guard checks nothing.
func (g *GitGuard) Check() error {
	if g == nil {
		return nil
	}
	if g.err != nil {
		return fmt.Errorf("%w: the index could not be read before git ran: %w", ErrGitRefused, g.err)
	}
	var refused []string
	for d, had := range g.commondir {
		c := filepath.Join(d, "commondir")
		if _, err := os.Lstat(c); err == nil && !had {
			os.Remove(c)
			refused = append(refused, "created "+c+" (it would send git to another repository); removed")
		}
	}
	links, err := readGitlinks(g.repo.dirs[0], g.hashLen)
	if added := newLinks(g.links, links); err != nil || len(added) > 0 {
		what := "left an index that cannot be read"
		if err == nil {
			what = "staged " + strings.Join(added, ", ") + " as a gitlink (a nested repository, whose config and hooks the user's git status would run)"
		}
		if rerr := g.restoreIndex(); rerr != nil {
			refused = append(refused, what+"; restoring the index failed: "+rerr.Error())
		} else {
			refused = append(refused, what+"; the index is restored as it was before the command")
		}
	}
	if len(refused) == 0 {
		return nil
	}
	return fmt.Errorf("%w: git %s", ErrGitRefused, strings.Join(refused, "; "))
}

// newLinks returns the entries of after that before lacks (both sorted).
func newLinks(before, after []string) []string {
	var out []string
	for _, l := range after {
		if _, found := slices.BinarySearch(before, l); !found {
			out = append(out, l)
		}
	}
	return out
}

// restoreIndex puts the index back as GuardGit found it, through git's own
// lock file so that no git writes it at the same time.
func (g *GitGuard) restoreIndex() error {
	index := filepath.Join(g.repo.dirs[0], "index")
	lock := index + ".lock"
	f, err := os.OpenFile(lock, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	if g.index == nil {
		f.Close()
		os.Remove(lock)
		return os.Remove(index)
	}
	_, werr := f.Write(g.index)
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	if werr != nil {
		os.Remove(lock)
		return werr
	}
	return os.Rename(lock, index)
}
