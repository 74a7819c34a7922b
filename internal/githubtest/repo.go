package githubtest

import (
	"bufio"
	"bytes"
	"crypto/sha1"
	"encoding/hex"
	"fmt"
	"io"
	"os/exec"
	"path"
	"slices"
	"strconv"
	"strings"
	"time"
)

// The modes of a git tree entry, as the API spells them.
const (
	ModeFile       = "100644"
	ModeExecutable = "100755"
	ModeDir        = "040000"
	ModeSymlink    = "120000"
	ModeSubmodule  = "160000"
)

// File is one entry of a repository the fake serves.
type File struct {
	Path    string // slash-separated, relative to the repository's root
	Content []byte // a symlink's content is its target
	Mode    string // ModeFile when empty; ModeExecutable, ModeSymlink or ModeSubmodule
	Commit  string // a submodule's commit (40 hex digits); other modes ignore it
}

// Files builds a file set from path and content pairs, for short tables.
func Files(pathContent ...string) []File {
	if len(pathContent)%2 != 0 {
		panic("githubtest.Files: odd number of arguments")
	}
	fs := make([]File, 0, len(pathContent)/2)
	for i := 0; i < len(pathContent); i += 2 {
		fs = append(fs, File{Path: pathContent[i], Content: []byte(pathContent[i+1])})
	}
	return fs
}

// object is a git object of the fake's store, addressed by its real git sha:
// a repository built from files has the ids git would give it.
type object struct {
	kind    string // blob, tree, commit
	data    []byte // a blob's content
	entries []entry
	tree    string    // a commit's tree
	when    time.Time // a commit's author and committer time
}

// entry is one line of a tree object.
type entry struct {
	name, mode, kind, sha string
	size                  int // blobs only
}

// store holds the objects of every commit the fake has been given.
type store map[string]*object

func gitHash(kind string, body []byte) string {
	h := sha1.New()
	fmt.Fprintf(h, "%s %d\x00", kind, len(body))
	h.Write(body)
	return hex.EncodeToString(h.Sum(nil))
}

// commit stores files as a tree and a commit over it made at when, and
// returns the commit's sha. seq tells commits of the same tree apart.
func (s store) commit(files []File, when time.Time, seq int) (string, error) {
	tree, err := s.tree(files, "")
	if err != nil {
		return "", err
	}
	body := fmt.Appendf(nil, "tree %s\nauthor Quiver Test <test@quiver.invalid> %d +0000\ncommitter Quiver Test <test@quiver.invalid> %d +0000\n\ncommit %d\n", tree, when.Unix(), when.Unix(), seq)
	sha := gitHash("commit", body)
	s[sha] = &object{kind: "commit", tree: tree, when: when}
	return sha, nil
}

// tree stores the directory dir of files and returns its sha.
func (s store) tree(files []File, dir string) (string, error) {
	var es []entry
	subdirs := map[string]bool{}
	for _, f := range files {
		rel, ok := strings.CutPrefix(f.Path, dir)
		if !ok || rel == "" {
			continue
		}
		if name, _, nested := strings.Cut(rel, "/"); nested {
			if !subdirs[name] {
				subdirs[name] = true
				sha, err := s.tree(files, dir+name+"/")
				if err != nil {
					return "", err
				}
				es = append(es, entry{name: name, mode: ModeDir, kind: "tree", sha: sha})
			}
			continue
		}
		e, err := s.leaf(f, rel)
		if err != nil {
			return "", err
		}
		es = append(es, e)
	}
	// git sorts a tree's entries by name, a directory's name with a slash.
	key := func(e entry) string {
		if e.kind == "tree" {
			return e.name + "/"
		}
		return e.name
	}
	slices.SortFunc(es, func(a, b entry) int { return strings.Compare(key(a), key(b)) })
	var body bytes.Buffer
	for _, e := range es {
		raw, _ := hex.DecodeString(e.sha)
		fmt.Fprintf(&body, "%s %s\x00", strings.TrimPrefix(e.mode, "0"), e.name)
		body.Write(raw)
	}
	sha := gitHash("tree", body.Bytes())
	s[sha] = &object{kind: "tree", entries: es}
	return sha, nil
}

