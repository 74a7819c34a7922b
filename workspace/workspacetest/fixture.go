package workspacetest

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// File is one entry of the fixture every backend must serve.
type File struct {
	Path string
	// Mode is 0 for a regular file (0644), 0o755 for an executable,
	// fs.ModeSymlink for a link whose target is Content, and fs.ModeDir
	// for a submodule whose commit is Content.
	Mode    fs.FileMode
	Content string
}

// ModTime is the modification time of every file of the fixture (the
// commit's time, for a backend that serves a commit).
var ModTime = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

// SubmoduleCommit is the commit the fixture's submodule records.
const SubmoduleCommit = "4b825dc642cb6eb9a060e54bf8d69288fbee4904"

// Files returns the fixture: source files a few levels deep, a file over
// read_file's 100 KB, a binary file, an image, an empty file, an
// executable, hidden files, ignore rules, symbolic links inside the tree
// (to a file and to a directory), out of it (relative and absolute), a
// dangling one, and a submodule.
func Files() []File {
	var big strings.Builder
	for i := 1; big.Len() < 150*1024; i++ {
		fmt.Fprintf(&big, "line %d of a big file, auth token %d\n", i, i*7)
	}
	return []File{
		{Path: "README.md", Content: "# demo\n\nHelpers for auth and buttons.\n"},
		{Path: ".gitignore", Content: "*.log\nbuild/\n"},
		{Path: ".gitmodules", Content: "[submodule \"vendor/lib\"]\n\tpath = vendor/lib\n\turl = https://example.invalid/lib.git\n"},
		{Path: ".hidden/secret.txt", Content: "a hidden auth note\n"},
		{Path: "app.log", Content: "auth failure logged\n"},
		{Path: "build/out.js", Content: "function auth() {}\n"},
		{Path: "src/auth/login.ts", Content: "import { token } from './token';\n\nexport function login() {\n  return auth(token());\n}\n"},
		{Path: "src/auth/token.ts", Content: "export function token(): string {\n  return 'AUTH';\n}\n"},
		{Path: "src/components/button.tsx", Content: "export function Button() {\n  return <button>ok</button>;\n}\n"},
		{Path: "src/main.tsx", Content: "import { Button } from './components/button';\n\nexport const App = () => <Button />;\n"},
		{Path: "src/deep/a/b/c/d.txt", Content: "deep auth\n"},
		{Path: "docs/guide.md", Content: "# Guide\n\nCall login() to auth.\n"},
		{Path: "big.txt", Content: big.String()},
		{Path: "bin/data.bin", Content: "auth\x00\x01\x02\x03binary"},
		{Path: "img/dot.png", Content: "\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01"},
		{Path: "empty.txt", Content: ""},
		{Path: "run.sh", Mode: 0o755, Content: "#!/bin/sh\necho auth\n"},
		{Path: "link-main", Mode: fs.ModeSymlink, Content: "src/main.tsx"},
		{Path: "linkdir", Mode: fs.ModeSymlink, Content: "src/auth"},
		{Path: "link-out", Mode: fs.ModeSymlink, Content: "../outside.txt"},
		{Path: "link-abs", Mode: fs.ModeSymlink, Content: "/etc/passwd"},
		{Path: "link-dangling", Mode: fs.ModeSymlink, Content: "nowhere.txt"},
		{Path: "vendor/lib", Mode: fs.ModeDir, Content: SubmoduleCommit},
	}
}

// Materialize writes files into dir as a checkout would: a submodule as a
// directory holding the .git file that points at its repository. Every
// file and link gets [ModTime].
func Materialize(dir string, files []File) error {
	for _, f := range files {
		p := filepath.Join(dir, filepath.FromSlash(f.Path))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		var err error
		switch {
		case f.Mode&fs.ModeSymlink != 0:
			err = os.Symlink(f.Content, p)
		case f.Mode.IsDir():
			if err = os.MkdirAll(p, 0o755); err == nil {
				err = os.WriteFile(filepath.Join(p, ".git"), []byte("gitdir: ../../.git/modules/vendor/lib\n"), 0o644)
			}
		default:
			err = os.WriteFile(p, []byte(f.Content), 0o644|f.Mode.Perm())
			if err == nil && f.Mode.Perm() != 0 {
				err = os.Chmod(p, f.Mode.Perm())
			}
		}
		if err != nil {
			return fmt.Errorf("workspacetest: %s: %w", f.Path, err)
		}
		if err := touch(p, f.Mode&fs.ModeSymlink != 0); err != nil {
			return fmt.Errorf("workspacetest: %s: %w", f.Path, err)
		}
	}
	return nil
}
