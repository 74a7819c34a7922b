package sandbox

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// gitRepo is where git finds the repository of a directory that has a .git
// entry: the entry itself and the git directories it reads — .git when it
// is a directory, else the directory its "gitdir:" line names (a linked
// worktree's, a submodule's), then the common directory a commondir file
// names. Each of these tells git where to read config, hooks and objects,
// so each is pinned whole, or with only what add and commit write left
// writable (see gitPins).
type gitRepo struct {
	dotGit string   // the .git entry, absolute
	dirs   []string // the git directories git reads for it, absolute
}

// findGitRepo returns the repository of dir's .git entry; ok is false when
// dir has none. Nothing here runs git: it reads the two pointer files as
// git does (a first line "gitdir: PATH", relative to the .git file's
// directory; a commondir file's content, relative to the git directory).
func findGitRepo(dir string) (gitRepo, bool) {
	dotGit := filepath.Join(dir, ".git")
	fi, err := os.Lstat(dotGit)
	if err != nil {
		return gitRepo{}, false
	}
	r := gitRepo{dotGit: dotGit}
	gitDir := dotGit
	switch {
	case fi.Mode().IsRegular():
		target, ok := readPointer(dotGit, "gitdir: ")
		if !ok {
			return r, true
		}
		gitDir = absFrom(dir, target)
	case fi.Mode()&os.ModeSymlink != 0:
		if real, err := filepath.EvalSymlinks(dotGit); err == nil {
			gitDir = real
		}
	}
	r.dirs = append(r.dirs, gitDir)
	if common, ok := readPointer(filepath.Join(gitDir, "commondir"), ""); ok {
		r.dirs = append(r.dirs, absFrom(gitDir, common))
	}
	return r, true
}

// readPointer returns the first line of the file at path after prefix.
func readPointer(path, prefix string) (string, bool) {
	f, err := os.Open(path)
	if err != nil {
		return "", false
	}
	defer f.Close()
	line, _ := bufio.NewReader(f).ReadString('\n')
	line = strings.TrimRight(line, "\r\n")
	if !strings.HasPrefix(line, prefix) || len(line) == len(prefix) {
		return "", false
	}
	return line[len(prefix):], true
}

func absFrom(base, p string) string {
	if !filepath.IsAbs(p) {
		p = filepath.Join(base, p)
	}
	return filepath.Clean(p)
}

// gitPinned are the entries of a git directory that name programs or other
// locations (config and hooks; info/ holds attributes, grafts, exclude and
// sparse-checkout; objects/info holds alternates; worktrees/ and modules/
// hold the git directories of linked worktrees and submodules, each with
// its own config, hooks and pointers; commondir and gitdir are pointers),
// pinned read-only even for git's own write commands. The directories are
// created first when missing, so that they can be pinned: a bind mount
// cannot pin what does not exist. commondir cannot be created ahead (an
// empty one is an error for git), so [GitGuard] removes one that appears.
var (
	gitPinned      = []string{"config", "config.worktree", "hooks", "info", "objects/info", "worktrees", "modules", "commondir", "gitdir", "shallow"}
	gitPinnedMkdir = []string{"hooks", "info", "objects/info", "worktrees", "modules"}
)

// gitPins returns what to pin read-only for the repositories of the
// workspace: for every process but an approved git, each .git entry and
// git directory whole; for an approved git (write), the .git entry when it
// is a file and, inside each git directory, the gitPinned entries, after
// creating the gitPinnedMkdir ones that can be written. Every gitlink's
// checkout is pinned too: its .git entry, or the empty directory of a
// submodule that is not checked out (where a planted .git would be entered
// by the user's next git status).
func (p *Profile) gitPins(write bool) []string {
	repo, ok := findGitRepo(p.Workspace)
	if !ok {
		return nil
	}
	var pins []string
	if !write {
		pins = append(pins, repo.dotGit)
		pins = append(pins, repo.dirs...)
	} else {
		if repo.dotGit != firstOr(repo.dirs, "") {
			pins = append(pins, repo.dotGit)
		}
		for _, d := range repo.dirs {
			for _, name := range gitPinnedMkdir {
				if p.MayWrite(filepath.Join(d, name)) {
					os.Mkdir(filepath.Join(d, name), 0o755) // exists already, most often
				}
			}
			for _, name := range gitPinned {
				pins = append(pins, filepath.Join(d, name))
			}
		}
	}
	for _, sub := range gitlinksOf(repo) {
		dir := filepath.Join(p.Workspace, filepath.FromSlash(sub))
		if _, err := os.Lstat(filepath.Join(dir, ".git")); err == nil {
			pins = append(pins, filepath.Join(dir, ".git"))
		} else {
			pins = append(pins, dir)
		}
	}
	return pins
}

func firstOr(s []string, def string) string {
	if len(s) == 0 {
		return def
	}
	return s[0]
}

// gitlinksOf returns the gitlinks (submodules) of repo's index; nil when
// there are none or the index cannot be read.
func gitlinksOf(repo gitRepo) []string {
	if len(repo.dirs) == 0 {
		return nil
	}
	links, _ := readGitlinks(repo.dirs[0], hashLen(repo))
	return links
}

// hashLen is the length of an object name in repo: 32 bytes when its
// config says extensions.objectFormat = sha256, else 20.
func hashLen(repo gitRepo) int {
	cfg := filepath.Join(repo.dirs[len(repo.dirs)-1], "config")
	b, err := os.ReadFile(cfg)
	if err != nil {
		return 20
	}
	for _, line := range bytes.Split(bytes.ToLower(b), []byte("\n")) {
		k, v, ok := bytes.Cut(bytes.TrimSpace(line), []byte("="))
		if ok && string(bytes.TrimSpace(k)) == "objectformat" && string(bytes.TrimSpace(v)) == "sha256" {
			return 32
		}
	}
	return 20
}

// GitDirs returns the git directories git reads for dir's .git entry when
// that entry is a file or a link (the directory it names, and its common
// directory), absolute; nil when .git is a plain directory or missing. The
// policy protects them from the file tools as it protects .git itself.
func GitDirs(dir string) []string {
	repo, ok := findGitRepo(dir)
	if !ok {
		return nil
	}
	return slices.DeleteFunc(repo.dirs, func(d string) bool { return d == repo.dotGit })
}