func (s store) leaf(f File, name string) (entry, error) {
	mode := f.Mode
	if mode == "" {
		mode = ModeFile
	}
	switch mode {
	case ModeFile, ModeExecutable, ModeSymlink:
		sha := gitHash("blob", f.Content)
		s[sha] = &object{kind: "blob", data: f.Content}
		return entry{name: name, mode: mode, kind: "blob", sha: sha, size: len(f.Content)}, nil
	case ModeSubmodule:
		if len(f.Commit) != 40 {
			return entry{}, fmt.Errorf("githubtest: submodule %s: commit %q is not 40 hex digits", f.Path, f.Commit)
		}
		return entry{name: name, mode: mode, kind: "commit", sha: f.Commit}, nil
	}
	return entry{}, fmt.Errorf("githubtest: %s: unknown mode %q", f.Path, mode)
}

// lookup finds the entry at p (slash-separated, "" for the root) under
// the tree root.
func (s store) lookup(root, p string) (entry, bool) {
	e := entry{mode: ModeDir, kind: "tree", sha: root}
	if p == "" {
		return e, true
	}
	for _, name := range strings.Split(p, "/") {
		t := s[e.sha]
		if e.kind != "tree" || t == nil {
			return entry{}, false
		}
		i := slices.IndexFunc(t.entries, func(c entry) bool { return c.name == name })
		if i < 0 {
			return entry{}, false
		}
		e = t.entries[i]
	}
	return e, true
}

// follow resolves the symlink at p, whose target is target, under the tree
// root: the path and entry of a regular file it points to inside the
// repository, or false.
func (s store) follow(root, p, target string) (string, entry, bool) {
	if path.IsAbs(target) {
		return "", entry{}, false
	}
	to := path.Join(path.Dir(p), target)
	if to == ".." || strings.HasPrefix(to, "../") {
		return "", entry{}, false
	}
	e, ok := s.lookup(root, to)
	if !ok || e.kind != "blob" || e.mode == ModeSymlink {
		return "", entry{}, false
	}
	return to, e, true
}

// walk lists the entries under the tree sha, depth first in git's order,
// with paths relative to it.
func (s store) walk(sha, prefix string, fn func(p string, e entry)) {
	for _, e := range s[sha].entries {
		p := path.Join(prefix, e.name)
		fn(p, e)
		if e.kind == "tree" {
			s.walk(e.sha, p, fn)
		}
	}
}

// FromGit reads the tree of rev in the git repository at dir (with the
// git command) as a file set, so that the fake can serve a real
// repository with the object ids git gave it.
func FromGit(dir, rev string) ([]File, error) {
	out, err := exec.Command("git", "-C", dir, "ls-tree", "-r", "-z", "--full-tree", rev).Output()
	if err != nil {
		return nil, fmt.Errorf("githubtest: git ls-tree %s: %w", rev, err)
	}
	var files []File
	var blobs []string
	for line := range strings.SplitSeq(strings.TrimSuffix(string(out), "\x00"), "\x00") {
		meta, p, ok := strings.Cut(line, "\t")
		fields := strings.Fields(meta)
		if !ok || len(fields) != 3 {
			return nil, fmt.Errorf("githubtest: git ls-tree: unexpected line %q", line)
		}
		f := File{Path: p, Mode: fields[0]}
		if fields[1] == "commit" {
			f.Commit = fields[2]
		} else {
			blobs = append(blobs, fields[2])
		}
		files = append(files, f)
	}
	contents, err := catBlobs(dir, blobs)
	if err != nil {
		return nil, err
	}
	for i := range files {
		if files[i].Mode != ModeSubmodule {
			files[i].Content, contents = contents[0], contents[1:]
		}
	}
	return files, nil
}

// catBlobs reads blobs with one git cat-file --batch.
func catBlobs(dir string, shas []string) ([][]byte, error) {
	cmd := exec.Command("git", "-C", dir, "cat-file", "--batch")
	cmd.Stdin = strings.NewReader(strings.Join(shas, "\n") + "\n")
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("githubtest: git cat-file: %w", err)
	}
	r := bufio.NewReader(bytes.NewReader(out))
	contents := make([][]byte, 0, len(shas))
	for range shas {
		header, err := r.ReadString('\n')
		if err != nil {
			return nil, fmt.Errorf("githubtest: git cat-file: %w", err)
		}
		fields := strings.Fields(header)
		if len(fields) != 3 {
			return nil, fmt.Errorf("githubtest: git cat-file: unexpected header %q", header)
		}
		n, err := strconv.Atoi(fields[2])
		if err != nil {
			return nil, fmt.Errorf("githubtest: git cat-file: %w", err)
		}
		b := make([]byte, n+1) // the content and its newline
		if _, err := io.ReadFull(r, b); err != nil {
			return nil, fmt.Errorf("githubtest: git cat-file: %w", err)
		}
		contents = append(contents, b[:n])
	}
	return contents, nil
}
